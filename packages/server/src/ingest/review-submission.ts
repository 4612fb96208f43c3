/**
 * A review becomes feedback (issue 27): it is recorded under its item's lock (store/reviews.ts),
 * then its feedback events go through the one ingest path every event takes (IngestService), so
 * the pipeline weighs, scores and exports them like any other: voter = the reviewer's name,
 * metadata naming the queue and item. A reviewer's later review of the same item replaces the
 * earlier: the earlier version's events are retracted first, as a newer vote replaces an older.
 *
 * Order: the review row commits before its events. If the events then fail (the database gone),
 * the caller gets the error and retries; the retry is a replacement, which retracts whatever of
 * the first version was written and writes the events again under new ids.
 */
import {
  checkPairwiseReview,
  pairOrder,
  checkSingleReview,
  singleReviewEvents,
  singleReviewFigures,
  validateFeedbackEvent,
  type FeedbackEvent,
  type PairwiseReview,
  type ReviewEventPart,
  type ReviewProblem,
  type SingleReview,
} from '@feedloop/core';
import type { SqlClient } from '../db/sql-client.js';
import { FeedloopError } from '../errors.js';
import type { AuthContext } from '../store/auth-context.js';
import type { ReviewQueue } from '../store/review-queues.js';
import { recordReview, reviewEventId, type StoredReview } from '../store/reviews.js';
import { scoreConfigsFor } from '../store/score-configs.js';
import type { IngestService } from './ingest-service.js';

/** What a submitted review answers: the review and what became of its feedback events. */
export interface SubmittedReview {
  review: StoredReview;
  itemState: 'open' | 'done';
  events: Array<{ id: string; status: string; error?: { code: string; message: string } }>;
}

/** The signal source of every review event (docs/signals.md, "Sources"). */
const REVIEW_SOURCE = 'review';

const problemError = (p: ReviewProblem): FeedloopError =>
  new FeedloopError(p.kind === 'disabled' ? 'FEEDLOOP_ERR_REVIEW_FIELD_DISABLED' : 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', p.message, { field: p.field });

/**
 * The names of the score configs a rubric lists (its `scoreConfigs` are ids).
 */
async function rubricScoreNames(db: SqlClient, workspaceId: string, queue: ReviewQueue): Promise<Set<string>> {
  const ids = queue.rubric.scoreConfigs ?? [];
  if (ids.length === 0) return new Set();
  const { byId } = await scoreConfigsFor(db, workspaceId, [], ids);
  return new Set([...byId.values()].map((c) => c.name));
}

/**
 * The event part of a pairwise review: one `preference` on the item's first response, naming the
 * pair in the item's order, the preferred id (or tie) and the order this reviewer was shown.
 */
function pairwiseParts(review: PairwiseReview, pair: readonly [string, string], shown: readonly [string, string]): ReviewEventPart[] {
  return [
    {
      suffix: 'preference',
      type: 'preference',
      payload: { pair: [...pair], preferred: review.preferred, shown: [...shown], ...(review.reason === undefined ? {} : { reason: review.reason }) },
    },
  ];
}

/**
 * Validates a review against its queue, records it, and writes its feedback events.
 *
 * @throws FeedloopError `FEEDLOOP_ERR_REVIEW_FIELD_DISABLED`, `FEEDLOOP_ERR_VALIDATION_INVALID_FIELD`,
 *   `FEEDLOOP_ERR_REVIEW_ITEM_NOT_FOUND`, `FEEDLOOP_ERR_REVIEW_RESERVATION_LOST`.
 * @example
 * await submitReview(db, ingest, auth, queue, 'ri_…', 'ann', { verdict: 'approved' })
 */
export async function submitReview(
  db: SqlClient,
  ingest: IngestService,
  auth: AuthContext,
  queue: ReviewQueue,
  item: { id: string; responseId: string; responseBId: string | null },
  reviewer: string,
  body: SingleReview | PairwiseReview,
): Promise<SubmittedReview> {
  let parts: ReviewEventPart[];
  let label: string | null;
  let scores: Record<string, number | string> = {};
  if (queue.kind === 'pairwise') {
    if (item.responseBId === null) throw new Error(`pairwise item ${item.id} has one response`);
    const pair = [item.responseId, item.responseBId] as const;
    const review = body as PairwiseReview;
    const problem = checkPairwiseReview(review, pair);
    if (problem) throw problemError(problem);
    parts = pairwiseParts(review, pair, pairOrder(item.id, reviewer, pair[0], pair[1]));
    label = review.preferred;
  } else {
    const review = body as SingleReview;
    const problem = checkSingleReview(review, queue.rubric, await rubricScoreNames(db, auth.workspaceId, queue));
    if (problem) throw problemError(problem);
    parts = singleReviewEvents(review);
    ({ label, scores } = singleReviewFigures(review));
  }
  const recorded = await recordReview(db, auth.workspaceId, queue, item.id, { name: reviewer, keyId: auth.kind === 'reviewer' ? auth.keyId : null }, {
    label,
    scores,
    body: { ...body },
    eventParts: parts.map((p) => p.suffix),
    actorKeyId: auth.keyId,
  });
  for (const id of recorded.replacedEventIds) {
    await ingest.retractFeedback(auth, id, `replaced by ${reviewer}'s later review`).catch((err: unknown) => {
      // A replaced version whose events never got written (a failed first try) has nothing to retract.
      if (!(err instanceof FeedloopError && err.code === 'FEEDLOOP_ERR_FEEDBACK_NOT_FOUND')) throw err;
    });
  }
  const version = recorded.review.version;
  const events: FeedbackEvent[] = parts.map((part) => {
    const checked = validateFeedbackEvent({
      id: reviewEventId(item.id, reviewer, version, part.suffix),
      responseId: item.responseId,
      userId: reviewer,
      type: part.type,
      source: REVIEW_SOURCE,
      payload: part.payload,
      metadata: { reviewQueueId: queue.id, reviewItemId: item.id, reviewer },
    });
    // The parts are made from validated input; an event that fails here is a bug, not bad input.
    if (!checked.ok) throw new Error(`review event ${part.suffix} is invalid: ${checked.error.message}`);
    return checked.value;
  });
  const outcomes = await ingest.submitFeedback(auth, events, { verified: true });
  return {
    review: recorded.review,
    itemState: recorded.item.state,
    events: outcomes.map((o) => ({ id: o.id, status: o.status, ...(o.status === 'rejected' ? { error: { code: o.error.code, message: o.error.message } } : {}) })),
  };
}
