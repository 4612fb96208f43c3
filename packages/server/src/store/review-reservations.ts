/**
 * `review_reservations` (issue 27, migration 0039): `next` reserves an item for one reviewer for
 * the queue's `reservationSeconds`; skip and release give it back.
 *
 * The rule every writer keeps: an item's reviews plus its live reservations never exceed the
 * queue's `reviewersPerItem`. Whoever adds a reservation or a review holds the item's row lock
 * (`FOR UPDATE`) and counts again under it, in a statement of its own (so it sees what committed
 * before the lock was granted). Candidates are found with `SKIP LOCKED`: concurrent reviewers
 * pass over each other's items instead of queueing behind them; only when that finds nothing does
 * `next` wait for a locked item that may still need the reviewer and search again, so a locked
 * item is never taken for a finished queue. Expiry and release only lower the count, so they need no lock.
 */
import { pairOrder } from '@feedloop/core';
import type { SqlClient, SqlExecutor } from '../db/sql-client.js';

/** A reservation `next` answers. */
export interface Reservation {
  itemId: string;
  responseId: string;
  responseBId: string | null;
  reviews: number;
  reservedAt: Date;
  expiresAt: Date;
  /** Pairwise: the response shown first to this reviewer. */
  firstResponseId: string | null;
}

/** Items `next` tries at most after finding full ones under their lock (a race lost each time). */
const MAX_TRIES = 20;

/** A live, unskipped reservation of another reviewer still counts against the item. */
const LIVE = 'NOT v.skipped AND v.expires_at > now()';

interface ItemRow {
  id: string;
  response_id: string;
  response_b_id: string | null;
  reviews: number;
}

/**
 * Reserves the next item of a queue this reviewer has neither reviewed nor skipped and that still
 * needs reviewers, for `reservationSeconds`; the reviewer's live reservation when it holds one
 * already (calling `next` twice gives the same item). `undefined`: nothing left for them.
 *
 * @example
 * await reserveNextItem(db, 'ws_1', { id: 'rq_1', reviewersPerItem: 2, reservationSeconds: 600 }, 'ann')
 */
export async function reserveNextItem(
  db: SqlClient,
  workspaceId: string,
  queue: { id: string; reviewersPerItem: number; reservationSeconds: number; kind: 'single' | 'pairwise' },
  reviewer: string,
): Promise<Reservation | undefined> {
  return db.transaction(async (tx) => {
    const [held] = await tx.query<ItemRow & { reserved_at: Date; expires_at: Date; first_response_id: string | null }>(
      `SELECT i.id, i.response_id, i.response_b_id, i.reviews, v.reserved_at, v.expires_at, v.first_response_id
         FROM review_reservations v JOIN review_items i ON i.workspace_id = v.workspace_id AND i.id = v.item_id
        WHERE v.workspace_id = $1 AND v.queue_id = $2 AND v.reviewer = $3 AND ${LIVE} AND i.state = 'open'
          AND NOT EXISTS (SELECT 1 FROM reviews r WHERE r.workspace_id = i.workspace_id AND r.item_id = i.id AND r.reviewer = $3)
        ORDER BY v.reserved_at LIMIT 1`,
      [workspaceId, queue.id, reviewer],
      { prepare: true },
    );
    if (held) return toReservation(held, held);
    // OFFSET 0 keeps each NOT EXISTS a probe of its primary key per candidate: pulled up into an
    // anti join, the planner read every review of the reviewer for each candidate (their number
    // grows all day). The statements are prepared: planning cost more than running them.
    let after = '';
    const find = async (lock: string) =>
      (
        await tx.query<ItemRow>(
          `SELECT i.id, i.response_id, i.response_b_id, i.reviews FROM review_items i
            WHERE i.workspace_id = $1 AND i.queue_id = $2 AND i.state = 'open' AND i.id > $4
              AND NOT EXISTS (SELECT 1 FROM reviews r WHERE r.workspace_id = i.workspace_id AND r.item_id = i.id AND r.reviewer = $3 OFFSET 0)
              AND NOT EXISTS (SELECT 1 FROM review_reservations v WHERE v.workspace_id = i.workspace_id AND v.item_id = i.id AND v.reviewer = $3
                                AND (v.skipped OR v.expires_at > now()) OFFSET 0)
              AND i.reviews + (SELECT count(*) FROM review_reservations v WHERE v.workspace_id = i.workspace_id AND v.item_id = i.id AND ${LIVE}) < $5
            ORDER BY i.id LIMIT 1 ${lock}`,
          [workspaceId, queue.id, reviewer, after, queue.reviewersPerItem],
          { prepare: true },
        )
      )[0];
    for (let tries = 0; tries < MAX_TRIES; tries++) {
      const candidate = await find('FOR UPDATE OF i SKIP LOCKED');
      if (!candidate) {
        // Skipping locked items says "nothing here" only of the items nobody holds: one left may be
        // locked for a moment by another reviewer's review or reservation and still need this
        // reviewer (a queue's last item, reviewed by both at once, answered 204 to the slower
        // one). So wait for that lock, then search again in a statement of its own: a search that
        // waited in place would re-check the row against what it read before the wait (the other
        // reviewer's reservation still counted, the review too) and pass over it. The wait's lock
        // is let go at once (the savepoint): waiting holding it, two reviewers could each wait for
        // the other's item; the full items this search keeps locked all lie before `after`, and
        // it waits only on one past it. PGlite has one writer: nothing there is locked by another.
        const locked = db.dialect === 'postgres' ? await find('') : undefined;
        if (!locked) return undefined;
        await tx.query('SAVEPOINT review_item_wait');
        await tx.query('SELECT 1 FROM review_items WHERE workspace_id = $1 AND id = $2 FOR UPDATE', [workspaceId, locked.id], { prepare: true });
        await tx.query('ROLLBACK TO SAVEPOINT review_item_wait');
        continue;
      }
      // Counted again under the lock: the search's snapshot predates it.
      if ((await heldCount(tx, workspaceId, candidate.id)) >= queue.reviewersPerItem) {
        after = candidate.id;
        continue;
      }
      const first = candidate.response_b_id === null ? null : pairOrder(candidate.id, reviewer, candidate.response_id, candidate.response_b_id)[0];
      const [made] = await tx.query<{ reserved_at: Date; expires_at: Date; first_response_id: string | null }>(
        `INSERT INTO review_reservations (workspace_id, queue_id, item_id, reviewer, reserved_at, expires_at, skipped, first_response_id)
         VALUES ($1, $2, $3, $4, now(), now() + make_interval(secs => $5), false, $6)
         ON CONFLICT (workspace_id, item_id, reviewer) DO UPDATE
           SET reserved_at = EXCLUDED.reserved_at, expires_at = EXCLUDED.expires_at, skipped = false, first_response_id = EXCLUDED.first_response_id
         RETURNING reserved_at, expires_at, first_response_id`,
        [workspaceId, queue.id, candidate.id, reviewer, queue.reservationSeconds, first],
        { prepare: true },
      );
      if (!made) throw new Error('the reservation insert returned no row');
      return toReservation(candidate, made);
    }
    return undefined;
  });
}

