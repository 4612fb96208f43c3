/**
 * Issue 28: what a dispatch round writes and what a judge weighs, on both stores (embedded, and
 * Postgres with the jobs on BullMQ). A round's answers go to the ingest path as one batch and its
 * calls are recorded in one statement each (done, failed), an event the ingest refuses being
 * dead-lettered alone; a judge weighs 0.3 × the human weight only while its kappa over 30 days is
 * at least 0.6 with n ≥ 50, in the composite score and in its stored signals alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchEvaluatorCalls } from '../src/emit/evaluator-dispatch.js';
import { judgeSubmitter } from '../src/ingest/judge-submission.js';
import { refreshJudgeWeights } from '../src/pipeline/judge-weights.js';
import { rescoreDirtyResponses } from '../src/pipeline/rescore.js';
import { eventually } from './alert-helpers.js';
import { evaluatorApi, LOCAL } from './evaluator-helpers.js';
import { startJudge } from './evaluator-server.js';
import { BACKENDS, REDIS_URL, redisUp, startTestApp, type TestApp } from './harness.js';

for (const backend of BACKENDS) {
  const production = backend.name === 'postgres';
  describe.skipIf(!backend.available || (production && !redisUp))(`evaluator rounds and weight on ${backend.name}${production ? ' + Redis (BullMQ)' : ''}`, () => {
    let t: TestApp;
    const { call, register, create, calls, judgeEvents, queueOne } = evaluatorApi(() => t);

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), production ? { ...LOCAL, REDIS_URL } : LOCAL, { worker: true });
    });
    afterAll(async () => {
      await t.close();
    });

    it('writes a round’s answers in one ingest batch and records its calls in one statement each: a refused event is dead-lettered alone', async () => {
      const judge = await startJudge();
      const config = await call('POST', '/v1/score-configs', { name: 'batched', dataType: 'numeric', min: 0, max: 1 });
      expect(config.statusCode, config.body).toBe(201);
      // Disabled until this test's own round: the worker's tick (BullMQ runs a new schedule's first
      // job at once, and a test's worker may start just before) would otherwise claim the calls first.
      const ev = await create(judge, { name: 'batched', output: 'score', scoreConfigId: config.json().id, filter: { agent: 'nobody' }, enabled: false });
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
      // The start-up tick may still be waiting its turn on a loaded machine (a CI run saw it claim
      // the calls once enabled, leaving this round { done 0 }): the queue drains first.
      await t.services.pipeline.idle(20_000);
      await t.db.query('UPDATE evaluators SET enabled = true WHERE id = $1', [ev.id]);
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
  });
}
