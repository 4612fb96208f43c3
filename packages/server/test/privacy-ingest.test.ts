import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`privacy at ingest on ${backend.name}`, () => {
    let t: TestApp;
    const req = (method: 'POST' | 'PATCH' | 'GET', url: string, payload?: object) =>
      t.app.inject({ method, url, headers: t.auth, ...(payload ? { payload } : {}) });

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), {}, { worker: true });
    });
    afterAll(async () => {
      await t?.close();
    });

    it('stores the query as sent, as its SHA-256, or redacted, as the workspace asks', async () => {
      const query = 'Why was ana@example.com charged on 4111 1111 1111 1111?';
      await req('PATCH', '/v1/workspace/settings', { queryPrivacy: 'sha256' });
      await req('POST', '/v1/responses', { id: 'qp-1', query, answer: 'a' });
      await req('PATCH', '/v1/workspace/settings', { queryPrivacy: 'redacted' });
      await req('POST', '/v1/responses', { id: 'qp-2', query, answer: 'mail ana@example.com' });
      await req('PATCH', '/v1/workspace/settings', { queryPrivacy: 'text', redactPii: true, redactionPatterns: [{ name: 'account', pattern: 'ACC-\\d{6}' }] });
      await req('POST', '/v1/responses', { id: 'qp-3', query: `${query} ACC-123456`, answer: 'mail ana@example.com', metadata: { ip: '203.0.113.9' } });
      await req('POST', '/v1/feedback', { id: 'qp-e1', responseId: 'qp-3', type: 'comment', userId: 'u1', payload: { comment: 'call me: +44 20 7946 0958' } });
      const rows = await t.db.query<{ id: string; query: string; answer: string; metadata: unknown }>(
        "SELECT id, query, answer, metadata FROM responses WHERE workspace_id = $1 AND id LIKE 'qp-%' ORDER BY id",
        [t.workspaceId],
      );
      expect(rows[0]?.query).toBe(`sha256:${createHash('sha256').update(query).digest('hex')}`);
      expect(rows[1]).toMatchObject({ query: 'Why was [REDACTED:email] charged on [REDACTED:card]?', answer: 'mail ana@example.com' });
      expect(rows[2]).toMatchObject({
        query: 'Why was [REDACTED:email] charged on [REDACTED:card]? [REDACTED:account]',
        answer: 'mail [REDACTED:email]',
        metadata: { ip: '[REDACTED:ip]' },
      });
      const [event] = await t.db.query<{ payload: { comment: string } }>('SELECT payload FROM feedback_events WHERE workspace_id = $1 AND id = $2', [t.workspaceId, 'qp-e1']);
      expect(event?.payload.comment).toBe('call me: [REDACTED:phone]');
      // A bad pattern is refused and changes nothing.
      const bad = await req('PATCH', '/v1/workspace/settings', { redactionPatterns: [{ name: 'x', pattern: '(' }] });
      expect(bad.statusCode).toBe(400);
      await req('PATCH', '/v1/workspace/settings', { redactPii: false });
    });

    it('samples implicit signals at implicitSampleRate, keeps explicit feedback whole, and weights what it keeps', async () => {
      await req('PATCH', '/v1/workspace/settings', { implicitConsent: 'assumed', implicitSampleRate: 0.25 });
      await req('POST', '/v1/responses', { id: 'sm-r', query: 'q', answer: 'a', agent: 'sampled' });
      const events = Array.from({ length: 800 }, (_, i) =>
        i % 2 === 0
          ? { id: `sm-${i}`, responseId: 'sm-r', type: 'implicit_accept', userId: `u${i}`, payload: { action: 'copied' } }
          : { id: `sm-${i}`, responseId: 'sm-r', type: 'thumbs_up', userId: `u${i}` },
      );
      const res = await req('POST', '/v1/feedback/batch', { events });
      const statuses = (res.json().results as Array<{ status: string }>).map((r) => r.status);
      const implicitStatuses = statuses.filter((_, i) => i % 2 === 0);
      expect(statuses.filter((_, i) => i % 2 === 1).every((s) => s === 'accepted')).toBe(true);
      const kept = implicitStatuses.filter((s) => s === 'accepted').length;
      expect(implicitStatuses.filter((s) => s === 'sampled').length).toBe(400 - kept);
      // 400 draws at 0.25: 100 expected, sd 8.7.
      expect(kept).toBeGreaterThan(65);
      expect(kept).toBeLessThan(135);
      // The same ids again get the same answers (the decision is a hash of the id).
      const again = await req('POST', '/v1/feedback/batch', { events: events.filter((_, i) => i % 2 === 0) });
      expect((again.json().results as Array<{ status: string }>).map((r) => (r.status === 'duplicate' ? 'accepted' : r.status))).toEqual(implicitStatuses);
      const weights = await t.db.query<{ w: number }>("SELECT DISTINCT sample_weight AS w FROM feedback_events WHERE workspace_id = $1 AND type = 'implicit_accept'", [t.workspaceId]);
      expect(weights.map((w) => w.w)).toEqual([4]);
      await t.services.pipeline.idle(90_000);
      const agg = (await req('GET', '/v1/aggregates?groupBy=agent')).json();
      const group = agg.groups.find((g: { group: string }) => g.group === 'sampled');
      // The estimate of implicit signals is kept x 4; explicit counts are exact.
      expect(group).toMatchObject({ implicit: kept * 4, positive: 400 });
    }, 120_000);
  });
}
