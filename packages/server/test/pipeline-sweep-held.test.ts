/**
 * With the in-process queue on PGlite, the sweep leaves alone the events this process already
 * holds (gathered, queued or being processed): on a large backlog it re-queued every event that
 * waited longer than its grace, each then an empty claim. An event no job holds is still
 * re-queued. On PGlite the sweep only reads the outbox (the held set is its lease). On Postgres it
 * re-queues them all, with a lease (its SKIP LOCKED claims can pass over a held one).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const EVENTS = 300;

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`the sweep and the in-process queue on ${backend.name}`, () => {
    let t: TestApp;
    const post = (url: string, payload: unknown) => t.app.inject({ method: 'POST', url, headers: t.auth, payload: payload as object });

    beforeAll(async () => {
      // No worker yet: the queued jobs wait, as a backlog's do while the jobs ahead of them run.
      // Grace 0: every pending event is old enough for the sweep.
      t = await startTestApp(await backend.open(), { FEEDLOOP_SWEEP_GRACE_SECONDS: '0', FEEDLOOP_SWEEP_INTERVAL_SECONDS: '3600' });
      expect((await post('/v1/responses/batch', { responses: [{ id: 'sh-r1', query: 'q', answer: 'a' }] })).statusCode).toBe(207);
    });
    afterAll(async () => {
      await t.close();
    });

    it('re-queues the event no job holds, and on PGlite only that one; each is processed once', async () => {
      const events = Array.from({ length: EVENTS }, (_, i) => ({ id: `sh-e${i}`, responseId: 'sh-r1', type: i % 2 ? 'thumbs_up' : 'thumbs_down', userId: `sh-u${i}` }));
      expect((await post('/v1/feedback/batch', { events })).statusCode).toBe(207);
      // Committed without this process knowing (another process, or before a restart): no job holds it.
      await t.db.query(
        `INSERT INTO feedback_events (workspace_id, id, response_id, type, source, user_id, payload, occurred_at, received_at)
         VALUES ($1, 'sh-unheld', 'sh-r1', 'thumbs_up', 'explicit', 'sh-unheld', '{}', now(), now())`,
        [t.workspaceId],
      );
      await t.db.query(`INSERT INTO feedback_event_ids (workspace_id, id, received_at, seq) SELECT workspace_id, id, received_at, seq FROM feedback_events WHERE workspace_id = $1 AND id = 'sh-unheld'`, [
        t.workspaceId,
      ]);
      await t.db.query(`INSERT INTO pipeline_pending (workspace_id, event_id, seq, received_at) SELECT workspace_id, id, seq, received_at FROM feedback_event_ids WHERE workspace_id = $1 AND id = 'sh-unheld'`, [
        t.workspaceId,
      ]);
      const pending = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM pipeline_pending WHERE workspace_id = $1', [t.workspaceId]))[0]?.n;
      expect(await pending()).toBe(EVENTS + 1);

      const newest = async () => (await t.db.query<{ at: string }>('SELECT max(created_at)::text AS at FROM pipeline_pending WHERE workspace_id = $1', [t.workspaceId]))[0]?.at ?? '';
      const before = await newest();
      // Postgres re-queues every stale event: there a held job's claim skips the rows the sweep's
      // own UPDATE has locked, so its held events may be left to the sweep after all.
      expect((await t.services.pipeline.sweep()).requeued).toBe(backend.name === 'pglite' ? 1 : EVENTS + 1);
      // PGlite's sweep only reads (the held set is the lease); Postgres renews the age of what it takes.
      if (backend.name === 'pglite') expect(await newest()).toBe(before);
      else expect((await newest()) > before).toBe(true);
      await t.services.pipeline.startWorker();
      await t.services.pipeline.idle(30_000);
      expect(await pending()).toBe(0);
      const signals = await t.db.query<{ n: number; events: number }>('SELECT count(*)::int AS n, count(DISTINCT event_id)::int AS events FROM feedback_signals WHERE workspace_id = $1', [
        t.workspaceId,
      ]);
      expect(signals[0]).toEqual({ n: EVENTS + 1, events: EVENTS + 1 });
      // The sweep after: nothing pending, nothing held.
      expect((await t.services.pipeline.sweep()).requeued).toBe(0);
    });
  });
}
