import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollupDirtyDays } from '../src/pipeline/rollup.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`pipeline on ${backend.name} (in-process queue)`, () => {
    let t: TestApp;
    const post = (url: string, payload: unknown) => t.app.inject({ method: 'POST', url, headers: t.auth, payload: payload as object });
    const get = (url: string) => t.app.inject({ method: 'GET', url, headers: t.auth });
    const signalsOf = (ids: string[]) =>
      t.db.query<{ event_id: string; status: string; polarity: string | null; value: number | null; drop_reason: string | null; error: string | null }>(
        'SELECT event_id, status, polarity, value, drop_reason, error FROM feedback_signals WHERE workspace_id = $1 AND event_id = ANY($2::text[]) ORDER BY event_id',
        [t.workspaceId, ids],
      );

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), {}, { worker: true });
      const res = await post('/v1/responses/batch', {
        responses: [
          { id: 'p-r1', query: 'sales last month?', answer: 'SELECT * FROM sales', contextDocumentIds: ['doc-a', 'doc-b'], model: 'm1', agent: 'sql', variant: 'B', experimentId: 'exp1' },
          { id: 'p-r2', query: 'top customers?', answer: 'SELECT name FROM customers', contextDocumentIds: ['doc-a'], model: 'm1', agent: 'sql' },
          { id: 'p-r3', query: 'churn?', answer: 'It is 4 %.', sessionId: 's-3' },
        ],
      });
      expect(res.statusCode).toBe(207);
    });
    afterAll(async () => {
      await t.close();
    });

    it('processes each committed event once: signals, counters, score, documents, learning signals', async () => {
      const sent = await post('/v1/feedback/batch', {
        events: [
          { id: 'p-e1', responseId: 'p-r1', type: 'thumbs_up', userId: 'u1' },
          { id: 'p-e2', responseId: 'p-r1', type: 'correction', userId: 'u2', payload: { corrected: "SELECT * FROM sales WHERE region = 'US'", format: 'sql' } },
          { id: 'p-e3', responseId: 'p-r2', type: 'escalation', userId: 'u3', sessionId: 's-9' },
          { id: 'p-e4', responseId: 'p-r3', type: 'rating', userId: 'u1', payload: { rating: 5 } },
        ],
      });
      expect(sent.statusCode).toBe(207);
      await t.services.pipeline.idle(10_000);

      const signals = await signalsOf(['p-e1', 'p-e2', 'p-e3', 'p-e4']);
      expect(signals.map((s) => [s.event_id, s.status, s.polarity])).toEqual([
        ['p-e1', 'counted', 'positive'],
        ['p-e2', 'counted', 'negative'],
        ['p-e3', 'counted', 'negative'],
        ['p-e4', 'counted', 'positive'],
      ]);
      const pending = await t.db.query('SELECT 1 FROM pipeline_pending WHERE workspace_id = $1', [t.workspaceId]);
      expect(pending).toHaveLength(0);

      const live = (await get('/v1/stats/live')).json();
      expect(live.total).toBe(4);
      expect(live.byType).toMatchObject({ thumbs_up: 1, correction: 1, escalation: 1, rating: 1 });
      expect(live.byPolarity).toEqual({ positive: 2, negative: 2, neutral: 0 });
      expect(live.bySeverity.high).toBe(1);

      const r1 = (await get('/v1/responses/p-r1')).json();
      expect(r1.quality.signalCount).toBe(2);
      const correction = r1.learningSignals.find((s: { eventId: string }) => s.eventId === 'p-e2');
      // Weighted mean: thumbs up (weight 1.0, value 1) and the correction (1.5, its reward).
      expect(r1.quality.score).toBeCloseTo((1 + 1.5 * correction.reward) / 2.5, 3);
      expect(correction).toMatchObject({
        signal_type: 'sql_correction',
        input: 'sales last month?',
        expected_output: "SELECT * FROM sales WHERE region = 'US'",
        actual_output: 'SELECT * FROM sales',
      });
      expect(correction.reward).toBeLessThan(-0.25);
      expect(correction.context).toMatchObject({ model: 'm1', agent: 'sql', variant: 'B', experiment_id: 'exp1', response_id: 'p-r1' });

      const docs = await t.db.query<{ document_id: string; positive: number; negative: number }>(
        'SELECT document_id, positive, negative FROM document_effectiveness WHERE workspace_id = $1 ORDER BY document_id',
        [t.workspaceId],
      );
      expect(docs).toEqual([
        { document_id: 'doc-a', positive: 1, negative: 2 },
        { document_id: 'doc-b', positive: 1, negative: 1 },
      ]);
    });

    it('a replayed job changes nothing', async () => {
      const before = (await get('/v1/stats/live')).json();
      const report = await t.services.pipeline.process([
        [t.workspaceId, 'p-e1'],
        [t.workspaceId, 'p-e2'],
      ]);
      expect(report.claimed).toBe(0);
      expect((await get('/v1/stats/live')).json()).toEqual(before);
    });

    it('drops a replaced vote from the score but keeps it on record', async () => {
      const now = Date.now();
      await post('/v1/feedback', { id: 'p-v1', responseId: 'p-r3', type: 'thumbs_down', userId: 'u7', occurredAt: new Date(now - 30_000).toISOString() });
      await post('/v1/feedback', { id: 'p-v2', responseId: 'p-r3', type: 'thumbs_up', userId: 'u7', occurredAt: new Date(now - 10_000).toISOString() });
      await t.services.pipeline.idle(10_000);
      const r3 = (await get('/v1/responses/p-r3')).json();
      // rating 5 (u1) and the current thumbs up (u7): both positive, the replaced thumbs down left out.
      expect(r3.quality.signalCount).toBe(2);
      expect(r3.quality.score).toBe(1);
    });

    it('records a conflict when a user praises a response and then rewrites it', async () => {
      const now = Date.now();
      await post('/v1/responses', { id: 'p-r4', query: 'q', answer: 'The quarterly revenue grew by four percent.' });
      await post('/v1/feedback', { id: 'p-c1', responseId: 'p-r4', type: 'thumbs_up', userId: 'u8', occurredAt: new Date(now - 20_000).toISOString() });
      await post('/v1/feedback', {
        id: 'p-c2',
        responseId: 'p-r4',
        type: 'edit',
        userId: 'u8',
        occurredAt: new Date(now - 5_000).toISOString(),
        payload: { edited: 'Revenue fell 2 % in Q3, driven by EMEA.' },
      });
      await t.services.pipeline.idle(10_000);
      const r4 = (await get('/v1/responses/p-r4')).json();
      expect(r4.quality.conflicts).toEqual([
        { kind: 'positive_then_heavy_edit', userId: 'u8', earlierEventId: 'p-c1', laterEventId: 'p-c2', resolution: 'later_wins' },
      ]);
      expect(r4.quality.score).toBeLessThan(0.5);
    });

    it('marks content duplicates dropped and moves a poison event aside without blocking the rest', async () => {
      const base = { responseId: 'p-r2', type: 'thumbs_down', userId: 'u5', payload: { comment: 'wrong join' } };
      expect((await post('/v1/feedback', { ...base, id: 'p-d1' })).json().status).toBe('accepted');
      expect((await post('/v1/feedback', { ...base, id: 'p-d2' })).json().status).toBe('duplicate');
      // An event whose response is gone cannot be enriched: a poison event.
      await t.db.query(
        `INSERT INTO feedback_events (workspace_id, id, response_id, type, source, payload, occurred_at, received_at)
         VALUES ($1, 'p-poison', 'no-such-response', 'thumbs_up', 'explicit', '{}', now(), now())`,
        [t.workspaceId],
      );
      await t.db.query(
        `INSERT INTO feedback_event_ids (workspace_id, id, received_at, seq)
         SELECT workspace_id, id, received_at, seq FROM feedback_events WHERE workspace_id = $1 AND id = 'p-poison'`,
        [t.workspaceId],
      );
      await t.db.query(
        `INSERT INTO pipeline_pending (workspace_id, event_id, seq, received_at)
         SELECT workspace_id, id, seq, received_at FROM feedback_event_ids WHERE workspace_id = $1 AND id = 'p-poison'`,
        [t.workspaceId],
      );
      await post('/v1/feedback', { id: 'p-after', responseId: 'p-r2', type: 'thumbs_up', userId: 'u6' });
      await t.services.pipeline.process([
        [t.workspaceId, 'p-poison'],
        [t.workspaceId, 'p-after'],
      ]);
      await t.services.pipeline.idle(10_000);
      const rows = await signalsOf(['p-d1', 'p-d2', 'p-poison', 'p-after']);
      expect(rows.map((r) => [r.event_id, r.status, r.drop_reason])).toEqual([
        ['p-after', 'counted', null],
        ['p-d1', 'counted', null],
        ['p-d2', 'dropped', 'duplicate'],
        ['p-poison', 'failed', null],
      ]);
      expect(rows.find((r) => r.event_id === 'p-poison')?.error).toMatch(/no-such-response/);
      // Nothing is left for the sweep (and on PGlite it vacuums the outboxes without trouble).
      expect(await t.services.pipeline.sweep()).toEqual({ requeued: 0, effects: 0, deliveries: 0 });
      const status = (await get('/v1/pipeline')).json();
      expect(status.failedEvents.map((f: { eventId: string }) => f.eventId)).toContain('p-poison');
      expect(status.backlog.pending).toBe(0);
    });

    it('rolls up days idempotently, per dimension', async () => {
      await rollupDirtyDays(t.db, { workspaceId: t.workspaceId });
      const read = () =>
        t.db.query<{ dimension: string; dimension_value: string; total_events: number; correction_rate: string | null; escalation_rate: string | null }>(
          `SELECT dimension, dimension_value, total_events, correction_rate, escalation_rate FROM feedback_metrics_daily
            WHERE workspace_id = $1 ORDER BY dimension, dimension_value`,
          [t.workspaceId],
        );
      const first = await read();
      const all = first.find((r) => r.dimension === 'all');
      const counted = await t.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM feedback_signals s JOIN feedback_events e ON e.workspace_id = s.workspace_id AND e.id = s.event_id
          WHERE s.workspace_id = $1 AND s.status = 'counted' AND e.superseded_by IS NULL`,
        [t.workspaceId],
      );
      expect(all?.total_events).toBe(counted[0]?.n);
      expect(first.find((r) => r.dimension === 'agent' && r.dimension_value === 'sql')).toBeDefined();
      expect(first.find((r) => r.dimension === 'variant' && r.dimension_value === 'exp1/B')).toBeDefined();
      // Re-running changes nothing; marking the day dirty again recomputes the same rows.
      await t.db.query(`INSERT INTO rollup_dirty (workspace_id, day) VALUES ($1, (now() AT TIME ZONE 'UTC')::date) ON CONFLICT DO NOTHING`, [t.workspaceId]);
      await rollupDirtyDays(t.db, { workspaceId: t.workspaceId });
      expect(await read()).toEqual(first);
    });

    it('a late event updates its own day', async () => {
      const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
      await post('/v1/responses', { id: 'p-old', query: 'q', answer: 'a', createdAt: new Date(twoDaysAgo.getTime() - 60_000).toISOString() });
      await t.db.query(`UPDATE workspaces SET settings = settings || '{"feedbackWindowHours": 100}' WHERE id = $1`, [t.workspaceId]);
      t.services.keys.clear();
      const liveBefore = (await get('/v1/stats/live')).json();
      const res = await post('/v1/feedback', { id: 'p-late', responseId: 'p-old', type: 'thumbs_up', occurredAt: twoDaysAgo.toISOString() });
      expect(res.json().status).toBe('accepted');
      await t.services.pipeline.idle(10_000);
      // The live counters count it under its own day (occurredAt), the rollups' day rule: today's
      // card does not grow with an import or a late flush.
      const liveAfter = (await get('/v1/stats/live')).json();
      expect(liveAfter.total).toBe(liveBefore.total);
      expect(liveAfter.dayBasis).toBe('occurredAt');
      const liveThen = (await get(`/v1/stats/live?day=${twoDaysAgo.toISOString().slice(0, 10)}`)).json();
      expect(liveThen.total).toBe(1);
      expect(liveThen.byPolarity.positive).toBe(1);
      const days = await rollupDirtyDays(t.db);
      const day = twoDaysAgo.toISOString().slice(0, 10);
      expect(days).toContainEqual({ workspaceId: t.workspaceId, day });
      const [row] = await t.db.query<{ positive_ratings: number }>(
        `SELECT positive_ratings FROM feedback_metrics_daily WHERE workspace_id = $1 AND day = $2::date AND dimension = 'all'`,
        [t.workspaceId, day],
      );
      expect(row?.positive_ratings).toBe(1);
    });
  });
}
