/**
 * Review and judge sources through ingest, the pipeline and the reads (issue 26's last gap): a
 * judge's votes never move the users' satisfaction, they show by source; a review weighs in the
 * composite score as a person, a judge 0; a browser key may not claim either. Both stores: PGlite
 * with the in-process queue, Postgres with Redis (live counters and queue there).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollupDirtyDays } from '../src/pipeline/rollup.js';
import { rescoreDirtyResponses } from '../src/pipeline/rescore.js';
import { workspaceAggregates } from '../src/store/aggregates.js';
import { readPastHourlyCounts } from '../src/store/alert-history.js';
import { BACKENDS, REDIS_URL, redisUp, startTestApp, type TestApp } from './harness.js';

const judge = (id: string, responseId: string, type: string, evaluatorId = 'gpt-judge', payload?: unknown) => ({
  id,
  responseId,
  type,
  source: 'judge',
  metadata: { evaluatorId },
  ...(payload === undefined ? {} : { payload }),
});

for (const backend of BACKENDS) {
  const production = backend.name === 'postgres';
  describe.skipIf(!backend.available || (production && !redisUp))(`review and judge sources on ${backend.name}${production ? ' + Redis' : ''}`, () => {
    let t: TestApp;
    const send = (method: 'GET' | 'POST', url: string, payload?: unknown, headers: Record<string, string> = t.auth) =>
      t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), production ? { REDIS_URL } : {}, { worker: true });
      const res = await send('POST', '/v1/responses/batch', {
        responses: [
          { id: 'src-r1', query: 'How do I reset my password?', answer: 'Click "forgot password".' },
          { id: 'src-r2', query: 'How do I reset my password?', answer: 'Ask an admin.' },
        ],
      });
      expect(res.statusCode).toBe(207);
    });
    afterAll(async () => {
      await t?.close();
    });

    /** Every event processed and its counters applied (BullMQ and Redis apply them after the commit), then rolled up and rescored. */
    const settle = async () => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        await t.services.pipeline.idle(10_000);
        const [left] = await t.db.query<{ pending: number; effects: number }>(
          `SELECT (SELECT count(*)::int FROM pipeline_pending WHERE workspace_id = $1) AS pending,
                  (SELECT count(*)::int FROM pipeline_effects WHERE NOT counters_done) AS effects`,
          [t.workspaceId],
        );
        if (left?.pending === 0 && left.effects === 0) break;
        if (Date.now() > deadline) throw new Error(`pipeline not settled: ${JSON.stringify(left)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await rollupDirtyDays(t.db, { workspaceId: t.workspaceId });
      await rescoreDirtyResponses(t.db);
    };

    it('stores a user thumbs up and a reviewer’s thumbs down with their sources, and three judge verdicts', async () => {
      const sent = await send('POST', '/v1/feedback/batch', {
        events: [
          { id: 'src-u1', responseId: 'src-r1', type: 'thumbs_up', userId: 'ann' },
          { id: 'src-v1', responseId: 'src-r1', type: 'thumbs_down', source: 'review', userId: 'rita', metadata: { reviewer: 'rita' } },
          judge('src-j1', 'src-r1', 'thumbs_down', 'gpt-judge'),
          judge('src-j2', 'src-r1', 'thumbs_down', 'claude-judge'),
          judge('src-j3', 'src-r2', 'rating', 'gpt-judge', { rating: 1 }),
        ],
      });
      expect(sent.statusCode).toBe(207);
      expect(sent.json().results.map((r: { status: string }) => r.status)).toEqual(['accepted', 'accepted', 'accepted', 'accepted', 'accepted']);
      await settle();
      const listed = (await send('GET', '/v1/feedback?source=judge')).json().data as Array<{ id: string; source: string }>;
      expect(listed.map((e) => e.id).sort()).toEqual(['src-j1', 'src-j2', 'src-j3']);
      const byEvaluator = (await send('GET', '/v1/feedback?evaluatorId=claude-judge')).json().data as Array<{ id: string; metadata: { evaluatorId: string } }>;
      expect(byEvaluator.map((e) => e.id)).toEqual(['src-j2']);
    });

    it('keeps satisfaction the users’: judge and review votes appear by source only', async () => {
      const stats = (await send('GET', '/v1/stats')).json();
      expect(stats).toMatchObject({ total: 1, positive: 1, negative: 0, satisfactionRate: 100, events: 5 });
      expect(stats.bySource).toEqual({
        explicit: { events: 1, positive: 1, negative: 0, positiveRate: 100 },
        judge: { events: 3, positive: 0, negative: 3, positiveRate: 0 },
        review: { events: 1, positive: 0, negative: 1, positiveRate: 0 },
      });
      // Today's ratings come from the live counters: they must agree with the rollup's.
      expect(stats.live).toEqual({ day: new Date().toISOString().slice(0, 10), source: 'counters' });
      expect(stats.byDay.at(-1)).toMatchObject({ positive: 1, negative: 0 });
      const grouped = (await send('GET', '/v1/stats?groupBy=source')).json();
      expect(grouped.groups.map((g: { key: string; events: number; satisfactionRate: number | null }) => [g.key, g.events, g.satisfactionRate])).toEqual([
        ['explicit', 1, 100],
        ['judge', 3, 0],
        ['review', 1, 0],
      ]);
      const live = (await send('GET', '/v1/stats/live')).json();
      expect(live.bySource).toEqual({ explicit: 1, judge: 3, review: 1 });
      expect(live.byPolarity).toEqual({ positive: 1, negative: 0, neutral: 0 });
      // A judge's rating is no user's: the top issues stay empty.
      expect(stats.topIssues).toEqual([]);
      // The privacy aggregates and the alert preview's past hours count the users' signals alone too.
      const from = new Date(Date.now() - 86_400_000);
      const [agg] = await workspaceAggregates(t.db, t.workspaceId, 'day', from, new Date(Date.now() + 60_000));
      expect(agg).toMatchObject({ events: 1, rated: 1, positive: 1, negative: 0, users: 1 });
      const hours = await readPastHourlyCounts(t.db, t.workspaceId, from);
      expect(hours.reduce((n, h) => n + h.negative, 0)).toBe(0);
      expect(hours.reduce((n, h) => n + h.positive, 0)).toBe(1);
    });

    it('weighs a review as a person and a judge 0 in the composite score', async () => {
      const r1 = (await send('GET', '/v1/responses/src-r1')).json();
      // thumbs up 1.0 × 1 and the review's thumbs down 1.5 × -1: (1 - 1.5) / 2.5; the judges weigh 0.
      expect(r1.quality.score).toBeCloseTo(-0.2, 10);
      expect(r1.quality.weightSum).toBeCloseTo(2.5, 10);
      expect(r1.quality.signalCount).toBe(4);
      expect(r1.feedbackBySource).toEqual({ explicit: 1, judge: 2, review: 1 });
      // The stored signal weights (webhooks, exports' minWeight) say the same: a judge's is 0.
      const weights = await t.db.query<{ event_id: string; weight: number }>(
        `SELECT event_id, weight FROM feedback_signals WHERE workspace_id = $1 AND event_id IN ('src-u1', 'src-v1', 'src-j2') ORDER BY event_id`,
        [t.workspaceId],
      );
      expect(weights).toEqual([
        { event_id: 'src-j2', weight: 0 },
        { event_id: 'src-u1', weight: 1 },
        { event_id: 'src-v1', weight: 1.5 },
      ]);
      const sources = Object.fromEntries((r1.feedback as Array<{ id: string; source: string }>).map((e) => [e.id, e.source]));
      expect(sources).toEqual({ 'src-u1': 'explicit', 'src-v1': 'review', 'src-j1': 'judge', 'src-j2': 'judge' });
      // The list counts the users' votes, and reviews and judgements apart; a judge's vote tags no rating.
      const list = (await send('GET', '/v1/responses?limit=10')).json().data as Array<{ id: string; positive: number; negative: number; reviews: number; judgements: number }>;
      expect(list.find((r) => r.id === 'src-r1')).toMatchObject({ positive: 1, negative: 0, reviews: 1, judgements: 2 });
      expect(list.find((r) => r.id === 'src-r2')).toMatchObject({ positive: 0, negative: 0, reviews: 0, judgements: 1 });
      const negatives = (await send('GET', '/v1/responses?rating=negative')).json().data as Array<{ id: string }>;
      expect(negatives.map((r) => r.id)).toEqual([]);
      const r2 = (await send('GET', '/v1/responses/src-r2')).json();
      expect(r2.quality).toMatchObject({ score: null, weightSum: 0, signalCount: 1 });
    });

    it('lets a judge replace its own verdict, never a user’s vote', async () => {
      const again = await send('POST', '/v1/feedback', { ...judge('src-j1b', 'src-r1', 'thumbs_up', 'gpt-judge'), userId: 'ann' });
      expect(again.statusCode).toBe(202);
      await settle();
      const rows = await t.db.query<{ id: string; superseded_by: string | null }>(
        `SELECT id, superseded_by FROM feedback_events WHERE workspace_id = $1 AND id IN ('src-u1', 'src-j1', 'src-j1b') ORDER BY id`,
        [t.workspaceId],
      );
      expect(rows).toEqual([
        { id: 'src-j1', superseded_by: 'src-j1b' },
        { id: 'src-j1b', superseded_by: null },
        { id: 'src-u1', superseded_by: null },
      ]);
      const stats = (await send('GET', '/v1/stats')).json();
      expect(stats).toMatchObject({ total: 1, positive: 1, satisfactionRate: 100 });
      expect(stats.bySource.judge).toEqual({ events: 3, positive: 1, negative: 2, positiveRate: 33.33 });
    });

    it('refuses review and judge from a public key, alone in a batch, with a 403 naming source', async () => {
      const pub = { authorization: `Bearer ${t.publicKey}` };
      const one = await send('POST', '/v1/feedback', judge('src-p1', 'src-r1', 'thumbs_up'), pub);
      expect(one.statusCode).toBe(403);
      expect(one.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_AUTH_SOURCE_FORBIDDEN', field: 'source' });
      const batch = await send(
        'POST',
        '/v1/feedback/batch',
        { events: [{ id: 'src-p2', responseId: 'src-r1', type: 'thumbs_up', source: 'review' }, { id: 'src-p3', responseId: 'src-r2', type: 'thumbs_up' }] },
        pub,
      );
      expect(batch.statusCode).toBe(207);
      const [refused, taken] = batch.json().results;
      expect(refused).toMatchObject({ id: 'src-p2', status: 'rejected', error: { code: 'FEEDLOOP_ERR_AUTH_SOURCE_FORBIDDEN', field: 'source' } });
      expect(taken).toMatchObject({ id: 'src-p3', status: 'accepted' });
      const stored = await t.db.query(`SELECT id FROM feedback_events WHERE workspace_id = $1 AND id IN ('src-p1', 'src-p2')`, [t.workspaceId]);
      expect(stored).toEqual([]);
    });

    it('refuses a judge source on a behaviour type and a judge without its evaluator, naming the field', async () => {
      const retry = await send('POST', '/v1/feedback', { responseId: 'src-r1', type: 'retry', source: 'judge', metadata: { evaluatorId: 'e' }, payload: { rephrasedQuery: 'q' } });
      expect(retry.statusCode).toBe(400);
      expect(retry.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field: 'source' });
      const nameless = await send('POST', '/v1/feedback', { responseId: 'src-r1', type: 'thumbs_up', source: 'judge' });
      expect(nameless.statusCode).toBe(400);
      expect(nameless.json().error).toMatchObject({ field: 'metadata.evaluatorId' });
    });

    it('stores a preference about two known responses, and refuses one naming an unknown response', async () => {
      const ok = await send('POST', '/v1/feedback', {
        id: 'src-pref1',
        responseId: 'src-r1',
        type: 'preference',
        userId: 'ann',
        payload: { pair: ['src-r1', 'src-r2'], preferred: 'src-r1', shown: ['src-r2', 'src-r1'] },
      });
      expect(ok.statusCode).toBe(202);
      const unknown = await send('POST', '/v1/feedback', { responseId: 'src-r1', type: 'preference', payload: { pair: ['src-r1', 'src-nope'], preferred: 'tie' } });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_RESPONSE_NOT_FOUND', field: 'payload.pair[1]' });
      await settle();
      const stats = (await send('GET', '/v1/stats')).json();
      // Counted as an explicit event, neutral: satisfaction unchanged.
      expect(stats.bySource.explicit.events).toBe(3);
      expect(stats).toMatchObject({ total: 2, satisfactionRate: 100 });
    });

    it('feeds the majority of a pair’s preferences to trl-dpo and openai-preference, ties and splits left out', async () => {
      const lines = async (url: string) => {
        const res = await send('GET', url);
        expect(res.statusCode).toBe(200);
        return res.body === '' ? [] : res.body.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      };
      // ann preferred r1; bob (a reviewer) preferred r2; a judge r2: r2 wins 2 to 1.
      const more = await send('POST', '/v1/feedback/batch', {
        events: [
          { id: 'src-pref2', responseId: 'src-r2', type: 'preference', source: 'review', userId: 'bob', payload: { pair: ['src-r1', 'src-r2'], preferred: 'src-r2' } },
          { ...judge('src-pref3', 'src-r1', 'preference', 'gpt-judge', { pair: ['src-r2', 'src-r1'], preferred: 'src-r2' }) },
          { id: 'src-pref4', responseId: 'src-r1', type: 'preference', userId: 'cy', payload: { pair: ['src-r1', 'src-r2'], preferred: 'tie' } },
        ],
      });
      expect(more.json().results.map((r: { status: string }) => r.status)).toEqual(['accepted', 'accepted', 'accepted']);
      await settle();
      const dpo = await lines('/v1/exports/trl-dpo');
      expect(dpo).toHaveLength(1);
      expect(dpo[0]).toMatchObject({ prompt: 'How do I reset my password?', chosen: 'Ask an admin.', rejected: 'Click "forgot password".' });
      const openai = await lines('/v1/exports/openai-preference');
      expect(openai[0]).toMatchObject({ preferred_output: [{ role: 'assistant', content: 'Ask an admin.' }], non_preferred_output: [{ role: 'assistant', content: 'Click "forgot password".' }] });
      // cy changes the tie to r1: ann and cy for r1, bob and the judge for r2; no majority, no line.
      const changed = await send('POST', '/v1/feedback', { id: 'src-pref5', responseId: 'src-r1', type: 'preference', userId: 'cy', payload: { pair: ['src-r1', 'src-r2'], preferred: 'src-r1' } });
      expect(changed.statusCode).toBe(202);
      await settle();
      expect(await lines('/v1/exports/trl-dpo')).toEqual([]);
    });

    it('takes a retracted judge verdict back from its source alone, never from the users’ counts', async () => {
      const before = (await send('GET', '/v1/stats/live')).json();
      const statsBefore = (await send('GET', '/v1/stats')).json();
      const res = await t.app.inject({ method: 'DELETE', url: '/v1/feedback/src-j2?reason=judge%20rerun', headers: t.auth });
      expect(res.statusCode).toBe(200);
      await settle();
      const after = (await send('GET', '/v1/stats/live')).json();
      expect(after.bySource.judge).toBe(before.bySource.judge - 1);
      expect(after.bySource.explicit).toBe(before.bySource.explicit);
      expect(after.byPolarity).toEqual(before.byPolarity);
      const statsAfter = (await send('GET', '/v1/stats')).json();
      expect(statsAfter.bySource.judge.events).toBe(statsBefore.bySource.judge.events - 1);
      expect(statsAfter).toMatchObject({ total: statsBefore.total, satisfactionRate: statsBefore.satisfactionRate });
    });
  });
}
