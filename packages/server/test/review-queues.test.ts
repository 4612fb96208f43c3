/**
 * Issue 27: reviewer keys, review queues, items, reservations and reviews through the HTTP API,
 * on both stores: what a reviewer key may do, the queue's validation, adding items (207 per
 * item), reserving, reviewing against the rubric, skip/release/409, and reviews becoming feedback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processEvents } from '../src/pipeline/process-events.js';
import { rescoreDirtyResponses } from '../src/pipeline/rescore.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`review queues API on ${backend.name}`, () => {
    let t: TestApp;
    type Method = 'GET' | 'POST' | 'PATCH';
    const call = (method: Method, url: string, payload?: unknown, headers: Record<string, string> = t.auth) =>
      t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
    const reviewerKey = async (name: string): Promise<{ id: string; key: string }> => {
      const res = await call('POST', '/v1/keys', { kind: 'reviewer', name });
      expect(res.statusCode).toBe(201);
      return { id: res.json().id, key: res.json().key };
    };
    const register = async (responses: Array<Record<string, unknown>>) => {
      const res = await call('POST', '/v1/responses/batch', { responses });
      expect(res.statusCode).toBe(207);
      expect(res.json().results.filter((r: { status: string }) => r.status === 'rejected')).toEqual([]);
    };
    const queue = async (body: Record<string, unknown>) => {
      const res = await call('POST', '/v1/review-queues', body);
      expect(res.statusCode, res.body).toBe(201);
      return res.json() as { id: string; reservationSeconds: number; reviewersPerItem: number };
    };

    beforeAll(async () => {
      t = await startTestApp(await backend.open());
      await register(
        Array.from({ length: 6 }, (_, i) => ({ id: `rq-r${i}`, query: `question ${i % 3}`, answer: `answer ${i}`, sources: [`doc-${i}`], contextDocumentIds: [`doc-${i}`] })),
      );
    });
    afterAll(async () => {
      await t.close();
    });

    it('makes reviewer keys with a name, and refuses them everywhere but the review routes', async () => {
      const nameless = await call('POST', '/v1/keys', { kind: 'reviewer' });
      expect(nameless.statusCode).toBe(400);
      expect(nameless.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field: 'name' });
      const spaced = await call('POST', '/v1/keys', { kind: 'reviewer', name: 'Ann Smith' });
      expect(spaced.statusCode).toBe(400);
      const ann = await reviewerKey('ann');
      expect(ann.key).toMatch(/^fl_rk_/);
      for (const [method, url, payload] of [
        ['GET', '/v1/responses', undefined],
        ['GET', '/v1/keys', undefined],
        ['POST', '/v1/feedback', { responseId: 'rq-r0', type: 'thumbs_up' }],
        ['POST', '/v1/review-queues', { name: 'mine' }],
        ['GET', '/v1/review-queues/rq_x/items', undefined],
      ] as const) {
        const res = await call(method, url, payload, bearer(ann.key));
        expect(res.statusCode, url).toBe(403);
        expect(res.json().error.code).toBe('FEEDLOOP_ERR_REVIEWER_FORBIDDEN');
      }
      const audit = await t.db.query<{ details: { name: string; kind: string } }>("SELECT details FROM audit_log WHERE workspace_id = $1 AND action = 'key.created' AND subject = $2", [
        t.workspaceId,
        ann.id,
      ]);
      expect(audit[0]?.details).toMatchObject({ kind: 'reviewer', name: 'ann' });
    });

    it('validates a queue: bounds, members that are reviewer keys, rules in the list filter vocabulary', async () => {
      const bob = await reviewerKey('bob');
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ name: 'q', reviewersPerItem: 6 }, 'reviewersPerItem'],
        [{ name: 'q', reviewersPerItem: 0 }, 'reviewersPerItem'],
        [{ name: 'q', kind: 'triple' }, 'kind'],
        [{ name: 'q', members: [bob.id, 'nope'] }, 'members[1]'],
        [{ name: 'q', rules: [{ filter: { rating: 'negative' }, sample: 1.5 }] }, 'rules[0].sample'],
        [{ name: 'q', rules: [{ filter: { bogus: 1 } }] }, 'rules[0].filter.bogus'],
        [{ name: 'q', rules: [{ filter: { minScore: 0.5, maxScore: 0 } }] }, 'rules[0].filter.minScore'],
        [{ name: 'q', rubric: { verdict: 'yes' } }, 'rubric.verdict'],
      ];
      const before = (await call('GET', '/v1/review-queues')).json().queues.length;
      for (const [body, field] of cases) {
        const res = await call('POST', '/v1/review-queues', body);
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(res.json().error.field, JSON.stringify(body)).toBe(field);
      }
      // A secret key's id is not a reviewer's.
      const secretId = (await call('GET', '/v1/keys')).json().keys.find((k: { kind: string }) => k.kind === 'secret').id;
      expect((await call('POST', '/v1/review-queues', { name: 'q', members: [secretId] })).json().error.field).toBe('members[0]');
      expect((await call('GET', '/v1/review-queues')).json().queues.length).toBe(before);

      // A queue's dataset must exist (checked on create and change: test/dataset-oasst.test.ts).
      const datasetId = (await call('POST', '/v1/datasets', { name: 'rq-defaults' })).json().id as string;
      const made = await call('POST', '/v1/review-queues', { name: 'defaults', members: [bob.id], rules: [{ filter: { rating: 'negative', agent: 'sql' }, sample: 0.25 }], datasetId });
      expect(made.statusCode).toBe(201);
      expect(made.json()).toMatchObject({
        kind: 'single',
        instructions: '',
        reviewersPerItem: 1,
        reservationSeconds: 600,
        members: [bob.id],
        datasetId,
        rubric: { verdict: true, issues: true, qualityScores: false, correction: true, comment: true },
        progress: { total: 0, pending: 0, inProgress: 0, done: 0 },
      });
      const patched = await call('PATCH', `/v1/review-queues/${made.json().id}`, { reviewersPerItem: 3, instructions: '# Check facts' });
      expect(patched.json()).toMatchObject({ reviewersPerItem: 3, instructions: '# Check facts', members: [bob.id] });
      expect((await call('PATCH', `/v1/review-queues/${made.json().id}`, { kind: 'pairwise' })).statusCode).toBe(400);
      expect((await call('GET', '/v1/review-queues/rq_missing')).json().error.code).toBe('FEEDLOOP_ERR_REVIEW_QUEUE_NOT_FOUND');
      // Another workspace sees nothing of it.
      const other = await t.otherWorkspace();
      expect((await call('GET', `/v1/review-queues/${made.json().id}`, undefined, bearer(other.secretKey))).statusCode).toBe(404);
    });

    it('lets a reviewer list and read only the queues it is a member of', async () => {
      const cleo = await reviewerKey('cleo');
      const mine = await queue({ name: 'cleo-queue', members: [cleo.id] });
      const theirs = await queue({ name: 'not-cleo' });
      const listed = await call('GET', '/v1/review-queues', undefined, bearer(cleo.key));
      expect(listed.statusCode).toBe(200);
      expect(listed.json().queues.map((q: { id: string }) => q.id)).toEqual([mine.id]);
      const foreign = await call('GET', `/v1/review-queues/${theirs.id}`, undefined, bearer(cleo.key));
      expect(foreign.statusCode).toBe(403);
      expect(foreign.json().error.code).toBe('FEEDLOOP_ERR_REVIEWER_NOT_MEMBER');
      expect((await call('POST', `/v1/review-queues/${theirs.id}/next`, {}, bearer(cleo.key))).statusCode).toBe(403);
    });

    it('adds items once per response, 207 per id; pairs must share their query', async () => {
      const single = await queue({ name: 'items' });
      const added = await call('POST', `/v1/review-queues/${single.id}/items`, { responseIds: ['rq-r0', 'rq-r1', 'rq-r0', 'missing'] });
      expect(added.statusCode).toBe(207);
      expect(added.json().results.map((r: { status: string }) => r.status)).toEqual(['added', 'added', 'exists', 'rejected']);
      expect(added.json().results[3].error).toMatchObject({ code: 'FEEDLOOP_ERR_RESPONSE_NOT_FOUND', field: 'responseIds[3]' });
      const again = await call('POST', `/v1/review-queues/${single.id}/items`, { responseIds: ['rq-r1', 'rq-r2'] });
      expect(again.json().results.map((r: { status: string }) => r.status)).toEqual(['exists', 'added']);
      const listed = await call('GET', `/v1/review-queues/${single.id}/items`);
      expect(listed.json().data.map((i: { responseId: string }) => i.responseId)).toEqual(['rq-r0', 'rq-r1', 'rq-r2']);
      expect(listed.json().progress).toEqual({ total: 3, pending: 3, inProgress: 0, done: 0 });
      expect((await call('POST', `/v1/review-queues/${single.id}/items`, { pairs: [['rq-r0', 'rq-r3']] })).json().error.field).toBe('pairs');
      expect((await call('POST', `/v1/review-queues/${single.id}/items`, { responseIds: ['rq-r0'], filter: {} })).statusCode).toBe(400);

      const pairwise = await queue({ name: 'pairs', kind: 'pairwise' });
      const pairs = await call('POST', `/v1/review-queues/${pairwise.id}/items`, {
        pairs: [
          ['rq-r0', 'rq-r3'],
          ['rq-r3', 'rq-r0'],
          ['rq-r0', 'rq-r1'],
          ['rq-r0', 'rq-r0'],
          ['rq-r1', 'nope'],
        ],
      });
      expect(pairs.statusCode).toBe(207);
      expect(pairs.json().results.map((r: { status: string }) => r.status)).toEqual(['added', 'exists', 'rejected', 'rejected', 'rejected']);
      expect(pairs.json().results[2].error.message).toMatch(/different queries/);
    });

    it('adds every response matching a filter, and an experiment\'s two variants as pairs', async () => {
      await register([
        ...['a', 'b', 'c'].map((q) => ({ id: `exp-x-${q}`, query: `exp question ${q}`, answer: 'x', experimentId: 'exp-rq', variant: 'x', agent: 'rq-agent' })),
        ...['a', 'b'].map((q) => ({ id: `exp-y-${q}`, query: `exp question ${q}`, answer: 'y', experimentId: 'exp-rq', variant: 'y', agent: 'rq-agent' })),
      ]);
      const single = await queue({ name: 'by-filter' });
      const res = await call('POST', `/v1/review-queues/${single.id}/items`, { filter: { agent: 'rq-agent', variant: 'x', experimentId: 'exp-rq' } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ matched: 3, added: 3, existing: 0, truncated: false });
      expect((await call('POST', `/v1/review-queues/${single.id}/items`, { filter: { agent: 'rq-agent' } })).json()).toEqual({ matched: 5, added: 2, existing: 3, truncated: false });
      expect((await call('POST', `/v1/review-queues/${single.id}/items`, { filter: { nope: 1 } })).json().error.field).toBe('filter.nope');

      const pairwise = await queue({ name: 'by-experiment', kind: 'pairwise' });
      const made = await call('POST', `/v1/review-queues/${pairwise.id}/items`, { experimentId: 'exp-rq', variants: ['x', 'y'] });
      expect(made.json()).toEqual({ matched: 2, added: 2, existing: 0, truncated: false });
      const items = (await call('GET', `/v1/review-queues/${pairwise.id}/items`)).json().data as Array<{ responseId: string; responseBId: string }>;
      expect(items.map((i) => [i.responseId, i.responseBId]).sort()).toEqual([
        ['exp-x-a', 'exp-y-a'],
        ['exp-x-b', 'exp-y-b'],
      ]);
    });

    it("shows the rubric's named score configs on the screen, archived ones left out, to a reviewer key that cannot list them", async () => {
      const made = async (body: Record<string, unknown>) => {
        const res = await call('POST', '/v1/score-configs', body);
        expect(res.statusCode, res.body).toBe(201);
        return res.json() as { id: string };
      };
      const tone = await made({ name: 'rq-tone', dataType: 'categorical', categories: [{ value: 0, label: 'curt' }, { value: 1, label: 'warm' }], description: 'how it sounds' });
      const ground = await made({ name: 'rq-grounded', dataType: 'numeric', min: 0, max: 5 });
      const old = await made({ name: 'rq-old', dataType: 'boolean' });
      const erin = await reviewerKey('erin-scores');
      expect((await call('GET', '/v1/score-configs', undefined, bearer(erin.key))).statusCode).toBe(403);
      const q = await queue({ name: 'named scores', members: [erin.id], rubric: { scoreConfigs: [ground.id, old.id, tone.id] } });
      expect((await call('PATCH', `/v1/score-configs/${old.id}`, { archived: true })).statusCode).toBe(200);
      await call('POST', `/v1/review-queues/${q.id}/items`, { responseIds: ['rq-r5'] });
      const next = await call('POST', `/v1/review-queues/${q.id}/next`, {}, bearer(erin.key));
      expect(next.statusCode, next.body).toBe(200);
      const expected = [
        { id: ground.id, name: 'rq-grounded', dataType: 'numeric', min: 0, max: 5, categories: null, description: null },
        { id: tone.id, name: 'rq-tone', dataType: 'categorical', min: null, max: null, categories: [{ value: 0, label: 'curt' }, { value: 1, label: 'warm' }], description: 'how it sounds' },
      ];
      expect(next.json().scoreConfigs).toEqual(expected);
      const read = await call('GET', `/v1/review-queues/${q.id}/items/${next.json().item.id}`, undefined, bearer(erin.key));
      expect(read.statusCode, read.body).toBe(200);
      expect(read.json().scoreConfigs).toEqual(expected);
      const plain = await queue({ name: 'no named scores', members: [erin.id] });
      await call('POST', `/v1/review-queues/${plain.id}/items`, { responseIds: ['rq-r5'] });
      expect((await call('POST', `/v1/review-queues/${plain.id}/next`, {}, bearer(erin.key))).json().scoreConfigs).toEqual([]);
    });

    it('reserves, validates against the rubric, records the review as feedback, and finishes the item', async () => {
      const dana = await reviewerKey('dana');
      const q = await queue({ name: 'flow', members: [dana.id], instructions: 'Be strict', rubric: { correction: false, qualityScores: true } });
      await call('POST', `/v1/review-queues/${q.id}/items`, { responseIds: ['rq-r4'] });
      const next = await call('POST', `/v1/review-queues/${q.id}/next`, {}, bearer(dana.key));
      expect(next.statusCode).toBe(200);
      const screen = next.json();
      expect(screen).toMatchObject({
        queue: { id: q.id, instructions: 'Be strict', kind: 'single', rubric: { correction: false, qualityScores: true } },
        reviewer: 'dana',
        order: ['rq-r4'],
        responses: [{ id: 'rq-r4', query: 'question 1', answer: 'answer 4', contextDocumentIds: ['doc-4'], feedback: [] }],
        myReview: null,
      });
      const expires = Date.parse(screen.reservation.expiresAt) - Date.parse(screen.reservation.reservedAt);
      expect(expires).toBe(600_000);
      // The same reviewer asking again gets the same reservation.
      expect((await call('POST', `/v1/review-queues/${q.id}/next`, {}, bearer(dana.key))).json().item.id).toBe(screen.item.id);

      const url = `/v1/review-queues/${q.id}/items/${screen.item.id}/reviews`;
      const off = await call('POST', url, { verdict: 'rejected', correction: 'better' }, bearer(dana.key));
      expect(off.statusCode).toBe(400);
      expect(off.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_REVIEW_FIELD_DISABLED', field: 'correction' });
      expect((await call('POST', url, {}, bearer(dana.key))).statusCode).toBe(400);
      expect((await call('POST', url, { verdict: 'meh' }, bearer(dana.key))).json().error.field).toBe('verdict');
      expect((await call('POST', url, { issues: ['hallucination'] }, bearer(dana.key))).json().error.field).toBe('verdict');
      expect((await call('POST', url, { scores: [{ name: 'x', value: 1 }] }, bearer(dana.key))).json().error).toMatchObject({ code: 'FEEDLOOP_ERR_REVIEW_FIELD_DISABLED', field: 'scores' });
      expect(await t.db.query('SELECT 1 FROM reviews WHERE workspace_id = $1 AND queue_id = $2', [t.workspaceId, q.id])).toEqual([]);

      const done = await call('POST', url, { verdict: 'rejected', issues: ['hallucination'], qualityScores: { accuracy: 20 }, comment: 'made up' }, bearer(dana.key));
      expect(done.statusCode, done.body).toBe(201);
      expect(done.json()).toMatchObject({ itemState: 'done', review: { reviewer: 'dana', label: 'rejected', scores: { accuracy: 20 }, version: 1 } });
      expect(done.json().review.seconds).toBeGreaterThanOrEqual(0);
      expect(done.json().events.map((e: { status: string }) => e.status)).toEqual(['accepted', 'accepted']);
      const events = await t.db.query<{ type: string; user_id: string; payload: Record<string, unknown>; metadata: Record<string, unknown> }>(
        "SELECT type, user_id, payload, metadata FROM feedback_events WHERE workspace_id = $1 AND metadata->>'reviewQueueId' = $2 ORDER BY type",
        [t.workspaceId, q.id],
      );
      expect(events.map((e) => [e.type, e.user_id])).toEqual([
        ['quality_scores', 'dana'],
        ['review', 'dana'],
      ]);
      expect(events[1]?.payload).toEqual({ verdict: 'rejected', issues: ['hallucination'], comment: 'made up' });
      expect(events[1]?.metadata).toMatchObject({ reviewItemId: screen.item.id, reviewer: 'dana' });
      const audit = await t.db.query<{ details: { reviewer: string } }>("SELECT details FROM audit_log WHERE workspace_id = $1 AND action = 'review.submitted' AND subject = $2", [
        t.workspaceId,
        screen.item.id,
      ]);
      expect(audit[0]?.details.reviewer).toBe('dana');

      // The pipeline processes them like any other feedback.
      const keys = await t.db.query<{ workspace_id: string; event_id: string }>('SELECT workspace_id, event_id FROM pipeline_pending WHERE workspace_id = $1', [t.workspaceId]);
      await processEvents(t.db, keys.map((k) => [k.workspace_id, k.event_id]), { counters: { kind: 'outbox' }, stream: false });
      const signals = await t.db.query<{ type: string; status: string }>("SELECT type, status FROM feedback_signals WHERE workspace_id = $1 AND response_id = 'rq-r4' ORDER BY type", [t.workspaceId]);
      expect(signals.map((s) => s.type)).toEqual(['quality_scores', 'review']);

      // Done at reviewersPerItem reviews: nothing left.
      expect((await call('POST', `/v1/review-queues/${q.id}/next`, {}, bearer(dana.key))).statusCode).toBe(204);
      expect((await call('GET', `/v1/review-queues/${q.id}`, undefined, bearer(dana.key))).json().progress).toEqual({ total: 1, pending: 0, inProgress: 0, done: 1 });

      // A later review by the same reviewer replaces the earlier: its events are retracted.
      const redo = await call('POST', url, { verdict: 'approved' }, bearer(dana.key));
      expect(redo.statusCode).toBe(201);
      expect(redo.json().review).toMatchObject({ label: 'approved', version: 2 });
      const after = await t.db.query<{ id: string; retracted: boolean }>(
        "SELECT id, retracted_at IS NOT NULL AS retracted FROM feedback_events WHERE workspace_id = $1 AND metadata->>'reviewQueueId' = $2 ORDER BY id",
        [t.workspaceId, q.id],
      );
      expect(after.filter((e) => !e.retracted).map((e) => e.id)).toEqual([`rv:${screen.item.id}:dana:2:review`]);
      expect(after.filter((e) => e.retracted)).toHaveLength(2);
      expect((await t.db.query('SELECT 1 FROM reviews WHERE workspace_id = $1 AND queue_id = $2', [t.workspaceId, q.id])).length).toBe(1);
    });

    it('answers 409 when a lost reservation\'s item is held by others; skip and release give items back', async () => {
      const [eve, fay] = [await reviewerKey('eve'), await reviewerKey('fay')];
      const q = await queue({ name: 'races', members: [eve.id, fay.id] });
      await call('POST', `/v1/review-queues/${q.id}/items`, { responseIds: ['rq-r0', 'rq-r1'] });
      const first = (await call('POST', `/v1/review-queues/${q.id}/next`, {}, bearer(eve.key))).json().item.id as string;
      const released = await call('POST', `/v1/review-queues/${q.id}/items/${first}/release`, {}, bearer(eve.key));
      expect(released.json()).toEqual({ released: true });
      // Fay now holds it; Eve's late review is refused.
      expect((await call('POST', `/v1/review-queues/${q.id}/next`, {}, bearer(fay.key))).json().item.id).toBe(first);
      const late = await call('POST', `/v1/review-queues/${q.id}/items/${first}/reviews`, { verdict: 'approved' }, bearer(eve.key));
      expect(late.statusCode).toBe(409);
      expect(late.json().error.code).toBe('FEEDLOOP_ERR_REVIEW_RESERVATION_LOST');
      // Eve skips the other item: it never comes back to her, but Fay can have it.
      const second = (await call('POST', `/v1/review-queues/${q.id}/next`, {}, bearer(eve.key))).json().item.id as string;
      expect(second).not.toBe(first);
      expect((await call('POST', `/v1/review-queues/${q.id}/items/${second}/skip`, {}, bearer(eve.key))).json()).toEqual({ skipped: true });
      expect((await call('POST', `/v1/review-queues/${q.id}/next`, {}, bearer(eve.key))).statusCode).toBe(204);
      expect((await call('POST', `/v1/review-queues/${q.id}/items/${first}/reviews`, { verdict: 'approved' }, bearer(fay.key))).statusCode).toBe(201);
      expect((await call('POST', `/v1/review-queues/${q.id}/next`, {}, bearer(fay.key))).json().item.id).toBe(second);
      expect((await call('POST', `/v1/review-queues/${q.id}/items/ri_nope/skip`, {}, bearer(eve.key))).json().error.code).toBe('FEEDLOOP_ERR_REVIEW_ITEM_NOT_FOUND');
    });

    it('lets a secret key act for a member reviewer by name, never for a stranger', async () => {
      const gus = await reviewerKey('gus');
      const q = await queue({ name: 'by-secret', members: [gus.id] });
      await call('POST', `/v1/review-queues/${q.id}/items`, { responseIds: ['rq-r5'] });
      expect((await call('POST', `/v1/review-queues/${q.id}/next`, {})).json().error.field).toBe('reviewer');
      expect((await call('POST', `/v1/review-queues/${q.id}/next`, { reviewer: 'stranger' })).json().error.code).toBe('FEEDLOOP_ERR_REVIEWER_NOT_MEMBER');
      const next = await call('POST', `/v1/review-queues/${q.id}/next`, { reviewer: 'gus' });
      expect(next.json().reviewer).toBe('gus');
      const review = await call('POST', `/v1/review-queues/${q.id}/items/${next.json().item.id}/reviews`, { reviewer: 'gus', verdict: 'approved' });
      expect(review.statusCode).toBe(201);
      // A reviewer key may not speak for another.
      expect((await call('POST', `/v1/review-queues/${q.id}/next`, { reviewer: 'dana' }, bearer(gus.key))).json().error.field).toBe('reviewer');
    });

    it('adds a response once when the feedback that makes it match a rule is processed, sampled per response', async () => {
      await register(['neg', 'pos', 'low'].map((id) => ({ id: `rule-${id}`, query: `rule ${id}`, answer: 'a', agent: 'rules' })));
      const q = await queue({ name: 'rules', rules: [{ filter: { rating: 'negative', agent: 'rules' }, sample: 1 }] });
      const scored = await queue({ name: 'score-rule', rules: [{ filter: { maxScore: -0.1, agent: 'rules' }, sample: 1 }] });
      const none = await queue({ name: 'sampled-out', rules: [{ filter: { agent: 'rules' }, sample: 0 }] });
      // This test's events only: the others' retractions are processed by their own tests.
      const process = async () => {
        const keys = await t.db.query<{ workspace_id: string; event_id: string }>(
          "SELECT p.workspace_id, p.event_id FROM pipeline_pending p JOIN feedback_events e ON e.workspace_id = p.workspace_id AND e.id = p.event_id WHERE p.workspace_id = $1 AND e.response_id LIKE 'rule-%'",
          [t.workspaceId],
        );
        await processEvents(t.db, keys.map((k) => [k.workspace_id, k.event_id]), { counters: { kind: 'outbox' }, stream: false });
      };
      const items = async (queueId: string) =>
        t.db.query<{ response_id: string; added_by: string }>('SELECT response_id, added_by FROM review_items WHERE workspace_id = $1 AND queue_id = $2 ORDER BY response_id', [t.workspaceId, queueId]);
      const vote = (responseId: string, type: string, userId: string) => call('POST', '/v1/feedback', { responseId, type, userId });
      expect((await vote('rule-neg', 'thumbs_down', 'u1')).statusCode).toBe(202);
      expect((await vote('rule-pos', 'thumbs_up', 'u1')).statusCode).toBe(202);
      // Nothing before processing.
      expect(await items(q.id)).toEqual([]);
      await process();
      expect(await items(q.id)).toEqual([{ response_id: 'rule-neg', added_by: 'rule' }]);
      // More matching feedback adds nothing more: a response once per queue.
      await vote('rule-neg', 'thumbs_down', 'u2');
      await process();
      expect(await items(q.id)).toHaveLength(1);
      // A score range is met once the rescore writes the score.
      expect(await items(scored.id)).toEqual([]);
      await rescoreDirtyResponses(t.db);
      expect((await items(scored.id)).map((i) => i.response_id)).toEqual(['rule-neg']);
      expect(await items(none.id)).toEqual([]);
    });

    it('matches rules on has-correction and conflicting signals, booleans or "true"/"false", refusing any other value', async () => {
      const bad = await call('POST', '/v1/review-queues', { name: 'q', rules: [{ filter: { hasCorrection: 'maybe' } }] });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.field).toBe('rules[0].filter.hasCorrection');
      expect((await call('POST', '/v1/review-queues', { name: 'q', rules: [{ filter: { conflicting: 1 } }] })).json().error.field).toBe('rules[0].filter.conflicting');
      await register(['fixed', 'split', 'plain'].map((id) => ({ id: `flag-${id}`, query: `flag ${id}`, answer: 'a', agent: 'flags' })));
      const corrected = await queue({ name: 'has-correction', rules: [{ filter: { hasCorrection: true, agent: 'flags' }, sample: 1 }] });
      const uncorrected = await queue({ name: 'no-correction', rules: [{ filter: { hasCorrection: 'false', agent: 'flags' }, sample: 1 }] });
      const conflicting = await queue({ name: 'conflicting', rules: [{ filter: { conflicting: 'true', agent: 'flags' }, sample: 1 }] });
      const process = async () => {
        const keys = await t.db.query<{ workspace_id: string; event_id: string }>(
          "SELECT p.workspace_id, p.event_id FROM pipeline_pending p JOIN feedback_events e ON e.workspace_id = p.workspace_id AND e.id = p.event_id WHERE p.workspace_id = $1 AND e.response_id LIKE 'flag-%'",
          [t.workspaceId],
        );
        await processEvents(t.db, keys.map((k) => [k.workspace_id, k.event_id]), { counters: { kind: 'outbox' }, stream: false });
      };
      const items = async (queueId: string) =>
        (await t.db.query<{ response_id: string }>('SELECT response_id FROM review_items WHERE workspace_id = $1 AND queue_id = $2 ORDER BY response_id', [t.workspaceId, queueId])).map((r) => r.response_id);
      expect((await call('POST', '/v1/feedback', { responseId: 'flag-fixed', type: 'correction', userId: 'u1', payload: { corrected: 'the right answer' } })).statusCode).toBe(202);
      expect((await call('POST', '/v1/feedback', { responseId: 'flag-split', type: 'thumbs_up', userId: 'u1' })).statusCode).toBe(202);
      expect((await call('POST', '/v1/feedback', { responseId: 'flag-plain', type: 'thumbs_up', userId: 'u1' })).statusCode).toBe(202);
      await process();
      // The same user, later, the other way: a conflict (a second thumb would replace the first vote).
      expect((await call('POST', '/v1/feedback', { responseId: 'flag-split', type: 'error_categories', userId: 'u1', payload: { categories: ['hallucination'] } })).statusCode).toBe(202);
      await process();
      expect(await items(corrected.id)).toEqual(['flag-fixed']);
      expect(await items(uncorrected.id)).toEqual(['flag-plain', 'flag-split']);
      // Conflicts are the score's: met once the rescore writes it.
      while ((await rescoreDirtyResponses(t.db)) > 0);
      const [split] = await t.db.query<{ conflicts: unknown[] }>('SELECT conflicts FROM response_scores WHERE workspace_id = $1 AND response_id = $2', [t.workspaceId, 'flag-split']);
      expect(split?.conflicts.length).toBeGreaterThan(0);
      expect(await items(conflicting.id)).toEqual(['flag-split']);
      const listed = await call('GET', '/v1/responses?agent=flags&conflicting=true');
      expect(listed.json().data.map((r: { id: string }) => r.id)).toEqual(['flag-split']);
      const fixed = await call('GET', '/v1/responses?agent=flags&hasCorrection=true');
      expect(fixed.json().data.map((r: { id: string }) => r.id)).toEqual(['flag-fixed']);
      const wrong = await call('GET', '/v1/responses?hasCorrection=yes');
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json().error.field).toBe('hasCorrection');
    });
  });
}