const toReservation = (item: ItemRow, v: { reserved_at: Date; expires_at: Date; first_response_id: string | null }): Reservation => ({
  itemId: item.id,
  responseId: item.response_id,
  responseBId: item.response_b_id,
  reviews: item.reviews,
  reservedAt: v.reserved_at,
  expiresAt: v.expires_at,
  firstResponseId: v.first_response_id,
});

/**
 * An item's reviews plus its live reservations (other than `except`'s): what it holds against
 * its `reviewersPerItem`. Read under the item's lock.
 */
export async function heldCount(db: SqlExecutor, workspaceId: string, itemId: string, except?: string): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `SELECT (SELECT reviews FROM review_items WHERE workspace_id = $1 AND id = $2)
          + (SELECT count(*)::int FROM review_reservations v WHERE v.workspace_id = $1 AND v.item_id = $2 AND ${LIVE} AND v.reviewer <> $3) AS n`,
    [workspaceId, itemId, except ?? ''],
    { prepare: true },
  );
  return row?.n ?? 0;
}

/**
 * Skips an item for a reviewer: their reservation (if any) ends, and `next` never gives them the
 * item again. `false` when the queue holds no such item.
 *
 * @example
 * await skipItem(db, 'ws_1', 'rq_1', 'ri_…', 'ann') // true
 */
export async function skipItem(db: SqlExecutor, workspaceId: string, queueId: string, itemId: string, reviewer: string): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO review_reservations (workspace_id, queue_id, item_id, reviewer, reserved_at, expires_at, skipped)
     SELECT i.workspace_id, i.queue_id, i.id, $4, now(), now(), true FROM review_items i WHERE i.workspace_id = $1 AND i.queue_id = $2 AND i.id = $3
     ON CONFLICT (workspace_id, item_id, reviewer) DO UPDATE SET expires_at = now(), skipped = true
     RETURNING item_id`,
    [workspaceId, queueId, itemId, reviewer],
  );
  return rows.length > 0;
}

/**
 * Releases a reviewer's reservation of an item: it counts for nobody, and `next` may give it to
 * them again later. Whether the reviewer held a live reservation.
 *
 * @example
 * await releaseItem(db, 'ws_1', 'rq_1', 'ri_…', 'ann') // true
 */
export async function releaseItem(db: SqlExecutor, workspaceId: string, queueId: string, itemId: string, reviewer: string): Promise<boolean> {
  const rows = await db.query(
    `DELETE FROM review_reservations v WHERE v.workspace_id = $1 AND v.queue_id = $2 AND v.item_id = $3 AND v.reviewer = $4 AND ${LIVE} RETURNING item_id`,
    [workspaceId, queueId, itemId, reviewer],
  );
  return rows.length > 0;
}
