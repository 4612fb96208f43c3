/**
 * Issue 27 §Agreement: `GET /v1/review-queues/:id/agreement` on both stores. Three reviewers
 * review a single queue through the reviewing API; a pairwise queue's reviews are written as the
 * reviewing routes store them, with the order each reviewer saw chosen, and another pairwise
 * queue is reviewed through the API with the order it gives; every figure checked
 * here is worked by hand in the comments (core's tests check the statistics against published
 * examples).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readQueueReviews } from '../src/store/review-agreement.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`review agreement API on ${backend.name}`, () => {
    let t: TestApp;
    type Method = 'GET' | 'POST';
    const call = (method: Method, url: string, payload?: unknown, headers: Record<string, string> = t.auth) =>
      t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
    const reviewerKey = async (name: string): Promise<{ id: string; key: string }> => {
      const res = await call('POST', '/v1/keys', { kind: 'reviewer', name });
      expect(res.statusCode, res.body).toBe(201);
      return { id: res.json().id, key: res.json().key };
    };
    const queue = async (body: Record<string, unknown>): Promise<string> => {
      const res = await call('POST', '/v1/review-queues', body);
      expect(res.statusCode, res.body).toBe(201);
      return res.json().id as string;
    };
    interface Screen {
      item: { id: string };
      order: string[];
    }
    /** Reviews every item `next` gives this reviewer: `decide` returns the review body, or null to skip. */
    const reviewAll = async (queueId: string, key: string, decide: (screen: Screen) => Record<string, unknown> | null): Promise<void> => {
      for (;;) {
        const next = await call('POST', `/v1/review-queues/${queueId}/next`, {}, bearer(key));
        if (next.statusCode === 204) return;
        expect(next.statusCode, next.body).toBe(200);
        const screen = next.json() as Screen;
        const body = decide(screen);
        const url = `/v1/review-queues/${queueId}/items/${screen.item.id}`;
        const res = body === null ? await call('POST', `${url}/skip`, {}, bearer(key)) : await call('POST', `${url}/reviews`, body, bearer(key));
        expect(res.statusCode, res.body).toBeLessThan(300);
      }
    };

    let single: string;
    let reviewers: Record<string, { id: string; key: string }>;

    beforeAll(async () => {
      t = await startTestApp(await backend.open());
      const responses = [
        ...['ag-r0', 'ag-r1', 'ag-r2'].map((id, i) => ({ id, query: `single question ${i}`, answer: `answer ${i}` })),
        ...[0, 1].flatMap((i) => [
          { id: `ag-p${i}-x`, query: `pair question ${i}`, answer: `x ${i}` },
          { id: `ag-p${i}-y`, query: `pair question ${i}`, answer: `y ${i}` },
        ]),
      ];
      const registered = await call('POST', '/v1/responses/batch', { responses });
      expect(registered.statusCode).toBe(207);
      reviewers = { ana: await reviewerKey('ana'), ben: await reviewerKey('ben'), cy: await reviewerKey('cy') };

      //   ag-r0: ana approved (accuracy 80), ben approved (70), cy approved
      //   ag-r1: ana approved (50), ben rejected (50), cy approved (60)
      //   ag-r2: ana rejected (90), ben rejected; cy skips it
      single = await queue({ name: 'agreement', reviewersPerItem: 3, members: Object.values(reviewers).map((r) => r.id), rubric: { verdict: true, qualityScores: true } });
      const added = await call('POST', `/v1/review-queues/${single}/items`, { responseIds: ['ag-r0', 'ag-r1', 'ag-r2'] });
      expect(added.statusCode, added.body).toBeLessThan(300);
      const plan: Record<string, Record<string, [string, number | null] | null>> = {
        ana: { 'ag-r0': ['approved', 80], 'ag-r1': ['approved', 50], 'ag-r2': ['rejected', 90] },
        ben: { 'ag-r0': ['approved', 70], 'ag-r1': ['rejected', 50], 'ag-r2': ['rejected', null] },
        cy: { 'ag-r0': ['approved', null], 'ag-r1': ['approved', 60], 'ag-r2': null },
      };
      for (const [name, items] of Object.entries(plan)) {
        await reviewAll(single, reviewers[name]!.key, (screen) => {
          const decision = items[screen.order[0]!];
          if (!decision) return null;
          const [verdict, accuracy] = decision;
          return accuracy === null ? { verdict } : { verdict, qualityScores: { accuracy } };
        });
      }
    });
    afterAll(async () => {
      await t.close();
    });

    it('gives the queue’s agreement figures, computed by hand', async () => {
      const res = await call('GET', `/v1/review-queues/${single}/agreement`);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ queueId: single, kind: 'single', reviews: { read: 8, truncated: false }, resamples: 1000, items: { reviewed: 3, withTwoOrMore: 3 } });
      // agreeing pairs per item: 1, 1/3 (ana–cy of three pairs), 1 → 7/9
      expect(body.percentAgreement.value).toBeCloseTo(7 / 9, 5);
      expect(body.percentAgreement.n).toBe(3);
      expect(body.percentAgreement.low).toBeLessThanOrEqual(body.percentAgreement.value);
      expect(body.percentAgreement.high).toBeGreaterThanOrEqual(body.percentAgreement.value);
      const pairs = Object.fromEntries(body.cohenKappa.map((p: { reviewers: string[] }) => [p.reviewers.join('-'), p]));
      // ana–ben: (A,A) (A,R) (R,R): p_o 2/3, p_e 4/9 → 0.4; ana–cy: both only approved → undefined;
      // ben–cy: (A,A) (R,A): p_o 1/2, p_e 1/2 → 0
      expect(pairs['ana-ben']).toMatchObject({ n: 3 });
      expect(pairs['ana-ben'].value).toBeCloseTo(0.4, 5);
      expect(pairs['ana-cy']).toMatchObject({ value: null, n: 2 });
      expect(pairs['ben-cy'].value).toBeCloseTo(0, 5);
      // Fleiss over the two items with three reviews: [3, 0] and [2, 1] → (2/3 − 13/18) / (5/18) = −0.2
      expect(body.fleissKappa).toMatchObject({ reviewersPerItem: 3, n: 2 });
      expect(body.fleissKappa.value).toBeCloseTo(-0.2, 5);
      // nominal alpha: o_AA 4, o_AR = o_RA 1, o_RR 2 → 1 − 7·2/(64 − 25 − 9) = 8/15
      expect(body.krippendorffAlpha.labels.value).toBeCloseTo(8 / 15, 5);
      // accuracy [80, 70], [50, 50, 60], [90] → 1 − 4·400/6,800 = 13/17
      expect(body.krippendorffAlpha.scores).toHaveLength(1);
      expect(body.krippendorffAlpha.scores[0]).toMatchObject({ name: 'accuracy', n: 2 });
      expect(body.krippendorffAlpha.scores[0].value).toBeCloseTo(13 / 17, 5);
      const byName = Object.fromEntries(body.reviewers.map((r: { reviewer: string }) => [r.reviewer, r]));
      expect(byName.ana).toMatchObject({ itemsDone: 3, agreementWithMajority: { rate: 1, n: 2 } });
      expect(byName.ben).toMatchObject({ itemsDone: 3, agreementWithMajority: { n: 3 } });
      expect(byName.ben.agreementWithMajority.rate).toBeCloseTo(2 / 3, 5);
      expect(byName.cy).toMatchObject({ itemsDone: 2, agreementWithMajority: { rate: 1, n: 1 } });
      for (const name of ['ana', 'ben', 'cy']) expect(byName[name].medianSeconds).toBeGreaterThanOrEqual(0);
      expect(body.positionBias).toMatchObject({ n: 0, share: null });
      // The same reviews give the same intervals.
      expect((await call('GET', `/v1/review-queues/${single}/agreement`)).json()).toEqual(body);
    });

    it('compares pairwise preferences by side and measures position bias', async () => {
      const pairwise = await queue({ name: 'agreement pairs', kind: 'pairwise', reviewersPerItem: 2, members: [reviewers.ana!.id, reviewers.ben!.id] });
      const added = await call('POST', `/v1/review-queues/${pairwise}/items`, { pairs: [['ag-p0-x', 'ag-p0-y'], ['ag-p1-x', 'ag-p1-y']] });
      expect(added.statusCode, added.body).toBeLessThan(300);
      const items = (await call('GET', `/v1/review-queues/${pairwise}/items`)).json().data as Array<{ id: string; responseId: string; responseBId: string }>;
      const [first, second] = [...items].sort((a, b) => (a.responseId < b.responseId ? -1 : 1));
      // The reviews as the reviewing routes store them, written here so that the order each
      // reviewer saw is chosen rather than random:
      //   first item:  ana prefers side a, shown a first (first won); ben prefers a, shown a first (first won)
      //   second item: ana prefers a, shown b first (second won);      ben says tie (no position)
      const review = (item: { id: string }, reviewer: string, label: string, shownFirst: string) =>
        t.db.query(
          `INSERT INTO reviews (workspace_id, queue_id, item_id, reviewer, label, body, seconds, first_response_id)
           VALUES ($1, $2, $3, $4, $5, $6, 12, $7)`,
          [t.workspaceId, pairwise, item.id, reviewer, label, JSON.stringify({ preferred: label }), shownFirst],
        );
      await review(first!, 'ana', first!.responseId, first!.responseId);
      await review(first!, 'ben', first!.responseId, first!.responseId);
      await review(second!, 'ana', second!.responseId, second!.responseBId);
      await review(second!, 'ben', 'tie', second!.responseBId);

      const res = await call('GET', `/v1/review-queues/${pairwise}/agreement`);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ kind: 'pairwise', items: { reviewed: 2, withTwoOrMore: 2 } });
      // (a, a) agree, (a, tie) do not
      expect(body.percentAgreement).toMatchObject({ value: 0.5, n: 2 });
      // ana said only a: p_e = 1 · 1/2, p_o = 1/2 → κ = 0
      expect(body.cohenKappa).toEqual([expect.objectContaining({ reviewers: ['ana', 'ben'], value: 0, n: 2 })]);
      // decided comparisons: ana 2 (one first-position win), ben 1 (a first-position win)
      expect(body.positionBias).toMatchObject({ n: 3, firstWins: 2 });
      expect(body.positionBias.share).toBeCloseTo(2 / 3, 5);
      const byName = Object.fromEntries(body.reviewers.map((r: { reviewer: string }) => [r.reviewer, r]));
      expect(byName.ana).toMatchObject({ itemsDone: 2, medianSeconds: 12, positionBias: { n: 2, firstWins: 1, share: 0.5 } });
      expect(byName.ben).toMatchObject({ itemsDone: 2, positionBias: { n: 1, firstWins: 1, share: 1 } });
    });

    it('reads pairwise reviews made through the reviewing routes, with the order each reviewer was shown', async () => {
      const pairwise = await queue({ name: 'agreement pairs api', kind: 'pairwise', reviewersPerItem: 2, members: [reviewers.ana!.id, reviewers.ben!.id] });
      const added = await call('POST', `/v1/review-queues/${pairwise}/items`, { pairs: [['ag-p0-x', 'ag-p0-y']] });
      expect(added.statusCode, added.body).toBeLessThan(300);
      // Both prefer whichever response they were shown first.
      const shown: string[] = [];
      for (const name of ['ana', 'ben']) {
        await reviewAll(pairwise, reviewers[name]!.key, (screen) => {
          shown.push(screen.order[0]!);
          return { preferred: screen.order[0] };
        });
      }
      expect(shown).toHaveLength(2);
      const body = (await call('GET', `/v1/review-queues/${pairwise}/agreement`)).json();
      expect(body.positionBias).toMatchObject({ n: 2, firstWins: 2, share: 1 });
      // They agree exactly when they were shown the same response first.
      expect(body.percentAgreement).toMatchObject({ value: shown[0] === shown[1] ? 1 : 0, n: 1 });
    });

    it('answers an empty queue with empty figures, and refuses what it must', async () => {
      const empty = await queue({ name: 'agreement empty' });
      const res = await call('GET', `/v1/review-queues/${empty}/agreement`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ items: { reviewed: 0, withTwoOrMore: 0 }, percentAgreement: { value: null, n: 0 }, fleissKappa: null, cohenKappa: [], reviewers: [] });

      const unknown = await call('GET', '/v1/review-queues/rq_nope/agreement');
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_REVIEW_QUEUE_NOT_FOUND' });
      const bad = await call('GET', '/v1/review-queues/not%20an%20id/agreement');
      expect(bad.statusCode).toBe(400);
      // A reviewer key reviews; it does not read its colleagues' figures.
      const asReviewer = await call('GET', `/v1/review-queues/${single}/agreement`, undefined, bearer(reviewers.ana!.key));
      expect(asReviewer.statusCode).toBe(403);
      expect(asReviewer.json().error.code).toBe('FEEDLOOP_ERR_REVIEWER_FORBIDDEN');
      // Another workspace does not see the queue.
      const other = await t.otherWorkspace();
      const foreign = await call('GET', `/v1/review-queues/${single}/agreement`, undefined, bearer(other.secretKey));
      expect(foreign.statusCode).toBe(404);
    });

    it('fingerprints what it read, so a kept report is never served after a review is revised', async () => {
      const before = await readQueueReviews(t.db, t.workspaceId, single);
      expect((await readQueueReviews(t.db, t.workspaceId, single)).fingerprint).toBe(before.fingerprint);
      const item = (await t.db.query<{ id: string }>(`SELECT id FROM review_items WHERE workspace_id = $1 AND queue_id = $2 AND response_id = 'ag-r1'`, [t.workspaceId, single]))[0]!;
      // ben changes his mind about ag-r1: same reviewer, same item, a new version.
      const revised = await call('POST', `/v1/review-queues/${single}/items/${item.id}/reviews`, { verdict: 'approved', qualityScores: { accuracy: 50 } }, bearer(reviewers.ben!.key));
      expect(revised.statusCode, revised.body).toBeLessThan(300);
      const after = await readQueueReviews(t.db, t.workspaceId, single);
      expect(after.reviews).toHaveLength(before.reviews.length);
      expect(after.fingerprint).not.toBe(before.fingerprint);
      const body = (await call('GET', `/v1/review-queues/${single}/agreement`)).json();
      // Every item's reviewers now agree (ag-r0 and ag-r1 approved by all, ag-r2 rejected by both) → 1.
      expect(body.percentAgreement.value).toBeCloseTo(1, 5);
    });
  });
}
