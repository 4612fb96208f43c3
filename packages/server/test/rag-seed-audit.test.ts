/**
 * Issue 24, the Phase 4.1 seed's own endpoints on both stores: anonymous entries are deduplicated
 * by client (IP and user agent, hashed) within the window, and `FeedbackStats.satisfactionRate`
 * is the seed's `positive / total`, a fraction.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`Phase 4.1 seed endpoints on ${backend.name}`, () => {
    let t: TestApp;
    const entry = (extra: Record<string, unknown> = {}) => ({ queryId: 'rq-1', rating: 'positive', category: 'accuracy', ...extra });
    const submit = (payload: object, ip: string, ua: string) =>
      t.app.inject({ method: 'POST', url: '/api/rag/feedback', remoteAddress: ip, headers: { ...t.auth, 'user-agent': ua }, payload });

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), {}, { worker: true });
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/responses/batch',
        headers: t.auth,
        payload: { responses: [{ id: 'rq-1', query: 'Refund window?', answer: '30 days.' }, { id: 'rq-2', query: 'Hours?', answer: '9-5' }] },
      });
      expect(res.statusCode).toBe(207);
    });
    afterAll(async () => {
      await t.close();
    });

    it('counts two identical anonymous entries from one client once; another client, another entry', async () => {
      const first = await submit(entry(), '203.0.113.7', 'Mozilla/5.0 A');
      expect(first.statusCode).toBe(201);
      const again = await submit(entry(), '203.0.113.7', 'Mozilla/5.0 A');
      expect({ status: again.statusCode, outcome: again.json().status }).toEqual({ status: 200, outcome: 'duplicate' });
      // Same IP, another browser; and another IP with the first browser: other clients.
      expect((await submit(entry(), '203.0.113.7', 'Mozilla/5.0 B')).statusCode).toBe(201);
      expect((await submit(entry(), '198.51.100.4', 'Mozilla/5.0 A')).statusCode).toBe(201);
      // A named user is its own identity, whatever the client.
      expect((await submit(entry({ userId: 'anon-9' }), '203.0.113.7', 'Mozilla/5.0 A')).statusCode).toBe(201);
      // Neither the IP nor the user agent is stored in clear.
      const rows = await t.db.query<{ row: string; duplicate: boolean }>(
        `SELECT row_to_json(e)::text AS row, e.duplicate_of IS NOT NULL AS duplicate FROM feedback_events e WHERE workspace_id = $1`,
        [t.workspaceId],
      );
      // The duplicate is kept in the log, marked, and never counted.
      expect(rows.filter((r) => !r.duplicate).length).toBe(4);
      expect(rows.filter((r) => r.duplicate).length).toBe(1);
      for (const r of rows) expect(r.row).not.toMatch(/203\.0\.113\.7|Mozilla/);
    });

    it('answers FeedbackStats.satisfactionRate as the seed defines it: positive / total, a fraction', async () => {
      await submit({ queryId: 'rq-2', rating: 'negative', category: 'accuracy', userId: 'n1' }, '192.0.2.1', 'x');
      await submit({ queryId: 'rq-2', rating: 'negative', userId: 'n2' }, '192.0.2.1', 'x');
      await submit({ queryId: 'rq-2', rating: 'negative', userId: 'n3' }, '192.0.2.1', 'x');
      await t.services.pipeline.idle(20_000);
      const body = (await t.app.inject({ method: 'GET', url: '/api/rag/feedback/stats', headers: t.auth })).json();
      expect(body).toMatchObject({ total: 7, positive: 4, negative: 3 });
      // Figures are rounded at the edge to 6 significant digits (issue 23).
      expect(body.satisfactionRate).toBeCloseTo(4 / 7, 6);
      // feedloop's own /v1 keeps its documented percentages.
      expect((await t.app.inject({ method: 'GET', url: '/v1/stats', headers: t.auth })).json().satisfactionRate).toBeCloseTo(57.14, 2);
    });
  });
}
