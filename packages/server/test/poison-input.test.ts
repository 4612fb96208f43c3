/**
 * One client's unstorable input must never fail anyone else's write (issue 7, item 1): strings
 * and keys the database cannot store are refused at validation on every route, and below
 * validation the group commit isolates whatever the database refuses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FeedbackEvent } from '@feedloop/core';
import { FeedloopError } from '../src/errors.js';
import { IngestService } from '../src/ingest/ingest-service.js';
import { MemoryRateLimiter } from '../src/rate-limit/rate-limiter.js';
import type { EventKey } from '../src/pipeline/pipeline-jobs.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

/** The poisons: where each puts an unstorable string or key in a thumbs-down event. */
const POISONS: ReadonlyArray<{ name: string; field: string; apply: (e: { id: string } & Record<string, unknown>) => { id: string } & Record<string, unknown> }> = [
  { name: 'NUL in a comment', field: 'payload.comment', apply: (e) => ({ ...e, payload: { comment: 'bad \u0000 comment' } }) },
  { name: 'lone surrogate in a comment', field: 'payload.comment', apply: (e) => ({ ...e, payload: { comment: 'bad \ud800 comment' } }) },
  { name: 'NUL in a metadata key', field: 'metadata.k\\u0000', apply: (e) => ({ ...e, metadata: { 'k\u0000': 1 } }) },
  { name: 'lone surrogate in a metadata key', field: 'metadata.\\udc00', apply: (e) => ({ ...e, metadata: { '\udc00': 1 } }) },
  { name: 'NUL deep in metadata', field: 'metadata.a.b[1]', apply: (e) => ({ ...e, metadata: { a: { b: ['ok', 'x\u0000'] } } }) },
];

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`poison input on ${backend.name}`, () => {
    let t: TestApp;
    const post = (url: string, payload: unknown) => t.app.inject({ method: 'POST', url, headers: t.auth, payload: payload as object });
    const countEvents = async (responseId: string): Promise<number> =>
      Number(
        (await t.db.query<{ n: string }>('SELECT count(*) AS n FROM feedback_events WHERE workspace_id = $1 AND response_id = $2', [t.workspaceId, responseId]))[0]
          ?.n,
      );
    const register = async (id: string) => expect((await post('/v1/responses', { id, query: `q ${id}`, answer: 'a' })).statusCode).toBe(201);

    beforeAll(async () => {
      t = await startTestApp(await backend.open());
    });
    afterAll(async () => {
      await t.close();
    });

    it('200 concurrent good comments and 10 poisoned ones: the 200 stored once each, the 10 refused with the field', async () => {
      await register('r-poison');
      const good = Array.from({ length: 200 }, (_, i) => ({ id: `good-${i}`, responseId: 'r-poison', type: 'thumbs_down', userId: `u${i}`, payload: { comment: `fine ${i}` } }));
      const bad = Array.from({ length: 10 }, (_, i) => {
        const poison = POISONS[i % POISONS.length]!;
        return { poison, event: poison.apply({ id: `bad-${i}`, responseId: 'r-poison', type: 'thumbs_down', userId: `b${i}` }) };
      });
      // Interleaved, all in flight at once, so good and bad ones share group-commit flushes.
      const sends = [...good.map((e) => ({ e, bad: undefined })), ...bad.map((b) => ({ e: b.event, bad: b.poison }))].sort((a, b) =>
        a.e.id.localeCompare(b.e.id),
      );
      const answers = await Promise.all(sends.map(async (s) => ({ ...s, res: await post('/v1/feedback', s.e) })));
      for (const a of answers) {
        if (a.bad) {
          expect(a.res.statusCode, a.bad.name).toBe(400);
          expect(a.res.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_UNSTORABLE', field: a.bad.field });
        } else {
          expect(a.res.statusCode).toBe(202);
          expect(a.res.json().status).toBe('accepted');
        }
      }
      expect(await countEvents('r-poison')).toBe(200);
      const pending = await t.db.query<{ n: string }>(
        `SELECT count(*) AS n FROM pipeline_pending WHERE workspace_id = $1 AND event_id LIKE 'good-%'`,
        [t.workspaceId],
      );
      expect(Number(pending[0]?.n)).toBe(200);
    });

    for (const poison of POISONS.slice(0, 3)) {
      it(`a batch of 999 good events and one with a ${poison.name}: 207, that one refused alone`, async () => {
        const rid = `r-batch-${POISONS.indexOf(poison)}`;
        await register(rid);
        const events = Array.from({ length: 1_000 }, (_, i) => ({ id: `${rid}-${i}`, responseId: rid, type: 'thumbs_up', userId: `u${i}` }));
        events[500] = poison.apply(events[500]!) as (typeof events)[number];
        const res = await post('/v1/feedback/batch', { events });
        expect(res.statusCode).toBe(207);
        const results = res.json().results as Array<{ id: string; status: string; error?: { code: string; field?: string } }>;
        expect(results.filter((r) => r.status === 'accepted')).toHaveLength(999);
        expect(results[500]).toMatchObject({ id: `${rid}-500`, status: 'rejected', error: { code: 'FEEDLOOP_ERR_VALIDATION_UNSTORABLE', field: poison.field } });
        expect(await countEvents(rid)).toBe(999);
      });
    }

    it('responses: an unstorable query, answer, source or metadata key is refused with its field; a batch keeps the rest', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ id: 'rq-1', query: 'q \u0000', answer: 'a' }, 'query'],
        [{ id: 'rq-2', query: 'q', answer: 'a \ud800' }, 'answer'],
        [{ id: 'rq-3', query: 'q', answer: 'a', sources: ['ok', 's\u0000'] }, 'sources[1]'],
        [{ id: 'rq-4', query: 'q', answer: 'a', metadata: { 'k\u0000': 'v' } }, 'metadata.k\\u0000'],
      ];
      for (const [body, field] of cases) {
        const res = await post('/v1/responses', body);
        expect(res.statusCode, field).toBe(400);
        expect(res.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_UNSTORABLE', field });
      }
      const responses = Array.from({ length: 100 }, (_, i) => ({ id: `rb-${i}`, query: `q${i}`, answer: 'a' }));
      responses[7] = { id: 'rb-7', query: 'q \u0000', answer: 'a' };
      const batch = await post('/v1/responses/batch', { responses });
      expect(batch.statusCode).toBe(207);
      const results = batch.json().results as Array<{ status: string; error?: { field?: string } }>;
      expect(results.filter((r) => r.status === 'created')).toHaveLength(99);
      expect(results[7]).toMatchObject({ status: 'rejected', error: { code: 'FEEDLOOP_ERR_VALIDATION_UNSTORABLE', field: 'query' } });
      const stored = await t.db.query(`SELECT id FROM responses WHERE workspace_id = $1 AND (id LIKE 'rq-%' OR id LIKE 'rb-%')`, [t.workspaceId]);
      expect(stored).toHaveLength(99);
    });

    it('the seeds\' routes refuse unstorable text naming the seeds\' fields', async () => {
      await register('r-seed');
      const rlhf = await post('/api/v1/feedback/correction', { response_id: 'r-seed', data: { corrected_sql: 'SELECT \u0000' } });
      expect(rlhf.statusCode).toBe(400);
      expect(rlhf.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_UNSTORABLE', field: 'data.corrected_sql' });
      const tenant = await post('/api/v1/feedback/submit', { response_id: 'r-seed', feedback_type: 'thumbs_up', tenant_id: 't\ud800' });
      expect(tenant.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_UNSTORABLE', field: 'tenant_id' });
      const rag = await post('/api/rag/feedback', { queryId: 'r-seed', rating: 'negative', comment: 'c\u0000' });
      expect(rag.statusCode).toBe(400);
      expect(rag.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_UNSTORABLE', field: 'comment' });
      const ragMeta = await post('/api/rag/feedback', { queryId: 'r-seed', rating: 'positive', metadata: { '\u0000': 1 } });
      expect(ragMeta.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_UNSTORABLE', field: 'metadata.\\u0000' });
      expect(await countEvents('r-seed')).toBe(0);
    });

    describe('below validation, the group commit isolates what the database refuses', () => {
      const heard: EventKey[] = [];
      let ingest: IngestService;
      const auth = async () => {
        const a = await t.services.keys.resolve(t.secretKey);
        if (!a) throw new Error('no auth');
        return a;
      };

      beforeAll(() => {
        ingest = new IngestService(t.db, new MemoryRateLimiter(), t.services.metrics, 2, (keys) => heard.push(...keys));
      });

      it('feedback: only the events Postgres refuses are rejected; the others are stored and heard once', async () => {
        await register('r-below');
        // Bypassing validation: what a future validation gap would let through.
        const events = Array.from({ length: 60 }, (_, i) => ({ id: `below-${i}`, responseId: 'r-below', type: 'thumbs_up' as const, userId: `u${i}`, payload: {} }) as FeedbackEvent);
        (events[3] as { payload: unknown }).payload = { comment: 'x\u0000' };
        (events[41] as { metadata?: unknown }).metadata = { '\ud800': 1 };
        const outcomes = await Promise.all([ingest.submitFeedback(await auth(), events.slice(0, 30)), ingest.submitFeedback(await auth(), events.slice(30))]).then(
          (parts) => parts.flat(),
        );
        const rejected = outcomes.filter((o) => o.status === 'rejected');
        expect(rejected.map((o) => o.id)).toEqual(['below-3', 'below-41']);
        expect(rejected[0]).toMatchObject({ error: { code: 'FEEDLOOP_ERR_VALIDATION_UNSTORABLE' } });
        expect(outcomes.filter((o) => o.status === 'accepted')).toHaveLength(58);
        expect(await countEvents('r-below')).toBe(58);
        const pending = await t.db.query(`SELECT event_id FROM pipeline_pending WHERE workspace_id = $1 AND event_id LIKE 'below-%'`, [t.workspaceId]);
        expect(pending).toHaveLength(58);
        const heardIds = heard.map(([, id]) => id).filter((id) => id.startsWith('below-'));
        expect(heardIds.sort()).toEqual(events.map((e) => e.id).filter((id) => id !== 'below-3' && id !== 'below-41').sort());
      });

      it('responses: only the registration Postgres refuses is rejected', async () => {
        const responses = Array.from({ length: 20 }, (_, i) => ({ id: `rbelow-${i}`, query: `q${i}`, answer: 'a' }));
        responses[11] = { id: 'rbelow-11', query: 'q\u0000', answer: 'a' };
        const outcomes = await ingest.registerResponses(await auth(), responses);
        expect(outcomes.filter((o) => o.status === 'created')).toHaveLength(19);
        expect(outcomes[11]).toMatchObject({ status: 'rejected', error: { code: 'FEEDLOOP_ERR_VALIDATION_UNSTORABLE' } });
      });

      it('answers 503 only when the database is really unavailable', async () => {
        const dead = await startTestApp(await backend.open());
        const deadAuth = await dead.services.keys.resolve(dead.secretKey);
        await dead.db.close();
        const deadIngest = new IngestService(dead.db, new MemoryRateLimiter(), dead.services.metrics, 2);
        const failed = await deadIngest
          .submitFeedback(deadAuth!, [{ responseId: 'r', type: 'skip', payload: {} } as never])
          .then(() => undefined, (err: unknown) => err);
        expect(failed).toBeInstanceOf(FeedloopError);
        expect((failed as FeedloopError).code).toBe('FEEDLOOP_ERR_UNAVAILABLE');
        await dead.close();
      });
    });
  });
}
