/**
 * GET /v1/users (the Users page's list) and GET /v1/response-facets (the Responses page's filter
 * choices) over both stores, with data sent through the API and processed and rolled up: every
 * user who registered a response, voted or stated consent is listed once, in id order, pages follow
 * the cursor, the search matches a piece of the id in any case, each user's figures agree with
 * `GET /v1/stats?userId=` and `GET /v1/users/:userId/data`; facets list the workspace's own values
 * and never another workspace's; bad input is a 400 naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollupDirtyDays } from '../src/pipeline/rollup.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

interface User {
  userId: string;
  responses: number;
  events: number;
  lastSeenAt: string | null;
  ratings: { positive: number; negative: number };
  satisfaction: number | null;
  consent: { implicit: boolean | null; explicit: boolean | null; updatedAt: string | null };
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`GET /v1/users and /v1/response-facets on ${backend.name}`, () => {
    let t: TestApp;
    let other: { workspaceId: string; secretKey: string };
    const get = (url: string, key?: string) => t.app.inject({ method: 'GET', url, headers: key ? { authorization: `Bearer ${key}` } : t.auth });
    const send = (method: 'POST' | 'PUT', url: string, payload: unknown, key?: string) =>
      t.app.inject({ method, url, headers: key ? { authorization: `Bearer ${key}` } : t.auth, payload: payload as object });
    const users = async (query: string): Promise<{ data: User[]; nextCursor: string | null }> => {
      const res = await get(`/v1/users?${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    };
    const hour = 3_600_000;
    const start = Date.now() - 20 * hour;

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), {}, { worker: true });
      other = await t.otherWorkspace();
      // Users u01-u12 each register responses; u01-u08 vote on them (u01: one up, one down; the others 1 up).
      const responses = Array.from({ length: 24 }, (_, i) => ({
        id: `r${i}`,
        query: `question ${i}`,
        answer: `answer ${i}`,
        userId: `U${String((i % 12) + 1).padStart(2, '0')}`.toLowerCase(),
        agent: i % 2 === 0 ? 'sql' : 'support',
        model: i % 3 === 0 ? 'm-big' : 'm-small',
        ...(i % 4 === 0 ? { experimentId: 'exp-1', variant: i % 8 === 0 ? 'control' : 'concise' } : {}),
        createdAt: new Date(start + i * (hour / 2)).toISOString(),
      }));
      expect((await send('POST', '/v1/responses/batch', { responses })).statusCode).toBe(207);
      const events: object[] = [
        { id: 'e1', responseId: 'r0', type: 'thumbs_up', userId: 'u01' },
        { id: 'e2', responseId: 'r12', type: 'thumbs_down', userId: 'u01', payload: { comment: 'wrong' } },
        { id: 'e3', responseId: 'r12', type: 'error_categories', userId: 'u01', payload: { categories: ['hallucination'] } },
      ];
      for (let u = 2; u <= 8; u++) events.push({ id: `v${u}`, responseId: `r${u - 1}`, type: 'thumbs_up', userId: `u${String(u).padStart(2, '0')}` });
      // A voter with no responses of their own, on u03's response.
      events.push({ id: 'w1', responseId: 'r2', type: 'thumbs_down', userId: 'widget-voter' });
      events.push({ id: 'w2', responseId: 'r2', type: 'error_categories', userId: 'widget-voter', payload: { categories: ['wrong_context'] } });
      // A reviewer's verdict (issue 27) carries the reviewer's name as its user: no end user.
      events.push({ id: 'rv1', responseId: 'r3', type: 'thumbs_up', source: 'review', userId: 'reviewer-ann' });
      const sent = await send('POST', '/v1/feedback/batch', { events });
      expect(sent.json().results.filter((r: { status: string }) => r.status !== 'accepted')).toEqual([]);
      // A user known only by their consent.
      expect((await send('PUT', '/v1/users/zz-consent-only/consent', { implicit: true, explicit: false })).statusCode).toBe(200);
      await send('POST', '/v1/responses', { id: 'theirs', query: 'q', answer: 'a', userId: 'u01-other', agent: 'their-agent', model: 'their-model' }, other.secretKey);
      await t.services.pipeline.idle(20_000);
      await rollupDirtyDays(t.db, { maxDays: 100 });
    }, 60_000);
    afterAll(async () => {
      await t?.close();
    });

    it('lists every user once in id order, and pages by cursor without gaps or repeats', async () => {
      const first = await users('limit=5');
      expect(first.data.map((u) => u.userId)).toEqual(['u01', 'u02', 'u03', 'u04', 'u05']);
      const seen = first.data.map((u) => u.userId);
      let cursor = first.nextCursor;
      while (cursor) {
        const page = await users(`limit=5&cursor=${encodeURIComponent(cursor)}`);
        seen.push(...page.data.map((u) => u.userId));
        cursor = page.nextCursor;
      }
      const expected = [...Array.from({ length: 12 }, (_, i) => `u${String(i + 1).padStart(2, '0')}`), 'widget-voter', 'zz-consent-only'];
      expect(seen).toEqual(expected);
    });

    it("gives each user's figures as the stats and the data view count them", async () => {
      const [u01] = (await users('search=u01')).data;
      expect(u01).toMatchObject({ userId: 'u01', responses: 2, events: 3, ratings: { positive: 1, negative: 1 }, satisfaction: 50 });
      // The same day rule and table as GET /v1/stats?userId= (the daily user sums).
      const from = new Date(start - 24 * hour).toISOString().slice(0, 10);
      const stats = (await get(`/v1/stats?userId=u01&from=${from}`)).json();
      expect([stats.positive, stats.negative, stats.satisfactionRate]).toEqual([u01?.ratings.positive, u01?.ratings.negative, u01?.satisfaction]);
      // Events sent and last seen, as the data view lists them.
      const data = (await get('/v1/users/u01/data')).json() as { events: Array<{ userId: string; occurredAt: string }>; responses: Array<{ createdAt: string }> };
      expect(data.events.filter((e) => e.userId === 'u01')).toHaveLength(u01?.events ?? -1);
      const times = [...data.events.filter((e) => e.userId === 'u01').map((e) => e.occurredAt), ...data.responses.map((r) => r.createdAt)].map((s) => Date.parse(s));
      expect(Date.parse(u01?.lastSeenAt ?? '')).toBe(Math.max(...times));
      // A user who only voted, and one who only stated consent.
      const voter = (await users('search=widget')).data[0];
      expect(voter).toMatchObject({ userId: 'widget-voter', responses: 0, events: 2, ratings: { positive: 0, negative: 1 }, satisfaction: 0 });
      const consentOnly = (await users('search=zz-')).data[0];
      expect(consentOnly).toMatchObject({ responses: 0, events: 0, lastSeenAt: null, satisfaction: null, consent: { implicit: true, explicit: false } });
      expect(consentOnly?.consent.updatedAt).not.toBeNull();
      expect((await users('search=u12')).data[0]?.consent).toMatchObject({ implicit: null, explicit: null, updatedAt: null });
    });

    it('searches a piece of the id in any case, and pages a search', async () => {
      expect((await users('search=U1')).data.map((u) => u.userId)).toEqual(['u10', 'u11', 'u12']);
      const page = await users('search=u&limit=2');
      expect(page.data.map((u) => u.userId)).toEqual(['u01', 'u02']);
      expect((await users(`search=u&limit=2&cursor=${page.nextCursor}`)).data.map((u) => u.userId)).toEqual(['u03', 'u04']);
      expect((await users('search=nobody-has-this')).data).toEqual([]);
    });

    it("never lists another workspace's users", async () => {
      expect((await users('search=other')).data).toEqual([]);
      expect(((await get('/v1/users', other.secretKey)).json() as { data: User[] }).data.map((u) => u.userId)).toEqual(['u01-other']);
    });

    it('refuses bad input naming the field', async () => {
      for (const [query, field] of [
        ['limit=0', 'limit'],
        ['limit=201', 'limit'],
        ['search=', 'search'],
        ['search=a%00b', 'search'],
        ['cursor=has%20space', 'cursor'],
        ['other=1', 'other'],
      ]) {
        const res = await get(`/v1/users?${query}`);
        expect(res.statusCode, query).toBe(400);
        expect(res.json().error.field, query).toBe(field);
      }
    });

    it("offers the workspace's own agents, models, variants and categories as filter values", async () => {
      const res = await get('/v1/response-facets');
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        agents: ['sql', 'support'],
        models: ['m-big', 'm-small'],
        variants: [
          { experimentId: 'exp-1', variant: 'concise' },
          { experimentId: 'exp-1', variant: 'control' },
        ],
        categories: ['hallucination', 'wrong_context'],
        truncated: [],
      });
      // Each value filters the list to something.
      expect(((await get('/v1/responses?category=wrong_context')).json() as { data: Array<{ id: string }> }).data.map((r) => r.id)).toEqual(['r2']);
      const theirs = (await get('/v1/response-facets', other.secretKey)).json();
      expect(theirs).toMatchObject({ agents: ['their-agent'], models: ['their-model'], variants: [], categories: [] });
    });
  });
}
