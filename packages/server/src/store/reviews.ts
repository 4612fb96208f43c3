/**
 * `reviews` (issue 27, migration 0039): one row per (item, reviewer), written under the item's
 * lock with the reservation it ends. A reviewer's later review of the same item replaces the
 * row (its version counts up; the caller retracts the earlier version's feedback events, as a
 * newer vote replaces an older one). Rows are kept plain for the agreement statistics: queue,
 * item, reviewer, label, scores, seconds spent, the response shown first.
 */
import type { SqlClient, SqlExecutor } from '../db/sql-client.js';
import { FeedloopError } from '../errors.js';
import { appendAudit } from './audit-log.js';

/** A review as the reviews table keeps it. */
export interface StoredReview {
  queueId: string;
  itemId: string;
  reviewer: string;
  reviewerKeyId: string | null;
  /** The verdict, or the preferred response id / `tie` (pairwise); null: no verdict given. */
  label: string | null;
  scores: Record<string, number | string>;
  body: Record<string, unknown>;
  /** From the reservation to the review; null when it was made without a live reservation. */
  seconds: number | null;
  /** Pairwise: the response shown first to this reviewer. */
  firstResponseId: string | null;
  eventIds: string[];
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

interface ReviewRow {
  queue_id: string;
  item_id: string;
  reviewer: string;
  reviewer_key_id: string | null;
  label: string | null;
  scores: Record<string, number | string>;
  body: Record<string, unknown>;
  seconds: number | null;
  first_response_id: string | null;
  event_ids: string[];
  version: number;
  created_at: Date;
  updated_at: Date;
}

const toReview = (r: ReviewRow): StoredReview => ({
  queueId: r.queue_id,
  itemId: r.item_id,
  reviewer: r.reviewer,
  reviewerKeyId: r.reviewer_key_id,
  label: r.label,
  scores: r.scores,
  body: r.body,
  seconds: r.seconds,
  firstResponseId: r.first_response_id,
  eventIds: r.event_ids,
  version: r.version,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** An item of a queue as a review needs it. */
export interface ReviewedItem {
  id: string;
  responseId: string;
  responseBId: string | null;
  reviews: number;
  state: 'open' | 'done';
}

/**
 * One item of a queue; `undefined` when the queue holds none of that id.
 *
 * @example
 * await getReviewItem(db, 'ws_1', 'rq_1', 'ri_…')
 */
export async function getReviewItem(db: SqlExecutor, workspaceId: string, queueId: string, itemId: string): Promise<ReviewedItem | undefined> {
  const [row] = await db.query<{ id: string; response_id: string; response_b_id: string | null; reviews: number; state: 'open' | 'done' }>(
    'SELECT id, response_id, response_b_id, reviews, state FROM review_items WHERE workspace_id = $1 AND queue_id = $2 AND id = $3',
    [workspaceId, queueId, itemId],
  );
  return row ? { id: row.id, responseId: row.response_id, responseBId: row.response_b_id, reviews: row.reviews, state: row.state } : undefined;
}

/** The ids of a review version's feedback events: `rv:<item>:<reviewer>:<version>:<part>`. */
export function reviewEventId(itemId: string, reviewer: string, version: number, part: string): string {
  return `rv:${itemId}:${reviewer}:${version}:${part}`;
}

/** What a review writes, besides who and where. */
export interface ReviewWrite {
  label: string | null;
  scores: Record<string, number | string>;
  body: Record<string, unknown>;
  /** The parts of the feedback events it becomes (their ids follow from the version). */
  eventParts: readonly string[];
  /** The key that made the request, for the audit log when it is not the reviewer's own. */
  actorKeyId?: string;
}

/** What {@link recordReview} did. */
export interface RecordedReview {
  review: StoredReview;
  item: ReviewedItem;
  /** The replaced version's event ids (to retract); empty for a first review. */
  replacedEventIds: string[];
}

/**
 * Records a reviewer's review of an item under the item's lock: with their live reservation, or
 * without one while the item still needs a reviewer nobody else holds; a review replacing the
 * same reviewer's earlier one is always taken. Ends the reservation, counts the review, marks
 * the item done at `reviewersPerItem`, and writes the audit log's `review.submitted` (naming the
 * reviewer).
 *
 * @throws FeedloopError `FEEDLOOP_ERR_REVIEW_ITEM_NOT_FOUND`; `FEEDLOOP_ERR_REVIEW_RESERVATION_LOST`
 *   when the reservation is gone and the item has all the reviews it needs, or others hold them.
 * @example
 * await recordReview(db, 'ws_1', queue, 'ri_…', { name: 'ann', keyId: 'k1' }, { label: 'approved', … })
 */
export async function recordReview(
  db: SqlClient,
  workspaceId: string,
  queue: { id: string; reviewersPerItem: number },
  itemId: string,
  reviewer: { name: string; keyId: string | null },
  write: ReviewWrite,
): Promise<RecordedReview> {
  return db.transaction(async (tx) => {
    const [item] = await tx.query<{ id: string; response_id: string; response_b_id: string | null; reviews: number; state: 'open' | 'done' }>(
      'SELECT id, response_id, response_b_id, reviews, state FROM review_items WHERE workspace_id = $1 AND queue_id = $2 AND id = $3 FOR UPDATE',
      [workspaceId, queue.id, itemId],
      { prepare: true },
    );
    if (!item) throw new FeedloopError('FEEDLOOP_ERR_REVIEW_ITEM_NOT_FOUND', `itemId: no item ${JSON.stringify(itemId)} in this queue`, { field: 'itemId' });
    // One read under the lock (a statement of its own: it sees what committed before the lock
    // was granted): the reviewer's earlier review, their live reservation, others' live ones.
    const [state0] = await tx.query<{ earlier_version: number | null; earlier_event_ids: string[] | null; seconds: number | null; first_response_id: string | null; held: boolean; others: number }>(
      `SELECT e.version AS earlier_version, e.event_ids AS earlier_event_ids, h.seconds, h.first_response_id, h.seconds IS NOT NULL AS held,
              (SELECT count(*)::int FROM review_reservations v
                WHERE v.workspace_id = $1 AND v.item_id = $2 AND v.reviewer <> $3 AND NOT v.skipped AND v.expires_at > now()) AS others
         FROM (SELECT 1) AS one
         LEFT JOIN reviews e ON e.workspace_id = $1 AND e.item_id = $2 AND e.reviewer = $3
         LEFT JOIN LATERAL (SELECT extract(epoch FROM now() - v.reserved_at)::float8 AS seconds, v.first_response_id FROM review_reservations v
                             WHERE v.workspace_id = $1 AND v.item_id = $2 AND v.reviewer = $3 AND NOT v.skipped AND v.expires_at > now()) AS h ON true`,
      [workspaceId, itemId, reviewer.name],
      { prepare: true },
    );
    const earlier = state0?.earlier_version ?? null;
    const held = state0?.held === true;
    if (earlier === null && !held && item.reviews + (state0?.others ?? 0) >= queue.reviewersPerItem) {
      throw new FeedloopError(
        'FEEDLOOP_ERR_REVIEW_RESERVATION_LOST',
        `itemId: your reservation of ${itemId} expired or was released, and the item has the ${queue.reviewersPerItem} review(s) it needs (or others hold it); ask for the next item`,
        { field: 'itemId' },
      );
    }
    const version = (earlier ?? 0) + 1;
    const eventIds = write.eventParts.map((part) => reviewEventId(itemId, reviewer.name, version, part));
    const reviews = earlier === null ? item.reviews + 1 : item.reviews;
    const state: 'open' | 'done' = earlier === null ? (reviews >= queue.reviewersPerItem ? 'done' : 'open') : item.state;
    // The review, the end of the reservation and the item's count in one statement.
    const [row] = await tx.query<ReviewRow>(
      `WITH rv AS (
         INSERT INTO reviews (workspace_id, queue_id, item_id, reviewer, reviewer_key_id, label, scores, body, seconds, first_response_id, event_ids, version)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9, $10, $11::jsonb, $12)
         ON CONFLICT (workspace_id, item_id, reviewer) DO UPDATE
           SET reviewer_key_id = EXCLUDED.reviewer_key_id, label = EXCLUDED.label, scores = EXCLUDED.scores, body = EXCLUDED.body,
               seconds = coalesce(EXCLUDED.seconds, reviews.seconds), first_response_id = coalesce(EXCLUDED.first_response_id, reviews.first_response_id),
               event_ids = EXCLUDED.event_ids, version = EXCLUDED.version, updated_at = now()
         RETURNING *),
       ended AS (DELETE FROM review_reservations WHERE workspace_id = $1 AND item_id = $3 AND reviewer = $4 AND NOT skipped),
       counted AS (UPDATE review_items SET reviews = $13, state = $14 WHERE workspace_id = $1 AND id = $3 AND (reviews, state) IS DISTINCT FROM ($13::smallint, $14::text))
       SELECT * FROM rv`,
      [
        workspaceId,
        queue.id,
        itemId,
        reviewer.name,
        reviewer.keyId,
        write.label,
        JSON.stringify(write.scores),
        JSON.stringify(write.body),
        state0?.seconds ?? null,
        state0?.first_response_id ?? null,
        JSON.stringify(eventIds),
        version,
        reviews,
        state,
      ],
      { prepare: true },
    );
    if (!row) throw new Error('the review upsert returned no row');
    // In the review's own transaction: one commit less per review, and no review without its entry.
    await appendAudit(tx, {
      workspaceId,
      action: 'review.submitted',
      actorKeyId: reviewer.keyId ?? write.actorKeyId ?? null,
      subject: itemId,
      details: { reviewer: reviewer.name, queueId: queue.id, label: write.label, version },
    });
    return {
      review: toReview(row),
      item: { id: item.id, responseId: item.response_id, responseBId: item.response_b_id, reviews, state },
      replacedEventIds: state0?.earlier_event_ids ?? [],
    };
  });
}

/**
 * A queue's reviews (for the agreement statistics and exports), in item order.
 *
 * @example
 * await listQueueReviews(db, 'ws_1', 'rq_1') // [{ itemId, reviewer: 'ann', label: 'approved', … }]
 */
export async function listQueueReviews(db: SqlExecutor, workspaceId: string, queueId: string): Promise<StoredReview[]> {
  const rows = await db.query<ReviewRow>('SELECT * FROM reviews WHERE workspace_id = $1 AND queue_id = $2 ORDER BY item_id, created_at, reviewer', [workspaceId, queueId]);
  return rows.map(toReview);
}

/**
 * One reviewer's review of an item, if any.
 *
 * @example
 * await getReview(db, 'ws_1', 'ri_…', 'ann')
 */
export async function getReview(db: SqlExecutor, workspaceId: string, itemId: string, reviewer: string): Promise<StoredReview | undefined> {
  const [row] = await db.query<ReviewRow>('SELECT * FROM reviews WHERE workspace_id = $1 AND item_id = $2 AND reviewer = $3', [workspaceId, itemId, reviewer]);
  return row ? toReview(row) : undefined;
}
