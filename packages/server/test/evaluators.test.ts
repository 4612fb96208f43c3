/**
 * Issue 28: evaluators (automated judges) through the HTTP API and the pipeline, on both stores,
 * against a deterministic evaluator server (evaluator-server.ts): CRUD and validation (the
 * webhook address rules), versions, dispatch of new responses and pairwise items as signed
 * calls whose answers become judge events, retries (503 then 200), dead letters and their retry,
 * the per-minute budget, and backfills (progress, resumable, idempotent per version).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchEvaluatorCalls } from '../src/emit/evaluator-dispatch.js';
import { advanceBackfill } from '../src/emit/evaluator-planning.js';
import { judgeSubmitter } from '../src/ingest/judge-submission.js';
import { queueEvaluatorCalls } from '../src/store/evaluator-calls.js';
import { refreshJudgeWeights } from '../src/pipeline/judge-weights.js';
import { rescoreDirtyResponses } from '../src/pipeline/rescore.js';
import { eventually } from './alert-helpers.js';
import { startJudge, type TestJudge } from './evaluator-server.js';
import { BACKENDS, REDIS_URL, redisUp, startTestApp, type TestApp } from './harness.js';

/** Loopback judges need the operator's allow setting; an hour's sweep keeps the scheduled tick out of the way. */
const LOCAL = { FEEDLOOP_WEBHOOK_ALLOW_PRIVATE: 'true', FEEDLOOP_SWEEP_INTERVAL_SECONDS: '3600' };

