/**
 * Reviewing (issue 27; docs/review.md): `next` reserves an item for a reviewer and answers all
 * the reviewing screen shows; a review records it and becomes feedback; skip and release give the
 * item back. A reviewer key acts as its own reviewer; a secret key names one (`reviewer`), who
 * must be a member's name.
 */
import { pairOrder, pairwiseReviewSchema, singleReviewSchema, firstIssue } from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { SqlExecutor } from '../../db/sql-client.js';
import { FeedloopError } from '../../errors.js';
import { submitReview } from '../../ingest/review-submission.js';
import type { AuthContext } from '../../store/auth-context.js';
import { reviewedResponses, type ReviewedResponse } from '../../store/review-item-content.js';
import { memberNamed, type ReviewQueue } from '../../store/review-queues.js';
import { releaseItem, reserveNextItem, skipItem } from '../../store/review-reservations.js';
import { getReview, getReviewItem, type ReviewedItem } from '../../store/reviews.js';
import { scoreConfigsFor } from '../../store/score-configs.js';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';
import { readableQueue } from './review-queues.js';

const REVIEWER_NAME = z.string().min(1).max(64).regex(/^[A-Za-z0-9_\-.:@/]+$/, "not a reviewer's name");
const idParams = z.strictObject({ id: z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, 'not a review queue id') });
const itemParams = idParams.extend({ itemId: z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, 'not a review item id') });
const reviewerBody = z.strictObject({ reviewer: REVIEWER_NAME.optional().describe('With a secret key: the member reviewer to act for') }).prefault({});

const responseView = z.object({
  id: z.string(),
  query: z.string(),
  answer: z.string(),
  sources: z.array(z.unknown()),
  contextDocumentIds: z.array(z.unknown()),
  model: z.string().nullable(),
  agent: z.string().nullable(),
  experimentId: z.string().nullable(),
  variant: z.string().nullable(),
  createdAt: z.string(),
  feedback: z.array(z.object({ id: z.string(), type: z.string(), source: z.string(), userId: z.string().nullable(), payload: z.unknown(), occurredAt: z.string() })),
});

const reviewView = z.object({
  reviewer: z.string(),
  label: z.string().nullable(),
  scores: z.record(z.string(), z.union([z.number(), z.string()])),
  body: z.record(z.string(), z.unknown()),
  seconds: z.number().nullable(),
  firstResponseId: z.string().nullable(),
  version: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const rubricScoreView = z.object({
  id: z.string(),
  name: z.string(),
  dataType: z.enum(['numeric', 'categorical', 'boolean']),
  min: z.number().nullable(),
  max: z.number().nullable(),
  categories: z.array(z.object({ value: z.number(), label: z.string() })).nullable(),
  description: z.string().nullable(),
});

const itemScreen = z.object({
  queue: z.object({
    id: z.string(),
    name: z.string(),
    kind: z.enum(['single', 'pairwise']),
    instructions: z.string(),
    rubric: z.record(z.string(), z.unknown()),
    reviewersPerItem: z.number().int(),
  }),
  reviewer: z.string(),
  item: z.object({ id: z.string(), state: z.enum(['open', 'done']), reviews: z.number().int() }),
  reservation: z.object({ reservedAt: z.string(), expiresAt: z.string() }).nullable(),
  order: z.array(z.string()).describe('The response ids in the order shown to this reviewer (pairwise: randomized per item and reviewer)'),
  responses: z.array(responseView).describe('In the order shown'),
  myReview: reviewView.nullable().describe("This reviewer's review of the item so far"),
  scoreConfigs: z
    .array(rubricScoreView)
    .describe("The named scores the rubric asks for (rubric.scoreConfigs), in the rubric's order, archived ones left out: a reviewer key cannot read /v1/score-configs"),
});

/**
 * The rubric's named scores as the form renders them. Archived configs are left out: ingest
 * would refuse a new score against one, so the form must not ask for it.
 */
async function rubricScores(db: SqlExecutor, workspaceId: string, ids: readonly string[] | undefined): Promise<Array<z.infer<typeof rubricScoreView>>> {
  if (!ids || ids.length === 0) return [];
  const { byId } = await scoreConfigsFor(db, workspaceId, [], ids);
  return ids.flatMap((id) => {
    const c = byId.get(id);
    if (!c || c.archived) return [];
    return [{ id: c.id, name: c.name, dataType: c.dataType, min: c.min ?? null, max: c.max ?? null, categories: c.categories ?? null, description: c.description ?? null }];
  });
}

/**
 * Who reviews: a reviewer key's own name, or the member a secret key names.
 *
 * @throws FeedloopError `FEEDLOOP_ERR_VALIDATION_INVALID_FIELD` (no or a foreign `reviewer`),
 *   `FEEDLOOP_ERR_REVIEWER_NOT_MEMBER`.
 */
async function reviewerOf(db: SqlExecutor, auth: AuthContext, queue: ReviewQueue, named: string | undefined): Promise<string> {
  if (auth.kind === 'reviewer') {
    const own = auth.name ?? '';
    if (named !== undefined && named !== own) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'reviewer: a reviewer key reviews as itself only', { field: 'reviewer' });
    return own;
  }
  if (named === undefined) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'reviewer: a secret key names the member reviewer it acts for', { field: 'reviewer' });
  if ((await memberNamed(db, auth.workspaceId, queue, named)) === undefined) {
    throw new FeedloopError('FEEDLOOP_ERR_REVIEWER_NOT_MEMBER', `reviewer: ${JSON.stringify(named)} is no member of review queue ${queue.id}`, { field: 'reviewer' });
  }
  return named;
}

