/**
 * Quality alerts over both stores: the rules API (defaults, replace, validation, isolation), the
 * hourly counts the processing transaction keeps (exactly once under replay), the tick claim
 * (two evaluators of one tick evaluate once), the alerts API and Phase 4.1's QualityAlert.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateAlertTick } from '../src/pipeline/alert-evaluation.js';
import { processEvents } from '../src/pipeline/process-events.js';
import { vote } from './alert-helpers.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const INTERVAL_MS = 30_000;

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`quality alerts on ${backend.name}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(await backend.open());
    });
    afterAll(() => t.close());

    const fresh = async () => {
      const { workspaceId, secretKey } = await t.otherWorkspace();
      return { workspaceId, auth: { authorization: `Bearer ${secretKey}` } };
    };
    /** Processes everything pending (this app runs no worker). */
    const processAll = async (workspaceId: string) => {
      const keys = await t.db.query<{ workspace_id: string; event_id: string }>('SELECT workspace_id, event_id FROM pipeline_pending WHERE workspace_id = $1', [workspaceId]);
      await processEvents(t.db, keys.map((k) => [k.workspace_id, k.event_id]), { counters: { kind: 'outbox' }, stream: false });
      return keys.map((k): [string, string] => [k.workspace_id, k.event_id]);
    };
    const hourly = (workspaceId: string) =>
      t.db.query<{ rated: number; positive: number; negative: number; negative_categories: Record<string, number> }>(
        'SELECT rated, positive, negative, negative_categories FROM feedback_metrics_hourly WHERE workspace_id = $1',
        [workspaceId],
      );

    it('serves the Phase 4.1 defaults until a workspace sets its rules, then replaces the whole set', async () => {
      const { auth } = await fresh();
      const initial = await t.app.inject({ method: 'GET', url: '/v1/alert-rules', headers: auth });
      expect(initial.statusCode).toBe(200);
      expect(initial.json()).toMatchObject({ default: true, updatedAt: null });
      expect(initial.json().rules.map((r: { id: string; threshold: number }) => [r.id, r.threshold])).toEqual([
        ['satisfaction-warning', 70],
        ['satisfaction-critical', 50],
        ['category-spike', 2],
        ['correction-rate', 20],
        ['escalation-rate', 10],
      ]);
      const put = await t.app.inject({
        method: 'PUT',
        url: '/v1/alert-rules',
        headers: auth,
        payload: { rules: [{ id: 'sat', kind: 'satisfaction', severity: 'critical', threshold: 80, windowHours: 6, forSeconds: 60 }] },
      });
      expect(put.statusCode).toBe(200);
      const after = (await t.app.inject({ method: 'GET', url: '/v1/alert-rules', headers: auth })).json();
      expect(after.default).toBe(false);
      expect(after.rules).toEqual([
        { id: 'sat', kind: 'satisfaction', severity: 'critical', threshold: 80, windowHours: 6, minSample: 30, forSeconds: 60, hysteresis: 5, enabled: true },
      ]);
      // An empty set is a set: the workspace then has no rules at all.
      await t.app.inject({ method: 'PUT', url: '/v1/alert-rules', headers: auth, payload: { rules: [] } });
      expect((await t.app.inject({ method: 'GET', url: '/v1/alert-rules', headers: auth })).json()).toMatchObject({ rules: [], default: false });
    });

    it('refuses bad rules with 400 naming the field, and changes nothing', async () => {
      const { auth } = await fresh();
      const ok = { id: 'sat', kind: 'satisfaction', severity: 'warning', threshold: 70 };
      const cases: Array<[unknown, string]> = [
        [{ rules: [{ ...ok, threshold: 170 }] }, 'rules[0].threshold'],
        [{ rules: [{ ...ok, kind: 'latency' }] }, 'rules[0].kind'],
        [{ rules: [ok, ok] }, 'rules[1].id'],
        [{ rules: [{ ...ok, baselineDays: 3 }] }, 'rules[0].baselineDays'],
        [{ rules: [{ ...ok, kind: 'category_spike', threshold: 0.5 }] }, 'rules[0].threshold'],
        [{}, 'rules'],
      ];
      for (const [payload, field] of cases) {
        const res = await t.app.inject({ method: 'PUT', url: '/v1/alert-rules', headers: auth, payload: payload as object });
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field });
      }
      expect((await t.app.inject({ method: 'GET', url: '/v1/alert-rules', headers: auth })).json().default).toBe(true);
    });

    it("keeps a workspace's rules and alerts to itself", async () => {
      const a = await fresh();
      const b = await fresh();
      await t.app.inject({ method: 'PUT', url: '/v1/alert-rules', headers: a.auth, payload: { rules: [] } });
      expect((await t.app.inject({ method: 'GET', url: '/v1/alert-rules', headers: b.auth })).json().default).toBe(true);
      await vote(t, a.auth, 30, 'thumbs_down');
      await processAll(a.workspaceId);
      await vote(t, b.auth, 30, 'thumbs_down');
      await processAll(b.workspaceId);
      await evaluateAlertTick(t.db, { intervalMs: 1 });
      // a has no rules: nothing fires there; b has the defaults.
      expect((await t.app.inject({ method: 'GET', url: '/v1/alerts?state=all', headers: a.auth })).json().alerts).toEqual([]);
      const bAlerts = (await t.app.inject({ method: 'GET', url: '/v1/alerts', headers: b.auth })).json().alerts;
      expect(bAlerts.map((x: { ruleId: string }) => x.ruleId).sort()).toEqual(['satisfaction-critical', 'satisfaction-warning']);
    });

    it('counts processed votes per hour exactly once, even when the batch is replayed', async () => {
      const { workspaceId, auth } = await fresh();
      await vote(t, auth, 3, 'thumbs_down', { category: 'accuracy' });
      await vote(t, auth, 2, 'thumbs_up');
      const keys = await processAll(workspaceId);
      expect(await hourly(workspaceId)).toEqual([{ rated: 5, positive: 2, negative: 3, negative_categories: { accuracy: 3 } }]);
      // A queue that delivers the job again claims nothing and adds nothing.
      const again = await processEvents(t.db, keys, { counters: { kind: 'outbox' }, stream: false });
      expect(again.claimed).toBe(0);
      expect(await hourly(workspaceId)).toEqual([{ rated: 5, positive: 2, negative: 3, negative_categories: { accuracy: 3 } }]);
      await vote(t, auth, 1, 'thumbs_down', { category: 'relevance' });
      await processAll(workspaceId);
      expect(await hourly(workspaceId)).toEqual([{ rated: 6, positive: 2, negative: 4, negative_categories: { accuracy: 3, relevance: 1 } }]);
    });

    it('lets one of two evaluators of the same tick evaluate, the other not', async () => {
      const { workspaceId, auth } = await fresh();
      await vote(t, auth, 30, 'thumbs_down');
      await processAll(workspaceId);
      // A tick of its own, far from any other test's: one minute granularity at a fixed instant.
      const now = new Date(Math.floor(Date.now() / INTERVAL_MS) * INTERVAL_MS + 1);
      const reports = await Promise.all([evaluateAlertTick(t.db, { intervalMs: INTERVAL_MS, now }), evaluateAlertTick(t.db, { intervalMs: INTERVAL_MS, now })]);
      expect(reports.map((r) => r.evaluated).sort()).toEqual([false, true]);
      const winner = reports.find((r) => r.evaluated);
      expect(winner?.errors).toEqual([]);
      const alerts = (await t.app.inject({ method: 'GET', url: '/v1/alerts?state=all', headers: auth })).json().alerts;
      expect(alerts).toHaveLength(2);
      // The next tick sees them open and changes nothing but their measures.
      const next = await evaluateAlertTick(t.db, { intervalMs: INTERVAL_MS, now: new Date(now.getTime() + INTERVAL_MS) });
      expect(next).toMatchObject({ evaluated: true, fired: 0, resolved: 0 });
      expect((await t.app.inject({ method: 'GET', url: '/v1/alerts?state=all', headers: auth })).json().alerts).toHaveLength(2);
    });

    it('lists alerts by state and serves the firing ones as Phase 4.1 QualityAlerts', async () => {
      const { workspaceId, auth } = await fresh();
      await t.app.inject({
        method: 'PUT',
        url: '/v1/alert-rules',
        headers: auth,
        payload: { rules: [{ id: 'sat', kind: 'satisfaction', severity: 'critical', threshold: 50 }] },
      });
      await vote(t, auth, 20, 'thumbs_down');
      await vote(t, auth, 10, 'thumbs_up');
      await processAll(workspaceId);
      await evaluateAlertTick(t.db, { intervalMs: 1 });
      const firing = (await t.app.inject({ method: 'GET', url: '/v1/alerts?state=firing', headers: auth })).json().alerts;
      expect(firing).toEqual([
        expect.objectContaining({ ruleId: 'sat', state: 'firing', kind: 'satisfaction', severity: 'critical', value: 33.33, threshold: 50, sample: 30, resolvedAt: null }),
      ]);
      const compat = await t.app.inject({ method: 'GET', url: '/api/rag/feedback/alerts', headers: auth });
      expect(compat.statusCode).toBe(200);
      expect(compat.json()).toEqual([
        {
          id: firing[0].id,
          type: 'satisfaction_drop',
          severity: 'critical',
          message: 'Satisfaction 33.33 % is below 50 % over the last 24 h (30 rated responses)',
          metric: 'satisfaction_rate',
          threshold: 50,
          currentValue: 33.33,
          triggeredAt: firing[0].firedAt,
        },
      ]);
      await vote(t, auth, 30, 'thumbs_up');
      await processAll(workspaceId);
      await evaluateAlertTick(t.db, { intervalMs: 1 });
      expect((await t.app.inject({ method: 'GET', url: '/v1/alerts', headers: auth })).json().alerts).toEqual([]);
      expect((await t.app.inject({ method: 'GET', url: '/api/rag/feedback/alerts', headers: auth })).json()).toEqual([]);
      const resolved = (await t.app.inject({ method: 'GET', url: '/v1/alerts?state=resolved', headers: auth })).json().alerts;
      expect(resolved).toEqual([expect.objectContaining({ id: firing[0].id, state: 'resolved', value: 66.67 })]);
      expect(resolved[0].resolvedAt).not.toBeNull();
      const bad = await t.app.inject({ method: 'GET', url: '/v1/alerts?state=open', headers: auth });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field: 'state' });
    });

    it('spikes a category against its baseline of the 7 days before', async () => {
      const { workspaceId, auth } = await fresh();
      await t.app.inject({
        method: 'PUT',
        url: '/v1/alert-rules',
        headers: auth,
        payload: { rules: [{ id: 'spike', kind: 'category_spike', severity: 'warning', threshold: 2 }] },
      });
      // A baseline of 100 rated a day, 3 of them accuracy negatives, as the pipeline would have counted them.
      for (let d = 1; d <= 7; d++) {
        await t.db.query(
          `INSERT INTO feedback_metrics_hourly (workspace_id, hour, rated, positive, negative, negative_categories)
           VALUES ($1, date_trunc('hour', now()) - $2 * interval '1 day', 100, 97, 3, '{"accuracy": 3}')`,
          [workspaceId, d],
        );
      }
      await vote(t, auth, 9, 'thumbs_down', { category: 'accuracy' });
      await vote(t, auth, 21, 'thumbs_up');
      await processAll(workspaceId);
      await evaluateAlertTick(t.db, { intervalMs: 1 });
      // 9 of 30 against a 3 % share is far above chance, but under the minimum count of 10: no spike.
      expect((await t.app.inject({ method: 'GET', url: '/v1/alerts?state=all', headers: auth })).json().alerts).toEqual([]);
      await vote(t, auth, 6, 'thumbs_down', { category: 'accuracy' });
      await processAll(workspaceId);
      await evaluateAlertTick(t.db, { intervalMs: 1 });
      // 15 of 36 rated; expected 36 × (21 + ½)/(700 + 1) = 1.10, so the threshold is 2.21.
      const [alert] = (await t.app.inject({ method: 'GET', url: '/v1/alerts', headers: auth })).json().alerts;
      expect(alert).toMatchObject({ ruleId: 'spike', kind: 'category_spike', labels: { category: 'accuracy' }, metric: 'category_negatives:accuracy', value: 15, threshold: 2.21 });
      expect(alert.message).toMatch(/binomial p = /);
      const [compat] = (await t.app.inject({ method: 'GET', url: '/api/rag/feedback/alerts', headers: auth })).json();
      expect(compat).toMatchObject({ type: 'category_spike', currentValue: 15, threshold: 2.21 });
    });

    it('takes a webhook format, alert events only for alertmanager and slack', async () => {
      const { auth } = await fresh();
      const post = (payload: object) => t.app.inject({ method: 'POST', url: '/v1/webhooks', headers: auth, payload });
      const plain = await post({ url: 'https://example.com/a', events: ['feedback.submitted'] });
      expect(plain.statusCode).toBe(201);
      expect(plain.json().format).toBe('feedloop');
      const am = await post({ url: 'https://example.com/b', events: ['alert.firing', 'alert.resolved'], format: 'alertmanager' });
      expect(am.statusCode).toBe(201);
      expect(am.json()).toMatchObject({ format: 'alertmanager', events: ['alert.firing', 'alert.resolved'] });
      const mixed = await post({ url: 'https://example.com/c', events: ['alert.firing', 'learning.signal'], format: 'slack' });
      expect(mixed.statusCode).toBe(400);
      expect(mixed.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field: 'events' });
      const unknown = await post({ url: 'https://example.com/d', events: ['alert.firing'], format: 'pagerduty' });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json().error.field).toBe('format');
      const listed = (await t.app.inject({ method: 'GET', url: '/v1/webhooks', headers: auth })).json().webhooks;
      expect(listed.map((w: { format: string }) => w.format)).toEqual(['feedloop', 'alertmanager']);
    });
  });
}
