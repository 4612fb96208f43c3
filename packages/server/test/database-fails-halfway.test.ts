/**
 * The database failing halfway through work that spans two transactions: a review (recorded in
 * one, its feedback written by ingest in another, issue 27) and an evaluator dispatch round (the
 * judge answered, its events are written, then its calls are marked, issue 28). A failure between
 * them must not leave a reviewer stuck, a judge's answer lost, or feedback doubled. The failure is
 * the database's own, on both stores: a trigger that fails the insert of every event of one
 * source with SQLSTATE 57P01 (admin shutdown), as a database going away mid-statement does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchEvaluatorCalls } from '../src/emit/evaluator-dispatch.js';
import { judgeSubmitter } from '../src/ingest/judge-submission.js';
import { evaluatorApi, LOCAL } from './evaluator-helpers.js';
import { startJudge } from './evaluator-server.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

/** Makes every insert of an event of `source` fail as a database shutting down does. */
const failEventsOf = (source: string) => `
  CREATE FUNCTION fail_events() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.source = '${source}' THEN RAISE EXCEPTION 'terminating connection due to administrator command' USING ERRCODE = '57P01'; END IF;
    RETURN NEW;
  END $$;
  CREATE TRIGGER fail_events BEFORE INSERT ON feedback_events FOR EACH ROW EXECUTE FUNCTION fail_events();`;
const HEAL = 'DROP TRIGGER fail_events ON feedback_events; DROP FUNCTION fail_events();';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`a review when the database fails halfway, on ${backend.name}`, () => {
    let t: TestApp;
    const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
      t.app.inject({ method, url, headers: t.auth, ...(payload === undefined ? {} : { payload: payload as object }) });

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), LOCAL);
      const registered = await call('POST', '/v1/responses/batch', { responses: [{ id: 'ro-r0', query: 'How do I export?', answer: 'Press Export.' }] });
      expect(registered.statusCode).toBe(207);
    });
    afterAll(async () => {
      await t.close();
    });

    it('answers 503, and the same review sent again is stored once with its feedback once', async () => {
      const rita = await call('POST', '/v1/keys', { kind: 'reviewer', name: 'rita' });
      expect(rita.statusCode).toBe(201);
      const q = await call('POST', '/v1/review-queues', { name: 'outage', reviewersPerItem: 1, members: [rita.json().id], rubric: { verdict: true, correction: true } });
      expect(q.statusCode, q.body).toBe(201);
      const queueId = q.json().id as string;
      expect((await call('POST', `/v1/review-queues/${queueId}/items`, { responseIds: ['ro-r0'] })).statusCode).toBe(207);
      const next = await call('POST', `/v1/review-queues/${queueId}/next`, { reviewer: 'rita' });
      expect(next.statusCode, next.body).toBe(200);
      const itemId = next.json().item.id as string;
      const review = { reviewer: 'rita', verdict: 'changes_requested', correction: 'Open Exports, then press Export.' };

      await t.db.exec(failEventsOf('review'));
      const failed = await call('POST', `/v1/review-queues/${queueId}/items/${itemId}/reviews`, review);
      expect(failed.statusCode, failed.body).toBe(503);
      expect(failed.json().error.code).toBe('FEEDLOOP_ERR_UNAVAILABLE');
      // Nothing of the review's feedback was written: the 503 told the client to send it again.
      const written = await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM feedback_events WHERE workspace_id = $1 AND source = 'review'", [t.workspaceId]);
      expect(written[0]?.n).toBe(0);
      await t.db.exec(HEAL);

      // The reviewer sends it again, as a client does after a 503.
      const again = await call('POST', `/v1/review-queues/${queueId}/items/${itemId}/reviews`, review);
      expect(again.statusCode, again.body).toBe(201);
      expect(again.json().events.map((e: { status: string }) => e.status).every((s: string) => s === 'accepted')).toBe(true);
      expect(again.json().itemState).toBe('done');

      const reviews = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM reviews WHERE queue_id = $1', [queueId]);
      expect(reviews[0]?.n).toBe(1);
      const events = await t.db.query<{ type: string }>(
        "SELECT type FROM feedback_events WHERE workspace_id = $1 AND source = 'review' AND retracted_at IS NULL ORDER BY type",
        [t.workspaceId],
      );
      expect(events.map((e) => e.type)).toEqual(['correction', 'review']);
      // The second try is the review's second version: its events are the ones answered.
      expect(again.json().review.version).toBe(2);
      expect(again.json().events.map((e: { id: string }) => e.id.split(':').slice(-2).join(':')).sort()).toEqual(['2:correction', '2:review']);
      const feedback = await call('GET', '/v1/feedback?source=review&responseId=ro-r0');
      expect(feedback.statusCode, feedback.body).toBe(200);
      expect(feedback.json().data.length).toBe(events.length);
    });

    it("keeps a judge's answers for the next round when their events cannot be written, and writes them once then", async () => {
      const { create, register, calls, judgeEvents, queueOne } = evaluatorApi(() => t);
      const judge = await startJudge();
      const ev = await create(judge, { name: 'outage', filter: { agent: 'nobody' } });
      await register([{ id: 'ro-j0', query: 'q0', answer: 'good' }, { id: 'ro-j1', query: 'q1', answer: 'bad' }]);
      const ids = [...(await queueOne(ev.id, 'ro-j0')), ...(await queueOne(ev.id, 'ro-j1'))];
      const round = () => dispatchEvaluatorCalls(t.db, { submit: judgeSubmitter(t.db, () => t.services.ingest), ids, allowPrivate: true, backoffMs: 0 });

      await t.db.exec(failEventsOf('judge'));
      const failed = await round();
      expect(failed).toEqual({ done: 0, retried: 2, dead: 0 });
      expect(await judgeEvents(ev.id)).toEqual([]);
      // Due again, with the reason: an attempt that the next round makes again, not a dead letter.
      expect((await calls(ev.id)).map((c) => [c['status'], c['attempts'], c['lastError'], c['eventId']])).toEqual([
        ['pending', 1, 'event_rejected:FEEDLOOP_ERR_UNAVAILABLE', null],
        ['pending', 1, 'event_rejected:FEEDLOOP_ERR_UNAVAILABLE', null],
      ]);
      await t.db.exec(HEAL);

      expect(await round()).toEqual({ done: 2, retried: 0, dead: 0 });
      const events = await judgeEvents(ev.id);
      expect(events.map((e) => e.responseId).sort()).toEqual(['ro-j0', 'ro-j1']);
      expect((await calls(ev.id)).map((c) => c['status'])).toEqual(['done', 'done']);
      // Asked twice (the first answers could not be kept), written once.
      expect(judge.calls).toHaveLength(4);
    });
  });
}
