/**
 * The agreement read of a review queue (issue 27, `GET /v1/review-queues/:id/agreement`): the
 * queue's reviews with their items' responses, in one bounded query. The statistics themselves
 * are core's (`queueAgreement`); this module only reads.
 *
 * Served by `reviews_queue` (workspace_id, queue_id, …) and the items' primary key. Item ids are
 * UUIDv7, so ordering by item id newest first keeps the most recent items when a queue has more
 * reviews than one read takes, and keeps each item's reviews together.
 */
import type { StoredReviewFacts } from '@feedloop/core';
import { createHash } from 'node:crypto';
import type { SqlExecutor } from '../db/sql-client.js';

/** Reviews one agreement read takes at most (20,000 items × 5 reviewers). */
export const AGREEMENT_MAX_REVIEWS = 100_000;

interface AgreementRow {
  item_id: string;
  reviewer: string;
  label: string | null;
  scores: Record<string, unknown> | null;
  seconds: number | null;
  first_response_id: string | null;
  response_id: string;
  response_b_id: string | null;
  version: number;
}

/** What {@link readQueueReviews} read. */
export interface QueueReviews {
  reviews: StoredReviewFacts[];
  /** The queue has more reviews than one read takes: the oldest items were left out. */
  truncated: boolean;
  /**
   * Names what was read: each review by (item, reviewer, version). A review is only ever added,
   * revised (its version grows) or erased, so equal fingerprints mean equal reviews.
   */
  fingerprint: string;
}

/**
 * A queue's reviews with their items' responses, newest items first, at most `limit` reviews; an
 * item cut by the limit is left out whole (a partial item would understate its agreement).
 *
 * @example
 * await readQueueReviews(db, 'ws_1', 'rq_1') // { reviews: [{ itemId, reviewer: 'ann', label: 'approved', … }], truncated: false }
 */
export async function readQueueReviews(db: SqlExecutor, workspaceId: string, queueId: string, limit = AGREEMENT_MAX_REVIEWS): Promise<QueueReviews> {
  const rows = await db.query<AgreementRow>(
    `SELECT r.item_id, r.reviewer, r.label, r.scores, r.seconds, r.first_response_id, i.response_id, i.response_b_id, r.version
       FROM reviews r JOIN review_items i ON i.workspace_id = r.workspace_id AND i.id = r.item_id
      WHERE r.workspace_id = $1 AND r.queue_id = $2
      ORDER BY r.item_id DESC, r.reviewer
      LIMIT $3`,
    [workspaceId, queueId, limit + 1],
  );
  let truncated = false;
  if (rows.length > limit) {
    truncated = true;
    const cut = rows[limit]!.item_id;
    while (rows.length > 0 && rows[rows.length - 1]!.item_id === cut) rows.pop();
  }
  return {
    reviews: rows.map((r) => ({
      itemId: r.item_id,
      reviewer: r.reviewer,
      label: r.label,
      scores: r.scores,
      seconds: r.seconds === null ? null : Number(r.seconds),
      firstResponseId: r.first_response_id,
      responseId: r.response_id,
      responseBId: r.response_b_id,
    })),
    truncated,
    fingerprint: createHash('sha256')
      .update(`${workspaceId}\u0000${queueId}\n`)
      .update(rows.map((r) => `${r.item_id}\u0000${r.reviewer}\u0000${r.version}`).join('\n'))
      .digest('base64url'),
  };
}
