/**
 * GET /v1/users/:userId/context over both stores: current on the very next request (read from the
 * committed events, no worker running), explained by event ids, never drawing on another user or
 * workspace; and the ADR-004 simulation: synthetic users with hidden style preferences talk to a
 * responder that reads the context block, and their negative feedback falls session over session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

interface ContextItem {
  kind: string;
  key: string;
  value: string;
  text: string;
  support: number;
  eventIds?: string[];
}
interface ContextBody {
  userId: string;
  text: string;
  items: ContextItem[];
}

/** The hidden preferences: a style change the user makes to every answer that lacks it. */
const PREFERENCES = ['emoji:remove', 'lists:to_prose', 'hedging:remove', 'length:shorter', 'code:add_blocks', 'formality:formal'] as const;
type Preference = (typeof PREFERENCES)[number];

/** The responder: a default style, changed by each style item of the context it read. */
function respond(query: string, learned: ReadonlySet<string>): string {
  const has = (p: Preference) => learned.has(p);
  const parts: string[] = [];
  parts.push(has('formality:formal') ? 'Here is the answer to your question.' : "Hey! Here's the answer to your question.");
  parts.push(has('hedging:remove') ? `To ${query}, set x to 1.` : `I think to ${query}, you might set x to 1.`);
  parts.push(has('lists:to_prose') ? 'Open the settings, change the value and save it.' : '- Open the settings\n- Change the value\n- Save it');
  parts.push(has('code:add_blocks') ? '```\nx = 1\n```' : 'Run x = 1 in the console.');
  if (!has('length:shorter')) parts.push('There is a lot more one could say about the history and background of this setting and why it exists at all in the product today.');
  let text = parts.join('\n');
  if (!has('emoji:remove')) text += ' 🎉';
  return text;
}

