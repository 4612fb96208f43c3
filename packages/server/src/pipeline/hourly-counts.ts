/**
 * The hourly counts quality alerts read (`feedback_metrics_hourly`): what one counted event adds
 * to its workspace's hour, gathered per batch, and the upsert that adds a batch's counts inside
 * the processing transaction. A rolling window is then a sum of hourly rows, never a scan.
 *
 * The counts are events, as the live counters are: a vote changed later is not taken back out of
 * its hour, a response corrected twice counts two corrections (docs/alerts.md, "Approximations").
 */
import { HOUR_MS, RATING_TYPES, type FeedbackEventType, type HourlyCounts, type Polarity } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import { sumJsonbCounts } from '../db/sum-jsonb-counts.js';

/** One workspace-hour's additions: core's hourly counts, named by workspace and ISO hour. */
export type HourlyDelta = Omit<HourlyCounts, 'hour'> & {
  ws: string;
  /** ISO 8601 start of the UTC hour. */
  hour: string;
};

const ratingTypes: ReadonlySet<FeedbackEventType> = new Set(RATING_TYPES);

/**
 * Adds one counted event to the batch's hourly deltas (keyed by workspace and hour), in place.
 *
 * @example
 * const deltas = new Map<string, HourlyDelta>();
 * addHourlyDelta(deltas, 'ws_1', { type: 'thumbs_down', polarity: 'negative', categories: ['wrong'], occurredAt });
 */
export function addHourlyDelta(
  into: Map<string, HourlyDelta>,
  workspaceId: string,
  event: { type: FeedbackEventType; polarity: Polarity; categories: readonly string[]; occurredAt: Date },
): void {
  const hour = new Date(Math.floor(event.occurredAt.getTime() / HOUR_MS) * HOUR_MS).toISOString();
  const key = `${workspaceId}\u0000${hour}`;
  let d = into.get(key);
  if (d === undefined) {
    d = { ws: workspaceId, hour, rated: 0, positive: 0, negative: 0, corrections: 0, escalations: 0, negativeCategories: {} };
    into.set(key, d);
  }
  if (ratingTypes.has(event.type) && (event.polarity === 'positive' || event.polarity === 'negative')) {
    d.rated++;
    d[event.polarity]++;
  }
  if (event.type === 'correction') d.corrections++;
  if (event.type === 'escalation') d.escalations++;
  if (event.polarity === 'negative') {
    const counts = d.negativeCategories;
    // Own properties only, as the daily rollup counts them: a category named `constructor` stays data.
    for (const c of new Set(event.categories)) Object.defineProperty(counts, c, { value: (Object.hasOwn(counts, c) ? (counts[c] ?? 0) : 0) + 1, enumerable: true, writable: true, configurable: true });
  }
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
