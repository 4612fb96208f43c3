/**
 * The hourly counts quality alerts read (`feedback_metrics_hourly`): what one counted event adds
 * to its workspace's hour, gathered per batch (store/hourly-metrics.ts adds a batch's counts inside
 * the processing transaction). A rolling window is then a sum of hourly rows, never a scan.
 *
 * The counts are events, as the live counters are: a vote changed later is not taken back out of
 * its hour, a response corrected twice counts two corrections (docs/alerts.md, "Approximations").
 */
import { HOUR_MS, RATING_TYPES, type FeedbackEventType, type Polarity } from '@feedloop/core';
import type { HourlyDelta } from '../store/hourly-metrics.js';

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
