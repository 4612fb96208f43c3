/**
 * Issue 26: retracting feedback (`DELETE /v1/feedback/:eventId`, `IngestService.retractFeedback`)
 * on both stores: the event stays on record marked retracted, the pipeline reverses what it
 * counted (stats, live counters, the response's score, the response list's tags, user memory),
 * the audit log records it once, a repeat changes nothing, an unknown id is a coded 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollupDirtyDays } from '../src/pipeline/rollup.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`feedback retraction on ${backend.name}`, () => {
    let t: TestApp;
    const post = (url: string, payload: unknown) => t.app.inject({ method: 'POST', url, headers: t.auth, payload: payload as object });
    const get = (url: string, headers: Record<string, string> = t.auth) => t.app.inject({ method: 'GET', url, headers });
    const del = (url: string, headers: Record<string, string> = t.auth) => t.app.inject({ method: 'DELETE', url, headers });
    const settle = async () => {
      await t.services.pipeline.idle(10_000);
      await rollupDirtyDays(t.db, { workspaceId: t.workspaceId });
    };
    const signal = async (id: string) =>
      (await t.db.query<{ status: string; drop_reason: string | null }>('SELECT status, drop_reason FROM feedback_signals WHERE workspace_id = $1 AND event_id = $2', [t.workspaceId, id]))[0];

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), {}, { worker: true });
      const res = await post('/v1/responses/batch', {
        responses: [
          { id: 'x-r1', query: 'q1', answer: 'a1', agent: 'sql' },
          { id: 'x-r2', query: 'q2', answer: 'a2', agent: 'sql' },
          { id: 'x-r3', query: 'q3', answer: 'a3' },
        ],
      });
      expect(res.statusCode).toBe(207);
      const sent = await post('/v1/feedback/batch', {
        events: [
          { id: 'x-down', responseId: 'x-r1', type: 'thumbs_down', userId: 'u1', payload: { category: 'accuracy', comment: 'wrong' } },
          { id: 'x-up', responseId: 'x-r1', type: 'thumbs_up', userId: 'u2' },
          { id: 'x-up2', responseId: 'x-r2', type: 'thumbs_up', userId: 'u2' },
        ],
      });
      expect(sent.json().results.map((r: { status: string }) => r.status)).toEqual(['accepted', 'accepted', 'accepted']);
      await settle();
    });
    afterAll(async () => {
      await t.close();
    });

    it('takes a retracted thumbs_down out of GET /v1/stats, the live counters, the score and the tags, keeping it on record', async () => {
      const before = (await get('/v1/stats')).json();
      expect(before).toMatchObject({ positive: 2, negative: 1 });
      const liveBefore = (await get('/v1/stats/live')).json();
      expect((await get('/v1/exports/learning-signals')).body).toContain('x-down');
      expect((await get('/v1/responses/x-r1')).json().quality.score).toBeLessThan(1);
      expect((await get('/v1/responses?rating=negative')).json().data.map((r: { id: string }) => r.id)).toEqual(['x-r1']);

      const res = await del('/v1/feedback/x-down?reason=clicked%20by%20mistake');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ id: 'x-down', responseId: 'x-r1', type: 'thumbs_down', status: 'retracted', reason: 'clicked by mistake' });
      await settle();

      const after = (await get('/v1/stats')).json();
      expect(after).toMatchObject({ positive: 2, negative: 0, satisfactionRate: 100 });
      const liveAfter = (await get('/v1/stats/live')).json();
      expect(liveAfter.byPolarity.negative).toBe(liveBefore.byPolarity.negative - 1);
      expect(liveAfter.bySeverity.medium ?? 0).toBe((liveBefore.bySeverity.medium ?? 0) - 1);
      expect(liveAfter.dropped).toBe(liveBefore.dropped + 1);
      expect(liveAfter.total).toBe(liveBefore.total);
      // x-r1 now holds one thumbs up, as x-r2 does: the same score.
      const r1 = (await get('/v1/responses/x-r1')).json();
      const r2 = (await get('/v1/responses/x-r2')).json();
      expect(r1.quality.score).toBe(r2.quality.score);
      expect(r1.quality.signalCount).toBe(1);
      expect((await get('/v1/responses?rating=negative')).json().data).toEqual([]);
      const exported = (await get('/v1/exports/learning-signals')).body;
      expect(exported).toContain('x-up');
      expect(exported).not.toContain('x-down');
      // On record, marked.
      expect(await signal('x-down')).toEqual({ status: 'dropped', drop_reason: 'retracted' });
      const listed = (await get('/v1/feedback?responseId=x-r1')).json().data.find((e: { id: string }) => e.id === 'x-down');
      expect(listed.retracted).toEqual({ at: res.json().retractedAt, reason: 'clicked by mistake' });
      expect(r1.feedback.map((f: { id: string }) => f.id)).toContain('x-down');
    });

    it('is idempotent, and the audit log records it once', async () => {
      const again = await del('/v1/feedback/x-down');
      expect(again.statusCode).toBe(200);
      expect(again.json()).toMatchObject({ id: 'x-down', status: 'already_retracted', reason: 'clicked by mistake' });
      await settle();
      expect((await get('/v1/stats')).json()).toMatchObject({ positive: 2, negative: 0 });
      const audit = (await get('/v1/audit?action=feedback.retracted')).json();
      expect(audit.entries).toHaveLength(1);
      expect(audit.entries[0]).toMatchObject({ action: 'feedback.retracted', details: { eventId: 'x-down', responseId: 'x-r1', type: 'thumbs_down', reason: 'clicked by mistake' } });
      expect(audit.entries[0].actorKeyId).toEqual(expect.any(String));
    });

    it('lets the user vote again after a retraction, and counts the new vote', async () => {
      const vote = await post('/v1/feedback', { id: 'x-down2', responseId: 'x-r1', type: 'thumbs_down', userId: 'u1', payload: { category: 'accuracy', comment: 'wrong' } });
      expect(vote.json()).toEqual({ id: 'x-down2', status: 'accepted' });
      await settle();
      expect((await get('/v1/stats')).json()).toMatchObject({ positive: 2, negative: 1 });
      expect(await signal('x-down2')).toMatchObject({ status: 'counted' });
    });

    it('retracts an event the pipeline has not processed yet: it never counts', async () => {
      const before = (await get('/v1/stats/live')).json();
      // The retraction lands between the commit and the processing on the same event loop turn.
      const [sent, gone] = await Promise.all([
        post('/v1/feedback', { id: 'x-fast', responseId: 'x-r3', type: 'thumbs_down', userId: 'u3' }),
        (async () => {
          for (;;) {
            const r = await del('/v1/feedback/x-fast');
            if (r.statusCode !== 404) return r;
          }
        })(),
      ]);
      expect(sent.statusCode).toBe(202);
      expect(gone.statusCode).toBe(200);
      await settle();
      expect(await signal('x-fast')).toMatchObject({ status: 'dropped' });
      const after = (await get('/v1/stats/live')).json();
      expect(after.byPolarity.negative).toBe(before.byPolarity.negative);
      expect((await get('/v1/stats')).json()).toMatchObject({ negative: 1 });
    });

    it('takes a retracted event out of user memory', async () => {
      const context = async () => (await get('/v1/users/u5/context?explain=true')).json() as { items: Array<{ key: string; value: string; eventIds?: string[] }> };
      for (const i of [1, 2]) {
        expect((await post('/v1/responses', { id: `x-m${i}`, query: 'q', answer: 'a', userId: 'u5' })).statusCode).toBe(201);
        expect((await post('/v1/feedback', { id: `x-mem${i}`, responseId: `x-m${i}`, userId: 'u5', type: 'error_categories', payload: { categories: ['hallucination'] } })).statusCode).toBe(202);
      }
      await settle();
      const item = () => context().then((c) => c.items.find((x) => x.key === 'category' && x.value === 'hallucination'));
      expect((await item())?.eventIds?.sort()).toEqual(['x-mem1', 'x-mem2']);
      expect((await del('/v1/feedback/x-mem2')).statusCode).toBe(200);
      await settle();
      // One event left is not a rule.
      expect(await item()).toBeUndefined();
    });

    it('answers an unknown id, or another workspace\'s event, 404 with a code; public keys may not retract', async () => {
      const missing = await del('/v1/feedback/nope');
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_FEEDBACK_NOT_FOUND', field: 'eventId' });
      const other = await t.otherWorkspace();
      const foreign = await del('/v1/feedback/x-up', { authorization: `Bearer ${other.secretKey}` });
      expect(foreign.statusCode).toBe(404);
      const pub = await del('/v1/feedback/x-up', { authorization: `Bearer ${t.publicKey}` });
      expect(pub.statusCode).toBe(403);
      const bad = await del('/v1/feedback/x-up?reason=');
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.field).toBe('reason');
      const rows = await t.db.query('SELECT 1 FROM feedback_events WHERE workspace_id = $1 AND id = $2 AND retracted_at IS NOT NULL', [t.workspaceId, 'x-up']);
      expect(rows).toEqual([]);
    });
  });
}
