/**
 * Issue 25: an erasure does no global work on the request. `DELETE /v1/users/:userId` enqueues the
 * rescore and the rollup of its workspace's days; once the jobs ran the user's data is gone and
 * the aggregates are corrected, and another workspace's dirty days are left as they were.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollupDirtyDays } from '../src/pipeline/rollup.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`erasure's recomputation on ${backend.name}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      // The scheduled rollup runs once, at the worker's start, and not again during the test:
      // any rollup afterwards is one the erasure asked for.
      t = await startTestApp(await backend.open(), { FEEDLOOP_ROLLUP_INTERVAL_SECONDS: '86400' }, { worker: true });
    });
    afterAll(() => t.close());

    const dirtyDays = async (workspaceId: string) =>
      (await t.db.query<{ day: string }>("SELECT to_char(day, 'YYYY-MM-DD') AS day FROM rollup_dirty WHERE workspace_id = $1 ORDER BY day", [workspaceId])).map((r) => r.day);
    const todaysTotal = async (workspaceId: string) =>
      (
        await t.db.query<{ total_events: number }>(
          "SELECT total_events FROM feedback_metrics_daily WHERE workspace_id = $1 AND day = (now() AT TIME ZONE 'UTC')::date AND dimension = 'all'",
          [workspaceId],
        )
      )[0]?.total_events;

    it('enqueues the rescore and its workspace rollup; after the jobs the data is gone and aggregates are right; another workspace is untouched', async () => {
      const post = (url: string, payload: unknown, auth = t.auth) => t.app.inject({ method: 'POST', url, headers: auth, payload: payload as object });
      expect((await post('/v1/responses/batch', { responses: [{ id: 'ej-r1', query: 'q', answer: 'a', userId: 'ej-other' }] })).statusCode).toBe(207);
      const sent = await post('/v1/feedback/batch', {
        events: [
          { id: 'ej-e1', responseId: 'ej-r1', type: 'thumbs_down', userId: 'ej-victim' },
          { id: 'ej-e2', responseId: 'ej-r1', type: 'thumbs_down', userId: 'ej-victim-too' },
          { id: 'ej-e3', responseId: 'ej-r1', type: 'thumbs_up', userId: 'ej-other' },
        ],
      });
      expect(sent.statusCode).toBe(207);
      await t.services.pipeline.idle(10_000);
      await rollupDirtyDays(t.db, { workspaceId: t.workspaceId });
      expect(await todaysTotal(t.workspaceId)).toBe(3);

      // Another workspace with a day processed and not yet rolled up.
      const other = await t.otherWorkspace();
      const otherAuth = { authorization: `Bearer ${other.secretKey}` };
      expect((await post('/v1/responses', { id: 'ej-o1', query: 'q', answer: 'a' }, otherAuth)).statusCode).toBe(201);
      expect((await post('/v1/feedback', { id: 'ej-o-e1', responseId: 'ej-o1', type: 'thumbs_up', userId: 'someone' }, otherAuth)).statusCode).toBe(202);
      await t.services.pipeline.idle(10_000);
      const otherDirty = await dirtyDays(other.workspaceId);
      expect(otherDirty).toHaveLength(1);

      const erased = await t.app.inject({ method: 'DELETE', url: '/v1/users/ej-victim', headers: t.auth });
      expect(erased.statusCode).toBe(200);
      expect(erased.json()).toMatchObject({ erased: true, tables: { feedback_events: 1 } });
      await t.services.pipeline.idle(10_000);

      // The user's data is gone, and the jobs corrected the score and the day.
      expect((await t.app.inject({ method: 'GET', url: '/v1/users/ej-victim/data', headers: t.auth })).json()).toMatchObject({ events: [], signals: [] });
      const [score] = await t.db.query<{ signal_count: number }>('SELECT signal_count FROM response_scores WHERE workspace_id = $1 AND response_id = $2', [t.workspaceId, 'ej-r1']);
      expect(score?.signal_count).toBe(2);
      expect(await todaysTotal(t.workspaceId)).toBe(2);
      expect(await dirtyDays(t.workspaceId)).toEqual([]);
      // The other workspace's day is still dirty and was never rolled up.
      expect(await dirtyDays(other.workspaceId)).toEqual(otherDirty);
      expect(await todaysTotal(other.workspaceId)).toBeUndefined();
    });
  });
}