/** An item of a queue, or the 404. */
async function requireItem(db: SqlExecutor, workspaceId: string, queueId: string, itemId: string): Promise<ReviewedItem> {
  const item = await getReviewItem(db, workspaceId, queueId, itemId);
  if (!item) throw new FeedloopError('FEEDLOOP_ERR_REVIEW_ITEM_NOT_FOUND', `itemId: no item ${JSON.stringify(itemId)} in review queue ${queueId}`, { field: 'itemId' });
  return item;
}

/** Everything the reviewing screen shows of an item, for one reviewer. */
async function screenOf(
  db: SqlExecutor,
  workspaceId: string,
  queue: ReviewQueue,
  item: Pick<ReviewedItem, 'id' | 'responseId' | 'responseBId' | 'reviews'> & { state: 'open' | 'done' },
  reviewer: string,
  reservation: { reservedAt: Date; expiresAt: Date } | null,
): Promise<z.infer<typeof itemScreen>> {
  const order = item.responseBId === null ? [item.responseId] : pairOrder(item.id, reviewer, item.responseId, item.responseBId);
  const responses = await reviewedResponses(db, workspaceId, queue.id, order);
  // `next` only reserves items this reviewer has not reviewed: no review to read.
  const mine = reservation === null ? await getReview(db, workspaceId, item.id, reviewer) : undefined;
  const scoreConfigs = await rubricScores(db, workspaceId, queue.rubric.scoreConfigs);
  return {
    queue: { id: queue.id, name: queue.name, kind: queue.kind, instructions: queue.instructions, rubric: queue.rubric, reviewersPerItem: queue.reviewersPerItem },
    reviewer,
    item: { id: item.id, state: item.state, reviews: item.reviews },
    reservation: reservation ? { reservedAt: reservation.reservedAt.toISOString(), expiresAt: reservation.expiresAt.toISOString() } : null,
    order,
    responses: responses satisfies ReviewedResponse[],
    myReview: mine
      ? {
          reviewer: mine.reviewer,
          label: mine.label,
          scores: mine.scores,
          body: mine.body,
          seconds: mine.seconds,
          firstResponseId: mine.firstResponseId,
          version: mine.version,
          createdAt: mine.createdAt.toISOString(),
          updatedAt: mine.updatedAt.toISOString(),
        }
      : null,
    scoreConfigs,
  };
}

