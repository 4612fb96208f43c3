/**
 * `feedback_metrics_hourly`, the hourly counts quality alerts read: the upsert that adds a batch's
 * counts inside the processing transaction (what one event adds is pipeline/hourly-counts.ts).
 */
import type { HourlyCounts } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import { sumJsonbCounts } from '../db/sum-jsonb-counts.js';

/** One workspace-hour's additions: core's hourly counts, named by workspace and ISO hour. */
export type HourlyDelta = Omit<HourlyCounts, 'hour'> & {
  ws: string;
  /** ISO 8601 start of the UTC hour. */
  hour: string;
};

/** Deletes the hourly counts of hours before `before` (no rule's window or baseline reaches them). */
export async function pruneHourlyCounts(db: SqlExecutor, before: Date): Promise<void> {
  await db.query('DELETE FROM feedback_metrics_hourly WHERE hour < $1', [before.toISOString()]);
}

/**
 * Adds a batch's hourly deltas inside the processing transaction; rows go in key order, so two
 * transactions adding to the same hours never deadlock.
 *
 * @example
 * await addHourlyCounts(tx, [...deltas.values()]);
 */
export async function addHourlyCounts(tx: SqlExecutor, deltas: readonly HourlyDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  const rows = [...deltas].sort((a, b) => (a.ws === b.ws ? (a.hour < b.hour ? -1 : 1) : a.ws < b.ws ? -1 : 1));
  await tx.query(
    `INSERT INTO feedback_metrics_hourly AS h (workspace_id, hour, rated, positive, negative, corrections, escalations, negative_categories)
     SELECT ws, hour, rated, positive, negative, corrections, escalations, "negativeCategories"
       FROM json_to_recordset($1::json) AS x(ws text, hour timestamptz, rated int, positive int, negative int, corrections int,
            escalations int, "negativeCategories" jsonb)
     ON CONFLICT (workspace_id, hour) DO UPDATE
       SET rated = h.rated + EXCLUDED.rated, positive = h.positive + EXCLUDED.positive, negative = h.negative + EXCLUDED.negative,
           corrections = h.corrections + EXCLUDED.corrections, escalations = h.escalations + EXCLUDED.escalations,
           negative_categories = ${sumJsonbCounts('h.negative_categories', 'EXCLUDED.negative_categories')}`,
    [JSON.stringify(rows)],
    { prepare: true },
  );
}