for (const backend of BACKENDS) {
  // Production is Postgres with Redis: the evaluator jobs run on BullMQ there, in process embedded.
  const production = backend.name === 'postgres';
  describe.skipIf(!backend.available || (production && !redisUp))(`evaluators on ${backend.name}${production ? ' + Redis (BullMQ)' : ''}`, () => {
    let t: TestApp;
    type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
    const call = (method: Method, url: string, payload?: unknown) =>
      t.app.inject({ method, url, headers: t.auth, ...(payload === undefined ? {} : { payload: payload as object }) });
    const register = async (responses: Array<Record<string, unknown>>) => {
      const res = await call('POST', '/v1/responses/batch', { responses });
      expect(res.statusCode).toBe(207);
      expect(res.json().results.filter((r: { status: string }) => r.status === 'rejected')).toEqual([]);
    };
    const create = async (judge: TestJudge, body: Record<string, unknown> = {}) => {
      const res = await call('POST', '/v1/evaluators', { name: 'groundedness', url: judge.url, secret: judge.secret, kind: 'pointwise', output: 'thumbs', ...body });
      expect(res.statusCode, res.body).toBe(201);
      return res.json() as { id: string; version: number; secret: string };
    };
    const calls = async (id: string, query = '') => (await call('GET', `/v1/evaluators/${id}/calls${query}`)).json().calls as Array<Record<string, unknown>>;
    const judgeEvents = async (id: string) =>
      (await call('GET', `/v1/feedback?source=judge&evaluatorId=${id}&limit=100`)).json().data as Array<{ id: string; type: string; responseId: string; userId: string; payload: Record<string, unknown>; metadata: Record<string, unknown> }>;
    const dispatch = (options: { ids?: number[]; backoffMs?: number; maxAttempts?: number } = {}) =>
      dispatchEvaluatorCalls(t.db, { submit: judgeSubmitter(t.db, () => t.services.ingest), allowPrivate: true, backoffMs: 0, ...options });
    const queueOne = async (evaluatorId: string, responseId: string) =>
      queueEvaluatorCalls(t.db, [{ workspaceId: t.workspaceId, evaluatorId, version: 1, itemKey: responseId, responseId, responseBId: null, origin: 'new', backfillId: null }]);

    /** Lets the queued jobs (a backfill's tick among them) finish, then runs one more tick. */
    const settle = async () => {
      await t.services.pipeline.idle(10_000);
      await t.services.pipeline.evaluatorTick();
      await t.services.pipeline.idle(10_000);
    };

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), production ? { ...LOCAL, REDIS_URL } : LOCAL, { worker: true });
      expect(t.services.config.redisUrl !== undefined).toBe(production);
    });
    afterAll(async () => {
      await t.close();
    });

    it('refuses a loopback URL unless the operator allows private addresses, as for webhooks', async () => {
      const strict = await startTestApp(await backend.open());
      try {
        const res = await strict.app.inject({ method: 'POST', url: '/v1/evaluators', headers: strict.auth, payload: { name: 'j', url: 'http://127.0.0.1:9/judge', kind: 'pointwise' } });
        expect(res.statusCode).toBe(400);
        expect(res.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_EVALUATOR_URL_FORBIDDEN', field: 'url' });
        expect((await strict.app.inject({ method: 'GET', url: '/v1/evaluators', headers: strict.auth })).json().evaluators).toEqual([]);
      } finally {
        await strict.close();
      }
    });

    it('creates, lists, reads, patches (versions) and deletes evaluators, validating each field', async () => {
      const judge = await startJudge();
      for (const [body, field] of [
        [{ sample: 2 }, 'sample'],
        [{ kind: 'listwise' }, 'kind'],
        [{ timeoutMs: 5 }, 'timeoutMs'],
        [{ url: 'ftp://judge.example/' }, 'url'],
        [{ filter: { nonsense: 1 } }, 'filter.nonsense'],
        [{ scoreConfigId: 'sc_nope', output: 'thumbs' }, 'scoreConfigId'],
        [{ scoreConfigId: 'sc_nope', output: 'score' }, 'scoreConfigId'],
      ] as const) {
        const res = await call('POST', '/v1/evaluators', { name: 'bad', url: judge.url, kind: 'pointwise', ...body });
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(res.json().error.field, JSON.stringify(body)).toBe(field);
      }
      const made = await call('POST', '/v1/evaluators', { name: 'crud', url: judge.url, kind: 'pointwise', filter: { agent: 'support' } });
      expect(made.statusCode).toBe(201);
      const created = made.json();
      expect(created).toMatchObject({ name: 'crud', output: 'thumbs', sample: 1, timeoutMs: 10_000, ratePerMinute: 60, enabled: true, version: 1 });
      expect(created.secret).toMatch(/^whsec_/);
      const listed = (await call('GET', '/v1/evaluators')).json().evaluators as Array<Record<string, unknown>>;
      expect(listed.find((e) => e['id'] === created.id)).toBeDefined();
      expect(listed.every((e) => e['secret'] === undefined)).toBe(true);

      const renamed = await call('PATCH', `/v1/evaluators/${created.id}`, { name: 'crud 2', sample: 0.5, ratePerMinute: 10 });
      expect(renamed.json()).toMatchObject({ name: 'crud 2', sample: 0.5, version: 1 });
      const sameFilter = await call('PATCH', `/v1/evaluators/${created.id}`, { filter: { agent: 'support' } });
      expect(sameFilter.json().version).toBe(1);
      const refiltered = await call('PATCH', `/v1/evaluators/${created.id}`, { filter: { agent: 'sales' } });
      expect(refiltered.json().version).toBe(2);
      const moved = await call('PATCH', `/v1/evaluators/${created.id}`, { url: `${judge.url}/v2`, output: 'rating' });
      expect(moved.json()).toMatchObject({ version: 3, output: 'rating' });
      const badPatch = await call('PATCH', `/v1/evaluators/${created.id}`, { ratePerMinute: 0 });
      expect(badPatch.statusCode).toBe(400);
      expect((await call('GET', `/v1/evaluators/${created.id}`)).json()).toMatchObject({ version: 3, ratePerMinute: 10, calls: { pending: 0, done: 0, dead: 0 } });

      const other = await t.otherWorkspace();
      const foreign = await t.app.inject({ method: 'GET', url: `/v1/evaluators/${created.id}`, headers: { authorization: `Bearer ${other.secretKey}` } });
      expect(foreign.statusCode).toBe(404);
      expect((await call('DELETE', `/v1/evaluators/${created.id}`)).statusCode).toBe(204);
      expect((await call('GET', `/v1/evaluators/${created.id}`)).json().error.code).toBe('FEEDLOOP_ERR_EVALUATOR_NOT_FOUND');
      expect((await call('DELETE', `/v1/evaluators/${created.id}`)).statusCode).toBe(404);
    });

    it('judges each sampled new response with a signed call; the answer is a judge event through the pipeline', async () => {
      const judge = await startJudge();
      const ev = await create(judge, { name: 'new-responses', filter: { agent: 'support' } });
      await register([
        { id: 'ev-new-1', query: 'q1', answer: 'a good answer', agent: 'support', model: 'm1', contextDocumentIds: ['doc-1'] },
        { id: 'ev-new-2', query: 'q2', answer: 'a poor answer', agent: 'support' },
        { id: 'ev-new-3', query: 'q3', answer: 'a good answer', agent: 'sales' },
      ]);
      await t.services.pipeline.idle(10_000);
      expect(judge.calls).toHaveLength(2);
      expect(judge.calls.every((c) => c.signed && c.event === 'evaluator.call')).toBe(true);
      const first = judge.calls.find((c) => (c.body['response'] as { id: string }).id === 'ev-new-1');
      expect(first?.body).toMatchObject({ evaluatorId: ev.id, evaluatorVersion: 1, kind: 'pointwise', response: { query: 'q1', answer: 'a good answer', model: 'm1', agent: 'support', contextDocumentIds: ['doc-1'] } });
      expect(first?.body['response']).not.toHaveProperty('feedback');

      const events = await judgeEvents(ev.id);
      expect(events.map((e) => [e.responseId, e.type]).sort()).toEqual([
        ['ev-new-1', 'thumbs_up'],
        ['ev-new-2', 'thumbs_down'],
      ]);
      expect(events[0]?.userId).toBe(`judge:${ev.id}`);
      expect(events.find((e) => e.responseId === 'ev-new-1')?.metadata).toMatchObject({ evaluatorId: ev.id, label: 'grounded', rationale: 'looked for "good"' });
      const log = await calls(ev.id);
      expect(log.map((c) => c['status'])).toEqual(['done', 'done']);
      expect(log.every((c) => typeof c['latencyMs'] === 'number' && c['lastStatusCode'] === 200)).toBe(true);
      expect(log[0]?.['links']).toMatchObject({ response: expect.stringMatching(/^\/v1\/responses\/ev-new-/), retry: null });
    });

    it('samples deterministically per (evaluator, response)', async () => {
      const judge = await startJudge();
      const ev = await create(judge, { name: 'half', sample: 0.5, filter: { agent: 'sampled' } });
      await register(Array.from({ length: 40 }, (_, i) => ({ id: `ev-s-${i}`, query: `q${i}`, answer: 'good', agent: 'sampled' })));
      await t.services.pipeline.idle(10_000);
      const judged = judge.calls.length;
      expect(judged).toBeGreaterThan(8);
      expect(judged).toBeLessThan(32);
      // The same evaluator over the same responses keeps the same ones: a backfill queues none anew.
      const back = await call('POST', `/v1/evaluators/${ev.id}/backfill`, { since: new Date(Date.now() - 3_600_000).toISOString(), limit: 1000 });
      expect(back.statusCode).toBe(202);
      await t.services.pipeline.idle(10_000);
      expect(judge.calls.length).toBe(judged);
    });

    it('retries a 503 with backoff and records the 200 that follows', async () => {
      const judge = await startJudge();
      judge.behave((n) => (n === 1 ? { status: 503 } : undefined));
      const ev = await create(judge, { name: 'flaky', filter: { agent: 'nobody' } });
      await register([{ id: 'ev-flaky-1', query: 'q', answer: 'good' }]);
      const ids = await queueOne(ev.id, 'ev-flaky-1');
      expect(await dispatch({ ids })).toEqual({ done: 0, retried: 1, dead: 0 });
      expect((await calls(ev.id))[0]).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: 503, lastError: 'http_status' });
      expect(await dispatch({ ids })).toEqual({ done: 1, retried: 0, dead: 0 });
      expect((await calls(ev.id))[0]).toMatchObject({ status: 'done', attempts: 2, lastStatusCode: 200, lastError: null });
      expect(judge.calls).toHaveLength(2);
      expect((await judgeEvents(ev.id)).map((e) => e.type)).toEqual(['thumbs_up']);
    });

    it('dead-letters after the last attempt, at once on a 400 or a non-answer, and retries a dead letter by hand', async () => {
      const judge = await startJudge();
      judge.behave(() => ({ status: 500 }));
      const ev = await create(judge, { name: 'broken', filter: { agent: 'nobody' } });
      await register([
        { id: 'ev-dead-1', query: 'q', answer: 'good' },
        { id: 'ev-dead-2', query: 'q', answer: 'good' },
        { id: 'ev-dead-3', query: 'q', answer: 'good' },
      ]);
      const [id1] = await queueOne(ev.id, 'ev-dead-1');
      await dispatch({ ids: [id1!], maxAttempts: 2 });
      expect(await dispatch({ ids: [id1!], maxAttempts: 2 })).toEqual({ done: 0, retried: 0, dead: 1 });
      judge.behave(() => ({ status: 400 }));
      const [id2] = await queueOne(ev.id, 'ev-dead-2');
      expect(await dispatch({ ids: [id2!] })).toEqual({ done: 0, retried: 0, dead: 1 });
      judge.behave(() => ({ status: 200, body: JSON.stringify({ thumbs: 'sideways' }) }));
      const [id3] = await queueOne(ev.id, 'ev-dead-3');
      expect(await dispatch({ ids: [id3!] })).toEqual({ done: 0, retried: 0, dead: 1 });

      const dead = await calls(ev.id, '?status=dead');
      expect(dead.map((c) => [c['responseId'], c['lastError'], c['deadLetter']])).toEqual([
        ['ev-dead-3', 'invalid_answer', true],
        ['ev-dead-2', 'http_status', true],
        ['ev-dead-1', 'http_status', true],
      ]);
      expect(dead[2]).toMatchObject({ attempts: 2, lastStatusCode: 500, links: { retry: `/v1/evaluators/${ev.id}/calls/${id1}/retry` } });
      expect(await judgeEvents(ev.id)).toEqual([]);

      judge.behave(() => undefined);
      const retried = await call('POST', `/v1/evaluators/${ev.id}/calls/${id1}/retry`);
      expect(retried.statusCode).toBe(202);
      await t.services.pipeline.idle(10_000);
      expect((await calls(ev.id)).find((c) => c['id'] === id1)).toMatchObject({ status: 'done', attempts: 1 });
      expect((await judgeEvents(ev.id)).map((e) => e.responseId)).toEqual(['ev-dead-1']);
      const again = await call('POST', `/v1/evaluators/${ev.id}/calls/${id1}/retry`);
      expect(again.statusCode).toBe(409);
      expect(again.json().error.code).toBe('FEEDLOOP_ERR_EVALUATOR_CALL_NOT_DEAD');
      expect((await call('POST', `/v1/evaluators/${ev.id}/calls/999999999/retry`)).json().error.code).toBe('FEEDLOOP_ERR_EVALUATOR_CALL_NOT_FOUND');
    });

    it('writes a round’s answers in one ingest batch and records its calls in one statement each: a refused event is dead-lettered alone', async () => {
      const judge = await startJudge();
      const config = await call('POST', '/v1/score-configs', { name: 'batched', dataType: 'numeric', min: 0, max: 1 });
      expect(config.statusCode, config.body).toBe(201);
      const ev = await create(judge, { name: 'batched', output: 'score', scoreConfigId: config.json().id, filter: { agent: 'nobody' } });
      await register(Array.from({ length: 4 }, (_, i) => ({ id: `ev-batch-${i}`, query: `q${i}`, answer: i % 2 ? 'good' : 'bad' })));
      const ids = (await Promise.all(Array.from({ length: 4 }, (_, i) => queueOne(ev.id, `ev-batch-${i}`)))).flat();
      expect(ids).toHaveLength(4);
      // The third call's answer is out of its score config's range: the ingest refuses that event alone.
      judge.behave((n) => (n === 3 ? { status: 200, body: JSON.stringify({ score: 7 }) } : undefined));
      const batches: number[] = [];
      const ingestBatch = judgeSubmitter(t.db, () => t.services.ingest);
      const submit: typeof ingestBatch = (workspaceId, events) => {
        batches.push(events.length);
        return ingestBatch(workspaceId, events);
      };
      const statements: string[] = [];
      const db = new Proxy(t.db, {
        get(target, prop) {
          const value: unknown = Reflect.get(target, prop, target);
          if (prop !== 'query' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
          return (sql: string, ...rest: unknown[]) => {
            statements.push(sql.trim());
            return (value as (...a: unknown[]) => unknown).call(target, sql, ...rest);
          };
        },
      });
      expect(await dispatchEvaluatorCalls(db, { submit, ids, allowPrivate: true, backoffMs: 0 })).toEqual({ done: 3, retried: 0, dead: 1 });
      expect(batches).toEqual([4]);
      expect(statements.filter((q) => q.startsWith('UPDATE evaluator_calls'))).toHaveLength(2);
      const log = await calls(ev.id);
      const refused = judge.calls[2]?.body['response'] as { id: string };
      expect(log.filter((c) => c['status'] === 'dead').map((c) => [c['responseId'], c['lastError'], c['attempts']])).toEqual([[refused.id, 'event_rejected:FEEDLOOP_ERR_SCORE_INVALID', 1]]);
      expect(log.filter((c) => c['status'] === 'done')).toHaveLength(3);
      expect(log.every((c) => c['lastStatusCode'] === 200 && typeof c['latencyMs'] === 'number')).toBe(true);
      const events = await judgeEvents(ev.id);
      expect(events.map((e) => e.responseId).sort()).toEqual(['ev-batch-0', 'ev-batch-1', 'ev-batch-2', 'ev-batch-3'].filter((id) => id !== refused.id));
      expect(log.filter((c) => c['status'] === 'done').map((c) => c['eventId']).sort()).toEqual(events.map((e) => e.id).sort());
      // A second round finds nothing due: nothing is sent or written twice.
      expect(await dispatchEvaluatorCalls(db, { submit, ids, allowPrivate: true, backoffMs: 0 })).toEqual({ done: 0, retried: 0, dead: 0 });
      expect(judge.calls).toHaveLength(4);
    });

    it('starts no more calls a minute than the budget', async () => {
      const judge = await startJudge();
      const ev = await create(judge, { name: 'budget', ratePerMinute: 2, filter: { agent: 'nobody' } });
      await register(Array.from({ length: 5 }, (_, i) => ({ id: `ev-budget-${i}`, query: 'q', answer: 'good' })));
      const ids = (await Promise.all(Array.from({ length: 5 }, (_, i) => queueOne(ev.id, `ev-budget-${i}`)))).flat();
      expect(await dispatch({ ids })).toEqual({ done: 2, retried: 0, dead: 0 });
      expect(await dispatch({ ids })).toEqual({ done: 0, retried: 0, dead: 0 });
      expect(judge.calls).toHaveLength(2);
      expect((await call('GET', `/v1/evaluators/${ev.id}`)).json().calls).toEqual({ pending: 3, done: 2, dead: 0 });
    });

    it('backfills past responses a page at a time, resumably, once per evaluator version', async () => {
      const judge = await startJudge();
      const day = Date.parse('2026-03-02T10:00:00Z');
      await register(Array.from({ length: 7 }, (_, i) => ({ id: `ev-bf-${i}`, query: `q${i}`, answer: i % 2 ? 'good' : 'bad', agent: 'backfilled', createdAt: new Date(day + i * 60_000).toISOString() })));
      // Created after the responses, so none of them is a new response to it.
      const ev = await create(judge, { name: 'backfill', filter: { agent: 'backfilled' }, enabled: false });
      const range = { since: '2026-03-02T00:00:00Z', until: '2026-03-03T00:00:00Z', limit: 5 };
      const started = (await t.app.inject({ method: 'POST', url: `/v1/evaluators/${ev.id}/backfill`, headers: t.auth, payload: range })).json();
      expect(started).toMatchObject({ status: 'running', considered: 0, queued: 0, evaluatorVersion: 1, limit: 5 });
      await t.services.pipeline.idle(10_000);
      // Disabled: the backfill walks (another worker's tick may have), but pages of 2 show it resume.
      let progress = (await call('GET', `/v1/evaluators/${ev.id}/backfills/${started.id}`)).json();
      while (progress.status === 'running') {
        expect(await advanceBackfill(t.db, 2)).toBeDefined();
        progress = (await call('GET', `/v1/evaluators/${ev.id}/backfills/${started.id}`)).json();
      }
      expect(progress).toMatchObject({ status: 'done', queued: 5, calls: { pending: 5, done: 0, dead: 0 } });
      expect(progress.considered).toBeGreaterThanOrEqual(5);
      expect(progress.considered).toBeLessThanOrEqual(7);
      expect(judge.calls).toHaveLength(0);

      await call('PATCH', `/v1/evaluators/${ev.id}`, { enabled: true });
      await settle();
      expect(judge.calls).toHaveLength(5);
      expect((await call('GET', `/v1/evaluators/${ev.id}/backfills/${started.id}`)).json().calls).toEqual({ pending: 0, done: 5, dead: 0 });

      // The same range again: an item is judged once per version, so nothing is sent.
      const again = (await call('POST', `/v1/evaluators/${ev.id}/backfill`, { ...range, limit: 100 })).json();
      await settle();
      const repeated = (await call('GET', `/v1/evaluators/${ev.id}/backfills/${again.id}`)).json();
      expect(repeated).toMatchObject({ status: 'done', considered: 7, queued: 2 });
      expect(judge.calls).toHaveLength(7);
      const third = (await call('POST', `/v1/evaluators/${ev.id}/backfill`, range)).json();
      await settle();
      expect((await call('GET', `/v1/evaluators/${ev.id}/backfills/${third.id}`)).json()).toMatchObject({ status: 'done', queued: 0 });
      expect(judge.calls).toHaveLength(7);
      expect(new Set(judge.calls.map((c) => (c.body['response'] as { id: string }).id)).size).toBe(7);

      // A new version judges them again.
      expect((await call('PATCH', `/v1/evaluators/${ev.id}`, { url: `${judge.url}/v2` })).json().version).toBe(2);
      const v2 = (await call('POST', `/v1/evaluators/${ev.id}/backfill`, { ...range, limit: 100 })).json();
      expect(v2.evaluatorVersion).toBe(2);
      await settle();
      expect((await call('GET', `/v1/evaluators/${ev.id}/backfills/${v2.id}`)).json()).toMatchObject({ status: 'done', queued: 7, calls: { done: 7 } });
      expect(judge.calls).toHaveLength(14);
      const backfills = (await call('GET', `/v1/evaluators/${ev.id}/backfills`)).json().backfills as unknown[];
      expect(backfills).toHaveLength(4);
    });

    it('calibrates a judge against the human labels: votes, reviews over votes, per week, disagreements worst first with their response', async () => {
      const judge = await startJudge();
      const ev = await create(judge, { name: 'calibrated', filter: { agent: 'calibration' } });
      const answers = ['good', 'good', 'bad', 'bad', 'bad', 'good', 'good'];
      await register(answers.map((a, i) => ({ id: `ev-cal-${i}`, query: `q${i}`, answer: `a ${a} answer`, agent: 'calibration' })));
      await t.services.pipeline.idle(10_000);
      expect(judge.calls).toHaveLength(7);
      const vote = (responseId: string, type: string, userId: string, extra: Record<string, unknown> = {}) => ({ responseId, type, userId, ...extra });
      const res = await call('POST', '/v1/feedback/batch', {
        events: [
          vote('ev-cal-0', 'thumbs_up', 'u1'),
          vote('ev-cal-1', 'thumbs_down', 'u1'),
          vote('ev-cal-2', 'thumbs_down', 'u1'),
          vote('ev-cal-2', 'thumbs_down', 'u2'),
          vote('ev-cal-3', 'thumbs_down', 'u1'),
          vote('ev-cal-3', 'review', 'rev', { source: 'review', payload: { verdict: 'approved' } }),
          vote('ev-cal-4', 'rating', 'u1', { payload: { rating: 1 } }),
          vote('ev-cal-6', 'rating', 'u1', { payload: { rating: 3 } }),
        ],
      });
      expect(res.statusCode, res.body).toBeLessThan(300);
      await t.services.pipeline.idle(10_000);
      const cal = await call('GET', `/v1/evaluators/${ev.id}/calibration`);
      expect(cal.statusCode, cal.body).toBe(200);
      const report = cal.json();
      expect(report).toMatchObject({ kind: 'binary', judged: 7, n: 5 });
      expect(report.agreement.value).toBeCloseTo(0.6, 10);
      expect(report.weeks).toHaveLength(1);
      expect(report.weeks[0].n).toBe(5);
      expect(report.disagreements.map((d: { responseId: string; judge: string; human: string }) => [d.responseId, d.judge, d.human])).toEqual([
        ['ev-cal-1', 'positive', 'negative'],
        ['ev-cal-3', 'negative', 'positive'],
      ]);
      expect(report.disagreements[0].link).toBe('/v1/responses/ev-cal-1');
      const empty = await call('GET', `/v1/evaluators/${ev.id}/calibration?from=2020-01-01T00:00:00Z&to=2020-02-01T00:00:00Z`);
      expect(empty.json()).toMatchObject({ judged: 0, n: 0 });
      expect((await call('GET', `/v1/evaluators/${ev.id}/calibration?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z`)).json().error.field).toBe('to');
    });

    it('weighs a judge only while its kappa over 30 days is at least 0.6 with n of 50 or more, in the score and in its stored signals alike', async () => {
      const judge = await startJudge();
      const ev = await create(judge, { name: 'weighed', filter: { agent: 'weight' } });
      const ids = Array.from({ length: 52 }, (_, i) => `ev-w-${i}`);
      await register([...ids.map((id, i) => ({ id, query: id, answer: i % 2 ? 'good' : 'bad', agent: 'weight' })), { id: 'ev-w-solo', query: 'solo', answer: 'good', agent: 'weight' }]);
      await t.services.pipeline.idle(10_000);
      expect(judge.calls).toHaveLength(53);
      const weightSum = async (responseId: string) => {
        await rescoreDirtyResponses(t.db);
        const [row] = await t.db.query<{ weight_sum: number }>('SELECT weight_sum FROM response_scores WHERE workspace_id = $1 AND response_id = $2', [t.workspaceId, responseId]);
        return row?.weight_sum ?? 0;
      };
      // The judge's signal as processing stored it (what webhooks, exports and their minWeight carry).
      // On BullMQ the judge event's processing job may still run after idle(): wait for its signal.
      const storedWeight = (responseId: string) =>
        eventually(
          async () => {
            const rows = await t.db.query<{ weight: number }>(
              `SELECT weight FROM feedback_signals WHERE workspace_id = $1 AND response_id = $2 AND user_id = $3 AND status = 'counted'`,
              [t.workspaceId, responseId, `judge:${ev.id}`],
            );
            return rows[0]?.weight;
          },
          10_000,
          `the judge's signal on ${responseId}`,
        );
      await refreshJudgeWeights(t.db, { force: true });
      expect((await call('GET', `/v1/evaluators/${ev.id}`)).json().weight).toMatchObject({ factor: 0, kappa: null, n: 0 });
      expect(await weightSum('ev-w-solo')).toBe(0);
      expect(await storedWeight('ev-w-solo')).toBe(0);

      // 49 agreeing humans: kappa 1, but n under 50.
      const votes = ids.map((id, i) => ({ responseId: id, type: i % 2 ? 'thumbs_up' : 'thumbs_down', userId: 'human' }));
      expect((await call('POST', '/v1/feedback/batch', { events: votes.slice(0, 49) })).statusCode).toBeLessThan(300);
      await t.services.pipeline.idle(10_000);
      expect(await refreshJudgeWeights(t.db, { force: true })).toBe(0);
      expect((await call('GET', `/v1/evaluators/${ev.id}`)).json().weight).toMatchObject({ factor: 0, kappa: 1, n: 49 });

      expect((await call('POST', '/v1/feedback/batch', { events: votes.slice(49) })).statusCode).toBeLessThan(300);
      await t.services.pipeline.idle(10_000);
      expect(await refreshJudgeWeights(t.db, { force: true })).toBe(1);
      const weight = (await call('GET', `/v1/evaluators/${ev.id}`)).json().weight;
      expect(weight).toMatchObject({ factor: 0.3, kappa: 1, n: 52 });
      expect(weight.rule).toMatch(/0\.3 × the human weight/);
      // A thumbs up weighs 1 from a person: 0.3 from this judge, in the score (fresh: no decay to speak of) and as stored.
      expect(await weightSum('ev-w-solo')).toBeCloseTo(0.3, 6);
      expect(await storedWeight('ev-w-solo')).toBeCloseTo(0.3, 12);
      // Judged while the factor is 0.3: stored so by processing, a thumbs down 0.3 × 1.5.
      await register([{ id: 'ev-w-late', query: 'late', answer: 'bad', agent: 'weight' }]);
      await t.services.pipeline.idle(10_000);
      expect(await storedWeight('ev-w-late')).toBeCloseTo(0.45, 12);
      expect(await weightSum('ev-w-late')).toBeCloseTo(0.45, 6);

      // Another person votes the other way on each: no net vote, no human label, n 0: the judge weighs 0 again, everywhere.
      const against = votes.map((v) => ({ ...v, type: v.type === 'thumbs_up' ? 'thumbs_down' : 'thumbs_up', userId: 'human-2' }));
      expect((await call('POST', '/v1/feedback/batch', { events: against })).statusCode).toBeLessThan(300);
      await t.services.pipeline.idle(10_000);
      expect(await refreshJudgeWeights(t.db, { force: true })).toBe(1);
      expect((await call('GET', `/v1/evaluators/${ev.id}`)).json().weight).toMatchObject({ factor: 0, n: 0 });
      expect(await weightSum('ev-w-solo')).toBe(0);
      expect(await storedWeight('ev-w-solo')).toBe(0);
      expect(await storedWeight('ev-w-late')).toBe(0);
    });

    it('judges pairwise review items with both answers; the answer is a preference naming the response', async () => {
      const judge = await startJudge();
      await register([
        { id: 'ev-pw-a', query: 'pair question', answer: 'a good answer' },
        { id: 'ev-pw-b', query: 'pair question', answer: 'a weak answer' },
        { id: 'ev-pw-c', query: 'pair question 2', answer: 'good' },
        { id: 'ev-pw-d', query: 'pair question 2', answer: 'good too' },
      ]);
      const ev = await create(judge, { name: 'pairwise', kind: 'pairwise' });
      const queue = (await call('POST', '/v1/review-queues', { name: 'ev pairs', kind: 'pairwise' })).json();
      const added = await call('POST', `/v1/review-queues/${queue.id}/items`, { pairs: [['ev-pw-a', 'ev-pw-b'], ['ev-pw-c', 'ev-pw-d']] });
      expect(added.json().results.map((r: { status: string }) => r.status)).toEqual(['added', 'added']);
      await t.services.pipeline.evaluatorTick();
      expect(judge.calls).toHaveLength(2);
      expect(judge.calls[0]?.body).toMatchObject({ kind: 'pairwise', query: 'pair question', responses: [{ id: 'ev-pw-a', answer: 'a good answer' }, { id: 'ev-pw-b', answer: 'a weak answer' }] });
      const events = await judgeEvents(ev.id);
      expect(events.map((e) => [e.type, e.payload['preferred']]).sort()).toEqual([
        ['preference', 'ev-pw-a'],
        ['preference', 'tie'],
      ]);
      // The tick found them once: another finds nothing new.
      await t.services.pipeline.evaluatorTick();
      expect(judge.calls).toHaveLength(2);
    });
  });
}
