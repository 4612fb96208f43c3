/**
 * Issue 28: `POST /v1/alert-rules/preview` replays `judge_agreement:<evaluator id>` rules on both
 * stores, hour by hour, as the live alert tick evaluates them: each hour sees the judge's answers
 * that came in during the rule's window before it and the human votes that had happened by then.
 * The judge answered 5 days ago, the humans voted (against it) 4 days ago: the alert fires at the
 * first hour after the votes, with the live alert's value and message; a judge the humans agree
 * with fires nothing, nor does a 1-day window (the answers left it before the votes came).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateAlertTick } from '../src/pipeline/alert-evaluation.js';
import { startJudge, type TestJudge } from './evaluator-server.js';
import { BACKENDS, REDIS_URL, redisUp, startTestApp, type TestApp } from './harness.js';

const LOCAL = { FEEDLOOP_WEBHOOK_ALLOW_PRIVATE: 'true', FEEDLOOP_SWEEP_INTERVAL_SECONDS: '3600' };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

for (const backend of BACKENDS) {
  const production = backend.name === 'postgres';
  describe.skipIf(!backend.available || (production && !redisUp))(`judge_agreement preview on ${backend.name}`, () => {
    let t: TestApp;
    let judge: TestJudge;
    const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
      t.app.inject({ method, url, headers: t.auth, ...(payload === undefined ? {} : { payload: payload as object }) });
    const ids = { agree: '', disagree: '' };
    // Whole minutes: the instants the rows are moved to.
    const answeredAt = new Date(Math.floor((Date.now() - 5 * DAY) / 60_000) * 60_000);
    const votedAt = new Date(Math.floor((Date.now() - 4 * DAY + 30 * 60_000) / 60_000) * 60_000);

    /** Six responses of `agent` judged (up for "good"), and a human vote on each, agreeing with the judge or not; moved back in time. */
    const judged = async (agent: string, humansAgree: boolean) => {
      const answers = ['good', 'bad', 'good', 'bad', 'good', 'bad'];
      const responseIds = answers.map((_, i) => `jp-${agent}-${i}`);
      const res = await call('POST', '/v1/responses/batch', { responses: responseIds.map((id, i) => ({ id, query: `q ${id}`, answer: `a ${answers[i]} answer`, agent })) });
      expect(res.statusCode).toBe(207);
      await t.services.pipeline.idle(10_000);
      const events = responseIds.map((id, i) => ({ responseId: id, type: (answers[i] === 'good') === humansAgree ? 'thumbs_up' : 'thumbs_down', userId: `human-${i}` }));
      expect((await call('POST', '/v1/feedback/batch', { events })).statusCode).toBeLessThan(300);
      await t.services.pipeline.idle(10_000);
      // The past as the replay reads it: when each answer came in, when each human voted.
      await t.db.query('UPDATE evaluator_calls SET completed_at = $2, created_at = $2 WHERE workspace_id = $1 AND response_id = ANY($3::text[])', [t.workspaceId, answeredAt, responseIds]);
      await t.db.query("UPDATE feedback_events SET occurred_at = $2 WHERE workspace_id = $1 AND source = 'explicit' AND response_id = ANY($3::text[])", [t.workspaceId, votedAt, responseIds]);
    };
    const rule = (id: string, evaluator: string, extra: Record<string, unknown> = {}) => ({ id, kind: 'judge_agreement', severity: 'warning', statistic: 'agreement', threshold: 0.5, minSample: 5, metric: `judge_agreement:${evaluator}`, ...extra });

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), production ? { ...LOCAL, REDIS_URL } : LOCAL, { worker: true });
      judge = await startJudge();
      const create = async (name: string, agent: string) => {
        const res = await call('POST', '/v1/evaluators', { name, url: judge.url, secret: judge.secret, kind: 'pointwise', output: 'thumbs', filter: { agent } });
        expect(res.statusCode, res.body).toBe(201);
        return (res.json() as { id: string }).id;
      };
      ids.agree = await create('agrees', 'jp-agree');
      ids.disagree = await create('disagrees', 'jp-disagree');
      await judged('jp-agree', true);
      await judged('jp-disagree', false);
      expect(judge.calls).toHaveLength(12);
    }, 60_000);
    afterAll(async () => {
      await t?.close();
    });

    it('fires at the first hour after the humans disagreed, with the live value and message; not for a judge they agree with, nor past the window', async () => {
      const rules = [rule('disagree', ids.disagree), rule('agree', ids.agree), rule('disagree-1d', ids.disagree, { windowDays: 1 })];
      const res = await call('POST', '/v1/alert-rules/preview', { rules, days: 10 });
      expect(res.statusCode, res.body).toBe(200);
      const { alerts } = res.json() as { alerts: Array<Record<string, unknown>> };
      // The first hourly tick at or after the votes: before it, no unit had a human label.
      const firstHour = new Date(Math.ceil(votedAt.getTime() / HOUR) * HOUR).toISOString();
      expect(alerts).toHaveLength(1);
      expect(alerts[0]).toMatchObject({ ruleId: 'disagree', metric: `judge_agreement:${ids.disagree}`, value: 0, threshold: 0.5, firedAt: firstHour, resolvedAt: null });

      // The live machinery on the same rules, now: the same alert, value and message.
      expect((await call('PUT', '/v1/alert-rules', { rules })).statusCode).toBe(200);
      await evaluateAlertTick(t.db, { intervalMs: 1 });
      const live = (await call('GET', '/v1/alerts')).json().alerts as Array<Record<string, unknown>>;
      expect(live.map((a) => a.ruleId)).toEqual(['disagree']);
      expect(live[0]).toMatchObject({ metric: alerts[0]?.metric, value: alerts[0]?.value, message: alerts[0]?.message, state: 'firing' });
      expect(alerts[0]?.message).toMatch(/^Agreement of judge .* is below 0\.5 over the last 30 d \(6 units\)$/);
    });

    it('replays a kappa rule over the days asked for: a preview that starts after the votes fires at its first hour', async () => {
      const res = await call('POST', '/v1/alert-rules/preview', { rules: [rule('kappa', ids.disagree, { statistic: 'kappa', threshold: 0.2 })], days: 2 });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as { from: string; alerts: Array<Record<string, unknown>> };
      const firstHour = new Date(Math.ceil(Date.parse(body.from) / HOUR) * HOUR).toISOString();
      // Judge up where the humans say down and back: kappa −1.
      expect(body.alerts).toEqual([expect.objectContaining({ ruleId: 'kappa', value: -1, firedAt: firstHour, resolvedAt: null })]);
    });
  });
}
