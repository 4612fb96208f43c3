/**
 * Issue 28: the alert rule metric `judge_agreement:<evaluator id>` on both stores, with the
 * deterministic evaluator server as the judge: validation at rule creation (the metric's format,
 * an unknown evaluator, the statistic's range), and the evaluation: a judge that agrees with the
 * humans fires nothing, one that disagrees fires (with its webhook message), and one with fewer
 * units than the rule's minimum stays in "not enough data".
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { alertRuleSetSchema } from '@feedloop/core';
import type { SqlExecutor } from '../src/db/sql-client.js';
import { evaluateAlertTick } from '../src/pipeline/alert-evaluation.js';
import { JUDGE_AGREEMENT_REFRESH_MS, judgeAgreementWindows } from '../src/pipeline/judge-agreement-windows.js';
import { startJudge, type TestJudge } from './evaluator-server.js';
import { BACKENDS, REDIS_URL, redisUp, startTestApp, type TestApp } from './harness.js';

/** Loopback judges need the operator's allow setting; an hour's sweep keeps the scheduled tick out of the way. */
const LOCAL = { FEEDLOOP_WEBHOOK_ALLOW_PRIVATE: 'true', FEEDLOOP_SWEEP_INTERVAL_SECONDS: '3600' };

for (const backend of BACKENDS) {
  const production = backend.name === 'postgres';
  describe.skipIf(!backend.available || (production && !redisUp))(`judge_agreement alerts on ${backend.name}`, () => {
    let t: TestApp;
    let judge: TestJudge;
    const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
      t.app.inject({ method, url, headers: t.auth, ...(payload === undefined ? {} : { payload: payload as object }) });
    const putRules = (rules: unknown[]) => call('PUT', '/v1/alert-rules', { rules });
    const create = async (name: string, agent: string) => {
      const res = await call('POST', '/v1/evaluators', { name, url: judge.url, secret: judge.secret, kind: 'pointwise', output: 'thumbs', filter: { agent } });
      expect(res.statusCode, res.body).toBe(201);
      return (res.json() as { id: string }).id;
    };
    /**
     * Registers `answers.length` responses of `agent` (the judge says up to "good", down to any
     * other), lets the judge answer, and has a human vote on the first `votes` of them, agreeing
     * with the judge or not.
     */
    const judged = async (agent: string, answers: string[], votes: number, humansAgree: boolean) => {
      const ids = answers.map((_, i) => `ja-${agent}-${i}`);
      const res = await call('POST', '/v1/responses/batch', { responses: ids.map((id, i) => ({ id, query: `q ${id}`, answer: `a ${answers[i]} answer`, agent })) });
      expect(res.statusCode).toBe(207);
      await t.services.pipeline.idle(10_000);
      const events = ids.slice(0, votes).map((id, i) => {
        const up = (answers[i] === 'good') === humansAgree;
        return { responseId: id, type: up ? 'thumbs_up' : 'thumbs_down', userId: `human-${i}` };
      });
      expect((await call('POST', '/v1/feedback/batch', { events })).statusCode).toBeLessThan(300);
      await t.services.pipeline.idle(10_000);
    };

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), production ? { ...LOCAL, REDIS_URL } : LOCAL, { worker: true });
    });
    // The evaluator server closes its judges after each test.
    beforeEach(async () => {
      judge = await startJudge();
    });
    afterAll(async () => {
      await t.close();
    });

    it('validates a judge_agreement rule: the metric names an evaluator of the workspace, the threshold fits the statistic; defaults as the weight rule', async () => {
      const ev = await create('validated', 'ja-none');
      const rule = { id: 'judge', kind: 'judge_agreement', severity: 'warning', threshold: 0.6, metric: `judge_agreement:${ev}` };
      const bad = async (r: Record<string, unknown>, field: string, pattern: RegExp) => {
        const res = await putRules([r]);
        expect(res.statusCode, res.body).toBe(400);
        expect(res.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field });
        expect(res.json().error.message).toMatch(pattern);
      };
      await bad({ ...rule, metric: 'judge_agreement:ev_missing' }, 'rules[0].metric', /no evaluator "ev_missing"/);
      await bad({ ...rule, metric: `judge:${ev}` }, 'rules[0].metric', /judge_agreement:<evaluator id>/);
      await bad({ ...rule, metric: 'judge_agreement:' }, 'rules[0].metric', /judge_agreement:<evaluator id>/);
      await bad({ ...rule, metric: undefined }, 'rules[0].metric', /judge_agreement:<evaluator id>/);
      await bad({ ...rule, threshold: 1.5 }, 'rules[0].threshold', /-1 to 1/);
      await bad({ ...rule, statistic: 'agreement', threshold: -0.2 }, 'rules[0].threshold', /0 to 1/);
      await bad({ ...rule, statistic: 'median' }, 'rules[0].statistic', /./);
      await bad({ ...rule, windowDays: 91 }, 'rules[0].windowDays', /./);
      await bad({ ...rule, direction: 'above' }, 'rules[0].direction', /fires below/);
      await bad({ id: 'sat', kind: 'satisfaction', severity: 'warning', threshold: 70, statistic: 'kappa' }, 'rules[0].statistic', /only a judge_agreement rule/);
      await bad({ id: 'sat', kind: 'satisfaction', severity: 'warning', threshold: 70, metric: `judge_agreement:${ev}` }, 'rules[0].metric', /only a score_mean or judge_agreement rule/);
      const ok = await putRules([rule]);
      expect(ok.statusCode, ok.body).toBe(200);
      expect(ok.json().rules[0]).toMatchObject({ statistic: 'kappa', windowDays: 30, minSample: 50, hysteresis: 0, metric: `judge_agreement:${ev}` });
      // Other kinds keep their own minimum sample.
      expect((await putRules([{ id: 'sat', kind: 'satisfaction', severity: 'warning', threshold: 70 }])).json().rules[0].minSample).toBe(30);
    });

    it('fires for a judge that disagrees with the humans, not for one that agrees nor below the minimum n; as other alerts, with its webhook message', async () => {
      const agree = await create('agrees', 'ja-agree');
      const disagree = await create('disagrees', 'ja-disagree');
      const few = await create('few', 'ja-few');
      const answers = ['good', 'bad', 'good', 'bad', 'good', 'bad'];
      await judged('ja-agree', answers, 6, true);
      await judged('ja-disagree', answers, 6, false);
      await judged('ja-few', answers, 3, false);
      const hook = await call('POST', '/v1/webhooks', { url: 'https://example.com/judges', events: ['alert.firing', 'alert.resolved'] });
      expect(hook.statusCode, hook.body).toBe(201);
      const put = await putRules([
        { id: 'agree-kappa', kind: 'judge_agreement', severity: 'warning', threshold: 0.6, minSample: 5, metric: `judge_agreement:${agree}` },
        { id: 'disagree-agreement', kind: 'judge_agreement', severity: 'critical', statistic: 'agreement', threshold: 0.5, minSample: 5, metric: `judge_agreement:${disagree}` },
        { id: 'few-kappa', kind: 'judge_agreement', severity: 'warning', threshold: 0.6, minSample: 5, windowDays: 7, metric: `judge_agreement:${few}` },
      ]);
      expect(put.statusCode, put.body).toBe(200);

      await evaluateAlertTick(t.db, { intervalMs: 1 });
      const alerts = (await call('GET', '/v1/alerts')).json().alerts as Array<Record<string, unknown>>;
      expect(alerts.map((a) => a.ruleId)).toEqual(['disagree-agreement']);
      expect(alerts[0]).toMatchObject({ kind: 'judge_agreement', state: 'firing', severity: 'critical', metric: `judge_agreement:${disagree}`, value: 0, threshold: 0.5, sample: 6 });
      expect(alerts[0]?.message).toMatch(/^Agreement of judge .* is below 0\.5 over the last 30 d \(6 units\)$/);

      const [delivery] = await t.db.query<{ body: { data: Record<string, unknown> } }>(
        "SELECT body FROM webhook_deliveries WHERE workspace_id = $1 AND event_type = 'alert.firing' AND body->'data'->>'ruleId' = 'disagree-agreement'",
        [t.workspaceId],
      );
      expect(delivery?.body.data).toMatchObject({ kind: 'judge_agreement', metric: `judge_agreement:${disagree}`, value: 0, sample: 6 });

      // The same calibration as the evaluators route reads: 6 pairs, agreement 1 and 0; the few judge has 3.
      for (const [id, n, agreement] of [[agree, 6, 1], [disagree, 6, 0], [few, 3, 0]] as const) {
        const cal = (await call('GET', `/v1/evaluators/${id}/calibration`)).json();
        expect([cal.n, cal.agreement.value]).toEqual([n, agreement]);
      }
    });

    it('reads a judge\'s calibration at most once an hour per rule window: the ticks in between reuse it', async () => {
      const ev = await create('cached', 'ja-cached');
      await judged('ja-cached', ['good', 'bad', 'good'], 3, true);
      let queries = 0;
      const counting: SqlExecutor = {
        query: (text, params, options) => {
          queries++;
          return t.db.query(text, params, options);
        },
        exec: (script) => t.db.exec(script),
      };
      const { rules } = alertRuleSetSchema.parse({ rules: [{ id: 'cached', kind: 'judge_agreement', severity: 'warning', threshold: 0.6, metric: `judge_agreement:${ev}` }] });
      const now = new Date(Date.now() + 86_400_000);
      const first = await judgeAgreementWindows(counting, t.workspaceId, rules, now);
      expect(queries).toBeGreaterThan(0);
      expect([...first.values()]).toEqual([{ n: 3, kappa: 1, agreement: 1 }]);
      const read = queries;
      const again = await judgeAgreementWindows(counting, t.workspaceId, rules, new Date(now.getTime() + JUDGE_AGREEMENT_REFRESH_MS - 1));
      expect(queries).toBe(read);
      expect(again).toEqual(first);
      await judgeAgreementWindows(counting, t.workspaceId, rules, new Date(now.getTime() + JUDGE_AGREEMENT_REFRESH_MS));
      expect(queries).toBeGreaterThan(read);
    });
  });
}