/** The reviewing routes. */
export const reviewingRoutes: FastifyPluginAsync<AppServices> = async (app, { db, ingest }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post('/v1/review-queues/:id/next', {
    config: { access: 'reviewer' },
    schema: {
      summary: "Reserve the next item this reviewer has not reviewed, for the queue's reservationSeconds; 204 when none is left",
      tags: ['review'],
      params: idParams,
      body: reviewerBody,
      response: { 200: itemScreen, 204: z.null() },
    },
    handler: async (request, reply) => {
      const auth = authOf(request);
      const queue = await readableQueue(db, auth, request.params.id);
      const reviewer = await reviewerOf(db, auth, queue, request.body.reviewer);
      const reserved = await reserveNextItem(db, auth.workspaceId, queue, reviewer);
      if (!reserved) return reply.status(204).send(null);
      const item = { id: reserved.itemId, responseId: reserved.responseId, responseBId: reserved.responseBId, reviews: reserved.reviews, state: 'open' as const };
      return screenOf(db, auth.workspaceId, queue, item, reviewer, reserved);
    },
  });

  r.get('/v1/review-queues/:id/items/:itemId', {
    config: { access: 'reviewer' },
    schema: {
      summary: 'What an item shows a reviewer (?reviewer= with a secret key): the responses in their order, feedback so far, instructions, rubric, their review',
      tags: ['review'],
      params: itemParams,
      querystring: z.strictObject({ reviewer: REVIEWER_NAME.optional() }),
      response: { 200: itemScreen },
    },
    handler: async (request) => {
      const auth = authOf(request);
      const queue = await readableQueue(db, auth, request.params.id);
      const reviewer = await reviewerOf(db, auth, queue, request.query.reviewer);
      const item = await requireItem(db, auth.workspaceId, queue.id, request.params.itemId);
      return screenOf(db, auth.workspaceId, queue, item, reviewer, null);
    },
  });

  r.post('/v1/review-queues/:id/items/:itemId/reviews', {
    config: { access: 'reviewer' },
    schema: {
      summary: 'Review an item: single { verdict, issues, qualityScores, correction, scores, comment }; pairwise { preferred: <response id> | "tie", reason }',
      tags: ['review'],
      params: itemParams,
      body: z.record(z.string(), z.unknown()).describe('The review (plus reviewer, with a secret key)'),
      response: {
        201: z.object({
          review: reviewView,
          itemState: z.enum(['open', 'done']),
          events: z.array(z.object({ id: z.string(), status: z.string(), error: z.object({ code: z.string(), message: z.string() }).optional() })),
        }),
      },
    },
    handler: async (request, reply) => {
      const auth = authOf(request);
      const queue = await readableQueue(db, auth, request.params.id);
      const { reviewer: named, ...rest } = request.body;
      const name = named === undefined ? undefined : REVIEWER_NAME.safeParse(named);
      if (name !== undefined && !name.success) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', "reviewer: not a reviewer's name", { field: 'reviewer' });
      const reviewer = await reviewerOf(db, auth, queue, name?.data);
      const parsed = queue.kind === 'pairwise' ? pairwiseReviewSchema.safeParse(rest) : singleReviewSchema.safeParse(rest);
      if (!parsed.success) {
        const e = firstIssue(parsed.error);
        throw new FeedloopError(e.code, e.message, e.field === undefined ? {} : { field: e.field });
      }
      const item = await requireItem(db, auth.workspaceId, queue.id, request.params.itemId);
      const done = await submitReview(db, ingest, auth, queue, item, reviewer, parsed.data);
      const v = done.review;
      return reply.status(201).send({
        review: {
          reviewer: v.reviewer,
          label: v.label,
          scores: v.scores,
          body: v.body,
          seconds: v.seconds,
          firstResponseId: v.firstResponseId,
          version: v.version,
          createdAt: v.createdAt.toISOString(),
          updatedAt: v.updatedAt.toISOString(),
        },
        itemState: done.itemState,
        events: done.events,
      });
    },
  });

  r.post('/v1/review-queues/:id/items/:itemId/skip', {
    config: { access: 'reviewer' },
    schema: { summary: 'Skip an item: its reservation ends and next never gives it to this reviewer again', tags: ['review'], params: itemParams, body: reviewerBody, response: { 200: z.object({ skipped: z.boolean() }) } },
    handler: async (request) => {
      const auth = authOf(request);
      const queue = await readableQueue(db, auth, request.params.id);
      const reviewer = await reviewerOf(db, auth, queue, request.body.reviewer);
      await requireItem(db, auth.workspaceId, queue.id, request.params.itemId);
      return { skipped: await skipItem(db, auth.workspaceId, queue.id, request.params.itemId, reviewer) };
    },
  });

  r.post('/v1/review-queues/:id/items/:itemId/release', {
    config: { access: 'reviewer' },
    schema: {
      summary: "Release this reviewer's reservation of an item (it may come back to them later)",
      tags: ['review'],
      params: itemParams,
      body: reviewerBody,
      response: { 200: z.object({ released: z.boolean().describe('Whether a live reservation was held') }) },
    },
    handler: async (request) => {
      const auth = authOf(request);
      const queue = await readableQueue(db, auth, request.params.id);
      const reviewer = await reviewerOf(db, auth, queue, request.body.reviewer);
      await requireItem(db, auth.workspaceId, queue.id, request.params.itemId);
      return { released: await releaseItem(db, auth.workspaceId, queue.id, request.params.itemId, reviewer) };
    },
  });
};
