/**
 * Issue 24, the RLHF seed's fields on both stores: a learning signal's `context` carries
 * `schema_tables` (the tables its SQL answer or correction touches) and `tenant_id`; the insights
 * aggregate SQL corrections per schema table, agent and query type.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const CORRECTED = "SELECT s.* FROM sales s JOIN regions r ON r.id = s.region_id WHERE r.name = 'US'";

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`RLHF seed fields on ${backend.name}`, () => {
    let t: TestApp;
    const post = (url: string, payload: object) => t.app.inject({ method: 'POST', url, headers: t.auth, payload });
    const signals = async () =>
      (await t.app.inject({ method: 'GET', url: '/v1/exports/learning-signals', headers: t.auth })).body
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { signal_type: string; context: Record<string, unknown> });

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), {}, { worker: true });
      const res = await post('/v1/responses/batch', {
        responses: [
          { id: 'resp-001', query: 'What were sales last month?', answer: 'SELECT * FROM sales', agent: 'sql-agent', queryType: 'analytics' },
          { id: 'resp-002', query: 'Top customers?', answer: 'SELECT name FROM customers ORDER BY revenue DESC LIMIT 5', agent: 'sql-agent', queryType: 'ranking' },
          { id: 'resp-txt', query: 'Hello?', answer: 'Hi there.', agent: 'chat' },
        ],
      });
      expect(res.statusCode).toBe(207);
      expect(
        (
          await post('/api/v1/feedback/correction', {
            event_id: 'fb-abc123',
            tenant_id: 'acme-corp',
            user_id: 'user-456',
            response_id: 'resp-001',
            data: { original_sql: 'SELECT * FROM sales', corrected_sql: CORRECTED, comment: 'Need to filter by US region' },
          })
        ).statusCode,
      ).toBe(202);
      expect((await post('/api/v1/feedback/correction', { event_id: 'fb-2', user_id: 'user-7', response_id: 'resp-002', data: { corrected_sql: 'SELECT name FROM customers ORDER BY revenue DESC LIMIT 10' } })).statusCode).toBe(202);
      expect((await post('/v1/feedback', { id: 'fb-down', responseId: 'resp-001', type: 'thumbs_down', userId: 'user-9' })).statusCode).toBe(202);
      expect((await post('/v1/feedback', { id: 'fb-up', responseId: 'resp-txt', type: 'thumbs_up', userId: 'user-9' })).statusCode).toBe(202);
      await t.services.pipeline.idle(20_000);
    }, 60_000);
    afterAll(async () => {
      await t?.close();
    });

    it("puts schema_tables and tenant_id in the learning signal's context, as the seed's example", async () => {
      const all = await signals();
      const byEvent = new Map(all.map((s) => [s.context.event_id as string, s]));
      expect(byEvent.get('fb-abc123')).toMatchObject({ signal_type: 'sql_correction', context: { schema_tables: ['regions', 'sales'], tenant_id: 'acme-corp' } });
      expect(byEvent.get('fb-down')?.context).toMatchObject({ schema_tables: ['sales'], tenant_id: null });
      expect(byEvent.get('fb-up')?.context).toMatchObject({ schema_tables: [], tenant_id: null });
      expect(byEvent.get('fb-2')?.context).toMatchObject({ schema_tables: ['customers'] });
    });

    // Stored compact (store/stored-learning-signal.ts), read whole: the row's columns and the defaults come back.
    it('stores only what the signal row lacks, and reads the whole context back', async () => {
      const stored = new Map(
        (await t.db.query<{ event_id: string; learning_signal: Record<string, unknown> }>('SELECT event_id, learning_signal FROM feedback_signals WHERE workspace_id = $1', [t.workspaceId])).map((r) => [
          r.event_id,
          r.learning_signal,
        ]),
      );
      expect(stored.get('fb-up')).toEqual({ signal_type: 'thumbs_up', expected_output: null, reward: 1, context: { agent: 'chat' } });
      expect(stored.get('fb-abc123')?.context).toEqual({ agent: 'sql-agent', query_type: 'analytics', schema_tables: ['regions', 'sales'], tenant_id: 'acme-corp' });
      const down = (await signals()).find((s) => s.context.event_id === 'fb-down');
      expect(down?.context).toEqual({
        workspace_id: t.workspaceId,
        response_id: 'resp-001',
        event_id: 'fb-down',
        event_type: 'thumbs_down',
        session_id: null,
        user_id: 'user-9',
        model: null,
        agent: 'sql-agent',
        query_type: 'analytics',
        experiment_id: null,
        variant: null,
        context_document_ids: [],
        polarity: 'negative',
        severity: expect.any(String),
        categories: [],
        schema_tables: ['sales'],
        tenant_id: null,
      });
      const [row] = await t.db.query<{ severity: string }>('SELECT severity FROM feedback_signals WHERE workspace_id = $1 AND event_id = $2', [t.workspaceId, 'fb-down']);
      expect(down?.context.severity).toBe(row?.severity);
    });

    it('reads a signal stored whole (before the compact form) as it was stored', async () => {
      const whole = { workspace_id: t.workspaceId, response_id: 'resp-txt', event_id: 'fb-up', event_type: 'thumbs_up', session_id: 's-old', user_id: 'user-9', model: 'old-model', agent: 'chat', query_type: null, experiment_id: null, variant: null, context_document_ids: ['d-1'], polarity: 'positive', severity: 'none', categories: [], schema_tables: [], tenant_id: 't-old' };
      await t.db.query(`UPDATE feedback_signals SET learning_signal = $3::jsonb WHERE workspace_id = $1 AND event_id = $2`, [
        t.workspaceId,
        'fb-up',
        JSON.stringify({ signal_type: 'thumbs_up', expected_output: null, reward: 1, context: whole }),
      ]);
      expect((await signals()).find((s) => s.context.event_id === 'fb-up')?.context).toEqual(whole);
    });

    it('aggregates SQL corrections per schema table, agent and query type', async () => {
      const body = (await t.app.inject({ method: 'GET', url: '/v1/insights', headers: t.auth })).json();
      const { bySchemaTable, byAgent, byQueryType } = body.correctionPatterns;
      const row = (list: Array<{ name: string; corrections: number }>, name: string) => list.find((x) => x.name === name);
      expect(row(bySchemaTable, 'sales')).toMatchObject({ name: 'sales', corrections: 1 });
      expect((row(bySchemaTable, 'sales') as unknown as { kinds: Array<{ kind: string }> }).kinds.map((k) => k.kind)).toEqual(expect.arrayContaining(['join_added', 'filter_added']));
      expect(row(bySchemaTable, 'regions')).toMatchObject({ corrections: 1 });
      expect(row(bySchemaTable, 'customers')).toMatchObject({ corrections: 1, kinds: [{ kind: 'limit_changed', count: 1 }] });
      expect(row(byAgent, 'sql-agent')).toMatchObject({ corrections: 2 });
      expect(byQueryType.map((x: { name: string }) => x.name).sort()).toEqual(['analytics', 'ranking']);
      expect((bySchemaTable as Array<{ name: string; events: { sample: string[] } }>).find((x) => x.name === 'sales')?.events.sample).toEqual(['fb-abc123']);
    });
  });
}
