import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollupDirtyDays } from '../src/pipeline/rollup.js';
import { readDay, readDayPages } from '../src/store/day-rollups.js';
import { computeDay } from '../src/pipeline/rollup-compute.js';
import { RollupPool } from '../src/pipeline/rollup-pool.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const today = () => new Date().toISOString().slice(0, 10);

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`stats API on ${backend.name}`, () => {
    let t: TestApp;
    const post = (url: string, payload: unknown) => t.app.inject({ method: 'POST', url, headers: t.auth, payload: payload as object });
    const get = (url: string, headers = t.auth) => t.app.inject({ method: 'GET', url, headers });

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), {}, { worker: true });
      const res = await post('/v1/responses/batch', {
        responses: [
          { id: 's-r1', query: 'Sales last month?', answer: 'a1', agent: 'sql', model: 'm1', experimentId: 'exp1', variant: 'A', sessionId: 's1', userId: 'u1' },
          { id: 's-r2', query: 'sales  last month', answer: 'a2', agent: 'sql', model: 'm2', experimentId: 'exp1', variant: 'B', sessionId: 's1' },
          { id: 's-r3', query: 'Churn?', answer: 'a3', agent: 'chat', model: 'm1' },
          { id: 's-r4', query: 'Nobody answered', answer: 'a4', agent: 'chat' },
        ],
      });
      expect(res.statusCode).toBe(207);
      // Registering responses marks their day for the rollup: they are the rates' population.
      const marks = await t.db.query('SELECT 1 FROM rollup_dirty WHERE workspace_id = $1 AND day = $2::date', [t.workspaceId, today()]);
      expect(marks).toHaveLength(1);
      const sent = await post('/v1/feedback/batch', {
        events: [
          { id: 's-e1', responseId: 's-r1', type: 'thumbs_up', userId: 'u1', payload: { category: 'accuracy' } },
          { id: 's-e2', responseId: 's-r2', type: 'thumbs_down', userId: 'u2', payload: { category: 'relevance' } },
          { id: 's-e3', responseId: 's-r2', type: 'rating', userId: 'u3', payload: { rating: 5 } },
          { id: 's-e4', responseId: 's-r3', type: 'thumbs_down', userId: 'u2' },
          { id: 's-e5', responseId: 's-r3', type: 'correction', userId: 'u2', payload: { corrected: 'b3' } },
          { id: 's-e6', responseId: 's-r3', type: 'escalation', userId: 'u2' },
        ],
      });
      expect(sent.statusCode).toBe(207);
      await t.services.pipeline.idle(10_000);
      await rollupDirtyDays(t.db, { workspaceId: t.workspaceId });
    });
    afterAll(async () => {
      await t.close();
    });

    it('reports the last 30 days by default, with rates as percentages and a Wilson interval', async () => {
      const res = await get('/v1/stats');
      expect(res.statusCode).toBe(200);
      const s = res.json();
      expect(s.to).toBe(today());
      expect(s.byDay).toHaveLength(30);
      expect(s).toMatchObject({ total: 4, positive: 2, negative: 2, satisfactionRate: 50, positiveRate: 50, source: 'rollup' });
      // Wilson 95 % for 2 of 4: [0.1500, 0.8500] (Newcombe 1998, Table I method 3 gives the same bounds for 50 %).
      expect(s.satisfactionInterval.lower).toBeCloseTo(15, 1);
      expect(s.satisfactionInterval.upper).toBeCloseTo(85, 1);
      // 1 corrected of the 4 responses registered today (s-r4 got no feedback but counts).
      expect(s.correctionRate).toBe(25);
      // Sessions: s1 (s-r1, s-r2), s-r3, s-r4; s-r3's is escalated.
      expect(s.escalationRate).toBe(33.33);
      expect(s.responses).toBe(4);
      expect(s.sessions).toBe(3);
      expect(s.byCategory).toEqual({ accuracy: { positive: 1, negative: 0 }, relevance: { positive: 0, negative: 1 } });
      expect(s.errorCategories).toEqual([{ category: 'relevance', count: 1, share: 100 }]);
      // Normalized queries ("Sales  last month" → "sales last month"); ties in query order.
      expect(s.topIssues).toEqual([
        { query: 'churn', negativeCount: 1 },
        { query: 'sales last month', negativeCount: 1 },
      ]);
      expect(s.byDay.at(-1)).toMatchObject({ date: today(), positive: 2, negative: 2, satisfactionRate: 50 });
      // One day of ratings: never "stable" on too little.
      expect(s.trend).toMatchObject({ direction: 'not_enough_days', verdict: 'not enough days: 1 of 7', days: 1, requiredDays: 7 });
      expect(s.recentDrop).toMatchObject({ detected: false, verdict: null });
      expect(s.live).toEqual({ day: today(), source: 'counters' });
    });

    it('answers zeros for an agent never seen, and says so in warnings', async () => {
      const unknown = (await get('/v1/stats?agent=sqll')).json();
      expect(unknown).toMatchObject({ total: 0, events: 0, responses: 0, satisfactionRate: null });
      expect(unknown.warnings).toEqual(['agent "sqll" was never seen in this workspace: the figures are zeros']);
      const known = (await get('/v1/stats?agent=sql')).json();
      expect(known.warnings).toEqual([]);
      // A known agent on a range without data: zeros, and no warning (it was seen, just not then).
      expect((await get('/v1/stats?agent=sql&from=2020-01-01&to=2020-01-31')).json().warnings).toEqual([]);
    });

    it('rounds every number at the edge to the precision it has (6 significant digits at most)', async () => {
      const res = await get('/v1/stats?groupBy=day');
      const long: Array<[string, number]> = [];
      const walk = (v: unknown, path: string): void => {
        if (typeof v === 'number' && Number(v.toPrecision(6)) !== v) long.push([path, v]);
        else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`));
        else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
      };
      walk(res.json(), '');
      expect(long).toEqual([]);
      // The figure the Overview named unformatted: a mean of ms, whole ms at most.
      const ms = res.json().avgResponseTimeMs;
      expect(ms === null || Number.isInteger(ms)).toBe(true);
    });

    it('reads a day in pages that together are the one-page read, whatever the page size', async () => {
      const whole = await readDay(t.db, t.workspaceId, today());
      expect(whole.rows).toHaveLength(6);
      expect(whole.registered).toHaveLength(4);
      for (const pageSize of [1, 2, 5]) expect(await readDay(t.db, t.workspaceId, today(), pageSize)).toEqual(whole);
      // A signal whose event was replaced is not read, also where it ends a page: a page is its
      // signals first (embedded), and one left out must not end the reading early.
      const second = `(SELECT event_id FROM feedback_signals WHERE workspace_id = $1 AND status = 'counted' ORDER BY occurred_at, event_id LIMIT 1 OFFSET 1)`;
      await t.db.query(`UPDATE feedback_events SET superseded_by = 'a-later-vote' WHERE workspace_id = $1 AND id = ${second}`, [t.workspaceId]);
      try {
        const fewer = await readDay(t.db, t.workspaceId, today());
        expect(fewer.rows).toHaveLength(5);
        for (const pageSize of [1, 2, 5]) expect(await readDay(t.db, t.workspaceId, today(), pageSize)).toEqual(fewer);
      } finally {
        await t.db.query(`UPDATE feedback_events SET superseded_by = NULL WHERE workspace_id = $1 AND superseded_by = 'a-later-vote'`, [t.workspaceId]);
      }
    });

    it('pages a day whose signals share one timestamp (a batch sent with one time) by their ids, none read twice or left out', async () => {
      const saved = await t.db.query<{ event_id: string; at: string }>('SELECT event_id, occurred_at::text AS at FROM feedback_signals WHERE workspace_id = $1', [t.workspaceId]);
      await t.db.query('UPDATE feedback_signals SET occurred_at = (SELECT min(occurred_at) FROM feedback_signals WHERE workspace_id = $1) WHERE workspace_id = $1', [t.workspaceId]);
      try {
        const whole = await readDay(t.db, t.workspaceId, today());
        expect(whole.rows).toHaveLength(6);
        expect(new Set(whole.rows.map((r) => r.s_occurred_key)).size).toBe(1);
        for (const pageSize of [1, 2, 5]) expect(await readDay(t.db, t.workspaceId, today(), pageSize)).toEqual(whole);
      } finally {
        await t.db.query(
          `UPDATE feedback_signals s SET occurred_at = x.at FROM json_to_recordset($2::json) AS x(event_id text, at timestamptz)
            WHERE s.workspace_id = $1 AND s.event_id = x.event_id`,
          [t.workspaceId, JSON.stringify(saved)],
        );
      }
    });

    it("computes a day's rollup in the rollup thread exactly as inline", async () => {
      const input = await readDay(t.db, t.workspaceId, today());
      const pool = new RollupPool();
      try {
        const threaded = await pool.compute(input);
        expect(threaded).toEqual(computeDay(input));
        // Paged, the signals go to the thread as the pages' JSON and are parsed there.
        const pages = await readDayPages(t.db, t.workspaceId, today(), 2);
        expect(pages).toHaveProperty('rowPages');
        expect(await pool.compute(pages)).toEqual(threaded);
        expect(threaded.metrics.find((m) => m.dimension === 'all')).toMatchObject({ positiveRatings: 2, negativeRatings: 2 });
      } finally {
        await pool.close();
      }
    });

    it('shows the default baseline, marked as such, while a workspace has few ratings', async () => {
      const s = (await get('/v1/stats')).json();
      expect(s.baseline).toEqual({ source: 'default', satisfactionRate: 70, minimumRated: 30, rated: 4 });
    });

    it('groups by agent and by variant (named within its experiment)', async () => {
      const byAgent = (await get('/v1/stats?groupBy=agent')).json();
      expect(byAgent.groups.map((g: { key: string; total: number }) => [g.key, g.total])).toEqual([
        ['chat', 1],
        ['sql', 3],
      ]);
      expect(byAgent.groups.find((g: { key: string }) => g.key === 'chat')).toMatchObject({ responses: 2, correctionRate: 50 });
      const byVariant = (await get('/v1/stats?groupBy=variant')).json();
      expect(byVariant.groups.map((g: { key: string; positive: number; negative: number }) => [g.key, g.positive, g.negative])).toEqual([
        ['exp1/A', 1, 0],
        ['exp1/B', 1, 1],
      ]);
      const byWeek = (await get(`/v1/stats?groupBy=week&from=${today()}&to=${today()}`)).json();
      expect(byWeek.groups).toHaveLength(1);
      expect(byWeek.groups[0].total).toBe(4);
    });

    it('filters by one dimension from the rollup and by user, experiment or several from the cells', async () => {
      expect((await get('/v1/stats?agent=sql')).json()).toMatchObject({ total: 3, positive: 2, source: 'rollup', correctionRate: 0 });
      expect((await get('/v1/stats?category=relevance')).json()).toMatchObject({ total: 1, negative: 1, source: 'rollup' });
      // u2 gave two thumbs down, a correction and an escalation; s-r1 was registered for u1.
      expect((await get('/v1/stats?userId=u2')).json()).toMatchObject({ total: 2, positive: 0, negative: 2, events: 4, source: 'users' });
      expect((await get('/v1/stats?userId=u1')).json()).toMatchObject({ total: 1, positive: 1, responses: 1, source: 'users' });
      expect((await get('/v1/stats?experimentId=exp1&variant=B')).json()).toMatchObject({ total: 2, positive: 1, negative: 1, source: 'cells' });
      expect((await get('/v1/stats?agent=sql&model=m1')).json()).toMatchObject({ total: 1, positive: 1, responses: 1 });
      const grouped = (await get('/v1/stats?agent=sql&groupBy=model')).json();
      expect(grouped.groups.map((g: { key: string; total: number }) => [g.key, g.total])).toEqual([
        ['m1', 1],
        ['m2', 2],
      ]);
    });

    it('rejects bad input with a stable code naming the field', async () => {
      for (const [url, field] of [
        [`/v1/stats?from=2026-02-10&to=2026-02-01`, 'from'],
        [`/v1/stats?from=2024-01-01&to=2026-02-01`, 'from'],
        ['/v1/stats?to=2026-02-30', 'to'],
        ['/v1/stats?agent=sql&category=relevance', 'category'],
        ['/v1/stats?agent=sql&userId=u1', 'userId'],
        ['/v1/stats?userId=u1&groupBy=model', 'userId'],
        ['/v1/stats?groupBy=hour', 'groupBy'],
        ['/v1/stats?colour=red', undefined],
      ] as const) {
        const res = await get(url);
        expect(res.statusCode, url).toBe(400);
        expect(res.json().error.code, url).toBe('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD');
        if (field !== undefined) expect(res.json().error.message, url).toContain(field);
      }
    });

    it('never shows another workspace’s numbers', async () => {
      const other = await t.otherWorkspace();
      const s = (await get('/v1/stats', { authorization: `Bearer ${other.secretKey}` })).json();
      expect(s).toMatchObject({ total: 0, events: 0, responses: 0, satisfactionRate: null, topIssues: [], byCategory: {} });
      expect((await get('/v1/stats?userId=u2', { authorization: `Bearer ${other.secretKey}` })).json().total).toBe(0);
    });

    it('answers Phase 4.1 FeedbackStats exactly', async () => {
      const res = await get('/api/rag/feedback/stats');
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(Object.keys(body).sort()).toEqual(['byCategory', 'byDay', 'negative', 'positive', 'satisfactionRate', 'topIssues', 'total', 'trend']);
      // The seed's unit: positive / total, a fraction (issue 24).
      expect(body).toMatchObject({ total: 4, positive: 2, negative: 2, satisfactionRate: 0.5, trend: 'stable' });
      expect(Object.keys(body.byDay[0]).sort()).toEqual(['date', 'negative', 'positive']);
      expect(body.byCategory.accuracy).toEqual({ positive: 1, negative: 0 });
    });

    it('counts a new rating within seconds, before any rollup, without counting it twice after', async () => {
      await post('/v1/feedback', { id: 's-e7', responseId: 's-r4', type: 'thumbs_up', userId: 'u4' });
      await t.services.pipeline.idle(10_000);
      expect((await get('/v1/stats')).json()).toMatchObject({ total: 5, positive: 3 });
      await rollupDirtyDays(t.db, { workspaceId: t.workspaceId });
      expect((await get('/v1/stats')).json()).toMatchObject({ total: 5, positive: 3 });
    });

    it('recomputes a response’s registration day when a later correction arrives, idempotently', async () => {
      const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
      const day = twoDaysAgo.toISOString().slice(0, 10);
      await post('/v1/responses', { id: 's-old', query: 'old question', answer: 'old answer', createdAt: twoDaysAgo.toISOString() });
      await t.db.query(`UPDATE workspaces SET settings = settings || '{"feedbackWindowHours": 100}' WHERE id = $1`, [t.workspaceId]);
      t.services.keys.clear();
      await rollupDirtyDays(t.db, { workspaceId: t.workspaceId });
      const rateOf = async () =>
        (await t.db.query<{ correction_rate: string | null; total_events: number }>(
          `SELECT correction_rate, total_events FROM feedback_metrics_daily WHERE workspace_id = $1 AND day = $2::date AND dimension = 'all'`,
          [t.workspaceId, day],
        ))[0];
      expect(await rateOf()).toMatchObject({ total_events: 0 });
      expect(Number((await rateOf())?.correction_rate)).toBe(0);
      // The correction happens today: today's events, the old day's correction rate.
      expect((await post('/v1/feedback', { id: 's-e8', responseId: 's-old', type: 'correction', payload: { corrected: 'new answer' } })).statusCode).toBe(202);
      await t.services.pipeline.idle(10_000);
      const rolled = await rollupDirtyDays(t.db);
      expect(rolled).toContainEqual({ workspaceId: t.workspaceId, day });
      expect(Number((await rateOf())?.correction_rate)).toBe(100);
      const snapshot = () =>
        Promise.all(
          ['feedback_metrics_daily', 'feedback_stats_cells', 'feedback_user_stats_daily', 'feedback_issue_counts', 'feedback_issue_counts_weekly'].map((table) =>
            t.db.query(`SELECT * FROM ${table} WHERE workspace_id = $1 ORDER BY 1, 2, 3, 4`, [t.workspaceId]).then((rows) =>
              rows.map((r) => ({ ...(r as Record<string, unknown>), computed_at: undefined })),
            ),
          ),
        );
      const before = await snapshot();
      await t.db.query(`INSERT INTO rollup_dirty (workspace_id, day) VALUES ($1, $2::date), ($1, $3::date) ON CONFLICT DO NOTHING`, [t.workspaceId, day, today()]);
      await rollupDirtyDays(t.db, { workspaceId: t.workspaceId });
      expect(await snapshot()).toEqual(before);
    });

    it('publishes the monitoring rates per workspace on /metrics with FEEDLOOP_METRICS_TOKEN, and no workspace without it', async () => {
      // Issue 22: without a token /metrics is anyone's, so it carries process-wide figures only.
      const open = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(open).not.toContain('workspace=');
      expect(open).not.toContain(t.workspaceId);
      expect(open).not.toContain('feedloop_workspace_');
      expect(open).toMatch(/feedloop_feedback_events_total\{status="accepted",code=""\} [1-9]/);
      // With a token: everything.
      const token = 'metrics-token-for-the-stats-suite';
      const guarded = await startTestApp({ db: t.db, close: async () => undefined }, { FEEDLOOP_METRICS_TOKEN: token });
      try {
        const text = (await guarded.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } })).body;
        for (const name of ['positive_rate', 'correction_rate', 'escalation_rate', 'response_time_ms']) {
          expect(text).toContain(`# TYPE feedloop_workspace_${name} gauge`);
        }
        expect(text).toContain(`feedloop_workspace_correction_rate{workspace="${t.workspaceId}"} 40`);
      } finally {
        await guarded.close();
      }
    });
  });
}
