/**
 * GET /v1/responses (the dashboard's filterable list) and POST /v1/alert-rules/preview over both
 * stores: responses and feedback sent through the API and processed by the worker; each filter
 * narrows the list to what it names, pages follow the cursor, bad input is a 400 naming the field,
 * another workspace's responses never show; the preview fires on a satisfaction drop and saves nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

interface Item { id: string; agent: string | null; model: string | null; variant: string | null; score: number | null; positive: number; negative: number; categories: string[] }

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`GET /v1/responses on ${backend.name}`, () => {
    let t: TestApp;
    let other: { workspaceId: string; secretKey: string };
    let base = 0;
    const get = (url: string, key?: string) => t.app.inject({ method: 'GET', url, headers: key ? { authorization: `Bearer ${key}` } : t.auth });
    const post = (url: string, payload: unknown, key?: string) => t.app.inject({ method: 'POST', url, headers: key ? { authorization: `Bearer ${key}` } : t.auth, payload: payload as object });
    const list = async (query: string): Promise<Item[]> => {
      const res = await get(`/v1/responses?${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data as Item[];
    };

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), {}, { worker: true });
      other = await t.otherWorkspace();
      base = Date.now() - 3 * 3_600_000;
      const responses = Array.from({ length: 30 }, (_, i) => ({
        id: `r${i}`,
        query: `question ${i}`,
        answer: `answer ${i}`,
        agent: i % 3 === 0 ? 'sql' : 'chat',
        model: i % 2 === 0 ? 'm-a' : 'm-b',
        experimentId: 'exp',
        variant: i % 2 === 0 ? 'control' : 'concise',
        createdAt: new Date(base + i * 60_000).toISOString(),
      }));
      expect((await post('/v1/responses/batch', { responses })).statusCode).toBe(207);
      const events: object[] = [];
      for (let i = 0; i < 30; i++) {
        if (i < 10) events.push({ id: `up${i}`, responseId: `r${i}`, type: 'thumbs_up', userId: `u${i}` });
        else if (i < 20) events.push({ id: `down${i}`, responseId: `r${i}`, type: 'thumbs_down', userId: `u${i}`, payload: i === 15 ? { comment: 'The Refund policy is 100% wrong' } : {} });
        if (i >= 10 && i < 13) events.push({ id: `cat${i}`, responseId: `r${i}`, type: 'error_categories', userId: `u${i}`, payload: { categories: ['hallucination'] } });
      }
      const sent = await post('/v1/feedback/batch', { events });
      expect(sent.json().results.filter((r: { status: string }) => r.status !== 'accepted')).toEqual([]);
      await post('/v1/responses', { id: 'r0', query: 'secret', answer: 'secret', agent: 'sql' }, other.secretKey);
      await t.services.pipeline.idle(20_000);
    }, 60_000);
    afterAll(async () => {
      await t?.close();
    });

    it('lists newest first, and pages by cursor without gaps or repeats', async () => {
      const first = await get('/v1/responses?limit=12');
      const body = first.json() as { data: Item[]; nextCursor: string };
      expect(body.data.map((r) => r.id).slice(0, 3)).toEqual(['r29', 'r28', 'r27']);
      const seen = [...body.data.map((r) => r.id)];
      let cursor: string | null = body.nextCursor;
      while (cursor) {
        const page = (await get(`/v1/responses?limit=12&cursor=${cursor}`)).json() as { data: Item[]; nextCursor: string | null };
        seen.push(...page.data.map((r) => r.id));
        cursor = page.nextCursor;
      }
      expect(seen).toHaveLength(30);
      expect(new Set(seen).size).toBe(30);
    });

    it('filters by rating, category, comment, agent, model, variant, score and time', async () => {
      const ids = (items: Item[]) => items.map((r) => r.id).sort();
      const negative = await list('rating=negative');
      expect(ids(negative)).toEqual(Array.from({ length: 10 }, (_, i) => `r${i + 10}`).sort());
      expect(ids(await list('rating=positive'))).toHaveLength(10);
      expect(ids(await list('rating=unrated'))).toEqual(Array.from({ length: 10 }, (_, i) => `r${i + 20}`).sort());
      const cat = await list('category=hallucination');
      expect(ids(cat)).toEqual(['r10', 'r11', 'r12']);
      expect(cat[0]?.categories).toEqual(['hallucination']);
      expect(ids(await list('comment=refund%20POLICY'))).toEqual(['r15']);
      expect(ids(await list('comment=100%25'))).toEqual(['r15']);
      expect(ids(await list('comment=nothing-like-this'))).toEqual([]);
      expect((await list('agent=sql')).every((r) => r.agent === 'sql')).toBe(true);
      expect(await list('agent=sql')).toHaveLength(10);
      expect((await list('model=m-b&variant=concise&experimentId=exp&limit=100')).map((r) => r.model)).toEqual(Array(15).fill('m-b'));
      const low = await list('maxScore=-0.1');
      expect(low.length).toBeGreaterThan(0);
      expect(low.every((r) => r.score !== null && r.score <= -0.1)).toBe(true);
      expect(low.every((r) => r.negative > 0)).toBe(true);
      const since = new Date(base + 25 * 60_000).toISOString();
      expect(ids(await list(`since=${encodeURIComponent(since)}`))).toEqual(['r25', 'r26', 'r27', 'r28', 'r29']);
      expect(ids(await list('agent=sql&rating=negative'))).toEqual(['r12', 'r15', 'r18']);
    });

    it('never shows another workspace, and answers bad input with a 400 naming the field', async () => {
      const theirs = (await get('/v1/responses', other.secretKey)).json().data as Item[];
      expect(theirs.map((r) => r.id)).toEqual(['r0']);
      for (const [query, field] of [['minScore=2', 'minScore'], ['rating=meh', 'rating'], ['cursor=nope', 'cursor'], ['minScore=0.5&maxScore=0', 'minScore'], ['since=yesterday', 'since'], ['limit=0', 'limit'], ['comment=ok', 'comment']]) {
        const res = await get(`/v1/responses?${query}`);
        expect(res.statusCode, query).toBe(400);
        expect(res.json().error.field, query).toBe(field);
      }
    });

    it('previews what alert rules would have fired, and saves nothing', async () => {
      const rules = [{ id: 'sat', kind: 'satisfaction', severity: 'critical', threshold: 60, windowHours: 24, minSample: 10, forSeconds: 0, hysteresis: 5, enabled: true }];
      const res = await post('/v1/alert-rules/preview', { rules, days: 2 });
      expect(res.statusCode, res.body).toBe(200);
      const alerts = res.json().alerts as Array<{ ruleId: string; value: number; resolvedAt: string | null }>;
      // 10 up, 10 down: 50 % satisfaction, under 60 %.
      expect(alerts).toHaveLength(1);
      expect(alerts[0]).toMatchObject({ ruleId: 'sat', value: 50, resolvedAt: null });
      const quiet = await post('/v1/alert-rules/preview', { rules: [{ ...rules[0], threshold: 40 }] });
      expect(quiet.json().alerts).toEqual([]);
      expect((await get('/v1/alert-rules')).json().default).toBe(true);
      expect((await post('/v1/alert-rules/preview', { rules: [{ ...rules[0], kind: 'nope' }] })).statusCode).toBe(400);
    });
  });
}