/** A tiny seeded generator (mulberry32), so the simulation is the same on every run. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const SESSIONS = 5;
const QUERIES_PER_SESSION = 4;

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`user memory on ${backend.name}`, () => {
    let t: TestApp;
    const get = (url: string, key?: string) => t.app.inject({ method: 'GET', url, headers: key ? { authorization: `Bearer ${key}` } : t.auth });
    const post = (url: string, payload: object, key?: string) =>
      t.app.inject({ method: 'POST', url, headers: key ? { authorization: `Bearer ${key}` } : t.auth, payload });
    const context = async (userId: string, explain = false): Promise<ContextBody> => {
      const res = await get(`/v1/users/${userId}/context${explain ? '?explain=true' : ''}`);
      expect(res.statusCode).toBe(200);
      return res.json() as ContextBody;
    };

    beforeAll(async () => {
      t = await startTestApp(await backend.open());
    });
    afterAll(async () => {
      await t?.close();
    });

    it('is current on the very next request and names the events behind each item', async () => {
      expect((await context('u-fresh')).items).toEqual([]);
      const ids: string[] = [];
      for (const i of [1, 2]) {
        expect((await post('/v1/responses', { id: `mem-r${i}`, query: 'q', answer: 'a', userId: 'u-fresh', queryType: 'sql' })).statusCode).toBe(201);
        expect((await post('/v1/feedback', { id: `mem-e${i}`, responseId: `mem-r${i}`, userId: 'u-fresh', type: 'error_categories', payload: { categories: ['hallucination'] } })).statusCode).toBe(202);
        ids.push(`mem-e${i}`);
        const c = await context('u-fresh', true);
        const item = c.items.find((x) => x.key === 'category' && x.value === 'hallucination');
        if (i === 1) expect(item).toBeUndefined(); // one event is not a rule
        else {
          expect(item?.eventIds?.sort()).toEqual(ids);
          expect(c.text).toContain('hallucination');
        }
      }
      const plain = await context('u-fresh');
      expect(plain.items.every((x) => x.eventIds === undefined)).toBe(true);
      expect(plain.items.find((x) => x.kind === 'calibration')).toMatchObject({ value: 'sql', support: 2 });
    });

    it('keeps a complaint as one phrase: "cites an outdated policy" is one item, not three words, and listed once', async () => {
      const comments = ['This cites an outdated policy.', 'It cited an outdated policy again', 'outdated policy, please check the date'];
      for (const [i, comment] of comments.entries()) {
        expect((await post('/v1/responses', { id: `ph-r${i}`, query: 'q', answer: 'a', userId: 'u-phrase' })).statusCode).toBe(201);
        expect((await post('/v1/feedback', { id: `ph-e${i}`, responseId: `ph-r${i}`, userId: 'u-phrase', type: 'thumbs_down', payload: { comment } })).statusCode).toBe(202);
      }
      const c = await context('u-phrase', true);
      const complaints = c.items.filter((x) => x.key === 'complaint');
      expect(complaints.map((x) => x.value)).toEqual(['cite outdated policy']);
      expect(complaints[0]?.eventIds?.sort()).toEqual(['ph-e0', 'ph-e1', 'ph-e2']);
      for (const word of ['cites', 'outdated', 'policy']) expect(c.items.some((x) => x.value === word)).toBe(false);
      // Each line of the block once.
      const lines = c.text.split('\n');
      expect(new Set(lines).size).toBe(lines.length);
    });

    it("learns nothing from a reviewer's or a judge's verdict naming the user: memory is what the user said", async () => {
      for (const i of [1, 2, 3]) {
        expect((await post('/v1/responses', { id: `memj-r${i}`, query: 'q', answer: 'a', userId: 'u-judged', queryType: 'sql' })).statusCode).toBe(201);
        const verdict = { responseId: `memj-r${i}`, userId: 'u-judged', type: 'error_categories', payload: { categories: ['hallucination'] } };
        expect((await post('/v1/feedback', { ...verdict, id: `memj-j${i}`, source: 'judge', metadata: { evaluatorId: 'e1' } })).statusCode).toBe(202);
        expect((await post('/v1/feedback', { ...verdict, id: `memj-v${i}`, source: 'review' })).statusCode).toBe(202);
      }
      expect((await context('u-judged', true)).items).toEqual([]);
      // The same verdicts from the user teach it.
      for (const i of [1, 2]) expect((await post('/v1/feedback', { id: `memj-u${i}`, responseId: `memj-r${i}`, userId: 'u-judged', type: 'error_categories', payload: { categories: ['hallucination'] } })).statusCode).toBe(202);
      const item = (await context('u-judged', true)).items.find((x) => x.key === 'category' && x.value === 'hallucination');
      expect(item?.eventIds?.sort()).toEqual(['memj-u1', 'memj-u2']);
    });

    it("never draws on another user's or workspace's events", async () => {
      expect((await context('u-other')).items).toEqual([]);
      const other = await t.otherWorkspace();
      const res = await get('/v1/users/u-fresh/context', other.secretKey);
      expect(res.statusCode).toBe(200);
      expect((res.json() as ContextBody).items).toEqual([]);
    });

    it('rejects a bad user id and a bad query with the field named', async () => {
      const bad = await get('/v1/users/bad%20id/context');
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.code).toBe('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD');
      const q = await get('/v1/users/u1/context?halfLifeDays=0');
      expect(q.statusCode).toBe(400);
      expect(q.json().error.field).toContain('halfLifeDays');
    });

    it('simulation: negative feedback on hidden preferences falls session over session', async () => {
      const random = rng(12);
      const users = PREFERENCES.flatMap((p, i) => [0, 1].map((k) => ({ id: `sim-${i}-${k}`, preference: p as Preference })));
      const curve: number[] = [];
      const learnedAt = new Map<string, number>();
      const strays = new Map<string, number>();
      let seq = 0;
      for (let session = 1; session <= SESSIONS; session++) {
        let negative = 0;
        let answers = 0;
        for (const user of users) {
          for (let q = 0; q < QUERIES_PER_SESSION; q++) {
            const ctx = await context(user.id);
            const learned = new Set(ctx.items.filter((i) => i.kind === 'style').map((i) => `${i.key}:${i.value}`));
            if (learned.has(user.preference) && !learnedAt.has(user.id)) learnedAt.set(user.id, session);
            const query = `configure feature ${q}`;
            const answer = respond(query, learned);
            seq += 1;
            const responseId = `sim-r${seq}`;
            expect((await post('/v1/responses', { id: responseId, query, answer, userId: user.id, sessionId: `${user.id}-s${session}`, queryType: 'howto' })).statusCode).toBe(201);
            answers += 1;
            const wanted = respond(query, new Set([...learned, user.preference]));
            if (wanted !== answer) {
              negative += 1;
              await post('/v1/feedback', { responseId, userId: user.id, type: 'thumbs_down' });
              await post('/v1/feedback', { responseId, userId: user.id, type: 'edit', payload: { edited: wanted } });
            } else {
              await post('/v1/feedback', { responseId, userId: user.id, type: 'thumbs_up' });
            }
            // An odd one-off: now and then a user adds an emoji once. Minimum support keeps it from becoming a rule.
            if (random() < 0.05) {
              strays.set(user.id, (strays.get(user.id) ?? 0) + 1);
              await post('/v1/feedback', { responseId, userId: user.id, type: 'edit', payload: { original: 'Fine.', edited: 'Fine 😀' } });
            }
          }
        }
        curve.push(Math.round((negative / answers) * 100));
      }
      console.log(`[${backend.name}] negative-feedback rate per session (%): ${curve.join(' -> ')}; learned in session: ${JSON.stringify(Object.fromEntries(learnedAt))}`);
      // Session 1: the default style misses every preference until two edits teach it.
      expect(curve[0]).toBeGreaterThanOrEqual(40);
      for (let i = 1; i < curve.length; i++) expect(curve[i]).toBeLessThanOrEqual(curve[0]! / 4);
      expect(curve[curve.length - 1]).toBe(0);
      for (const user of users) expect(learnedAt.get(user.id), user.id).toBeLessThanOrEqual(3);
      // No user learned an emoji preference from a single one-off.
      expect([...strays.values()].some((n) => n === 1)).toBe(true);
      for (const user of users.filter((u) => (strays.get(u.id) ?? 0) <= 1)) {
        const c = await context(user.id);
        expect(c.items.some((i) => i.key === 'emoji' && i.value === 'add')).toBe(false);
      }
    }, 120_000);
  });
}
