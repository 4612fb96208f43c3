/**
 * Windowed counts for alert rules, summed from hourly buckets: a rolling window is the last N
 * buckets (the current hour included), and a category's baseline is the per-window average of
 * the days before it. Pure; the server reads the buckets and the registered totals.
 *
 * @module
 */

/** Milliseconds in an hour: the bucket width. */
export const HOUR_MS = 3_600_000;
const HOURS_PER_DAY = 24;

/** One hour of a workspace's processed feedback (a `feedback_metrics_hourly` row). */
export interface HourlyCounts {
  /** The bucket's start (a whole UTC hour). */
  hour: Date;
  /** Rating events (thumbs, ratings, usefulness) that were positive or negative. */
  rated: number;
  positive: number;
  negative: number;
  /** Correction events. */
  corrections: number;
  /** Escalation events. */
  escalations: number;
  /** Error category → negative events naming it. */
  negativeCategories: Record<string, number>;
}

/** A window's sums. */
export interface WindowCounts {
  rated: number;
  positive: number;
  negative: number;
  corrections: number;
  escalations: number;
  negativeCategories: Map<string, number>;
}

/**
 * The start of the oldest bucket in the last `hours` buckets at `now`: the current hour counts
 * as one, so the window spans between `hours − 1` and `hours` hours.
 *
 * @example
 * windowStart(new Date('2026-11-23T10:20:00Z'), 24).toISOString() // '2026-11-22T11:00:00.000Z'
 */
export function windowStart(now: Date, hours: number): Date {
  const currentHour = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  return new Date(currentHour - (hours - 1) * HOUR_MS);
}

/**
 * Sums the buckets whose hour lies in [from, to).
 *
 * @example
 * sumWindow(buckets, windowStart(now, 24), new Date(8.64e15)).rated
 */
export function sumWindow(buckets: readonly HourlyCounts[], from: Date, to: Date): WindowCounts {
  const sum: WindowCounts = { rated: 0, positive: 0, negative: 0, corrections: 0, escalations: 0, negativeCategories: new Map() };
  for (const b of buckets) {
    const t = b.hour.getTime();
    if (t < from.getTime() || t >= to.getTime()) continue;
    sum.rated += b.rated;
    sum.positive += b.positive;
    sum.negative += b.negative;
    sum.corrections += b.corrections;
    sum.escalations += b.escalations;
    for (const [category, n] of Object.entries(b.negativeCategories)) sum.negativeCategories.set(category, (sum.negativeCategories.get(category) ?? 0) + n);
  }
  return sum;
}

/**
 * A category's expected negatives in a window of `windowHours`: its negatives over the
 * `baselineDays` before the window, per day, scaled to the window (per-day normalized, so a 7-day
 * baseline compares with a 24 h window as one average day).
 *
 * @example
 * expectedInWindow(14, 7, 24) // 2: 14 negatives in a week is 2 a day
 */
export function expectedInWindow(baselineCount: number, baselineDays: number, windowHours: number): number {
  return (baselineCount / baselineDays) * (windowHours / HOURS_PER_DAY);
}

/** The first hour of the baseline before a window starting at `windowFrom`. */
export function baselineStart(windowFrom: Date, baselineDays: number): Date {
  return new Date(windowFrom.getTime() - baselineDays * HOURS_PER_DAY * HOUR_MS);
}
