/**
 * The daily rollup: ADR-016 `feedback_metrics_daily` plus the Feedback-and-RLHF rates
 * (positive, correction, escalation, response time), for the whole workspace and per agent,
 * model, query type, variant and error category. One {@link DailyMetrics} maps 1:1 onto one
 * `feedback_metrics_daily` row; `docs/metrics.md` holds the definitions for readers of the table.
 *
 * @module
 */
import { sumsOf, compareCodeUnits, type StatsSums, type SummedEvent, type SummedResponse } from './stats-sums.js';

/** One counted event of the day, with its classification and its response's dimensions. */
export interface RollupRow extends SummedEvent {
  eventId: string;
  /** The event's session, else its response's. */
  sessionId: string | null;
  agent: string | null;
  model: string | null;
  queryType: string | null;
  /** `experimentId/variant` (a variant is named within its experiment), or the bare variant. */
  variant: string | null;
}

/**
 * One response registered on the day, with its dimensions and what its feedback (of any day)
 * said: the population of the correction and escalation rates and of ADR-016's response and
 * session totals (Feedback-and-RLHF: "responses registered that day", not "responses that
 * received feedback").
 */
export interface RegisteredResponse extends SummedResponse {
  agent: string | null;
  model: string | null;
  queryType: string | null;
  /** As {@link RollupRow.variant}: experiment-qualified. */
  variant: string | null;
}

/** The slices a day is rolled up by, in output order. `all` is the whole workspace. */
export const ROLLUP_DIMENSIONS = ['all', 'agent', 'model', 'query_type', 'variant', 'category'] as const;

/** One of {@link ROLLUP_DIMENSIONS}. */
export type RollupDimension = (typeof ROLLUP_DIMENSIONS)[number];

/** Rates and averages of scores are percentages; NUMERIC(5,2) keeps 2 decimals. */
const PERCENT = 100;
const PERCENT_DECIMALS = 2;
/** avg_value is a mean in [-1, 1]; 4 decimals is finer than any dashboard shows and keeps rows stable. */
const VALUE_DECIMALS = 4;
/** avg_response_time_ms: sub-millisecond digits of a mean of whole milliseconds are noise. */
const RESPONSE_TIME_DECIMALS = 2;

/** One `feedback_metrics_daily` row (without workspace, day and computed_at, which the adapter adds). */
export interface DailyMetrics {
  dimension: (typeof ROLLUP_DIMENSIONS)[number];
  /** The agent, model, query type, variant or category; `''` for `all`. */
  dimensionValue: string;
  /** Counted events. */
  totalEvents: number;
  /** Responses registered that day (0 for a category slice: a category belongs to events). */
  totalResponses: number;
  /** Distinct sessions of those responses, a response without a session counting as one. */
  totalSessions: number;
  /** Positive events of the rating types (`RATING_TYPES`). */
  positiveRatings: number;
  /** Negative events of the rating types (`RATING_TYPES`). */
  negativeRatings: number;
  /** `skip` events. */
  skippedRatings: number;
  /** Responses accepted on first pass / responses judged (any first-pass verdict), × 100. */
  firstPassAcceptanceRate: number | null;
  /** Mean edit distance (0-100) of corrections, edits and reviews that state one. */
  averageEditDistance: number | null;
  /** Error category → negative events naming it. */
  errorCategoryCounts: Record<string, number>;
  /** Category → positive events naming it (Phase 4.1 `byCategory.positive`). */
  positiveCategoryCounts: Record<string, number>;
  /** Means of the `quality_scores` fields present (0-100). */
  avgAccuracyScore: number | null;
  avgCompletenessScore: number | null;
  avgStyleMatchScore: number | null;
  /** positiveRatings / (positiveRatings + negativeRatings) × 100. */
  positiveRate: number | null;
  /** Registered responses with a correction / totalResponses × 100; null for a category slice. */
  correctionRate: number | null;
  /** Sessions with an escalated response / totalSessions × 100; null for a category slice. */
  escalationRate: number | null;
  /** Mean of (occurredAt − responseCreatedAt), clamped at 0, in ms. */
  avgResponseTimeMs: number | null;
  /** Mean classification value, in [-1, 1]. */
  avgValue: number | null;
  /** The additive sums the rates come from, stored beside them so a range adds up exactly. */
  sums: StatsSums;
}

/**
 * Rolls a day up into one {@link DailyMetrics} per slice: `all` (value `''`), then one per
 * distinct non-null agent, model, query type and variant (of the events or of the responses
 * registered that day), and one per category an event carries (over the events carrying it).
 * Sorted by dimension in {@link ROLLUP_DIMENSIONS} order, then value in code-unit order. A day
 * with neither events nor registered responses gives `[]`.
 *
 * Event measures (ratings, first pass, edit distance, scores, response time, categories) are
 * over the day's events; the response totals and the correction and escalation rates are over
 * the responses registered that day, which a category slice has none of. Rates are percentages
 * rounded to 2 decimals, null when their denominator is 0. See `docs/metrics.md`.
 *
 * @example
 * const [all] = computeDailyMetrics(rows, registered); // 3 responses registered, one corrected
 * all.dimension // 'all'
 * all.correctionRate // 33.33
 */
export function computeDailyMetrics(rows: readonly RollupRow[], registered: readonly RegisteredResponse[] = []): DailyMetrics[] {
  const groups = new Map<RollupDimension, Map<string, { rows: RollupRow[]; registered: RegisteredResponse[] }>>(ROLLUP_DIMENSIONS.map((d) => [d, new Map()]));
  const slice = (dimension: RollupDimension, value: string) => {
    const byValue = groups.get(dimension);
    if (byValue === undefined) throw new Error(`unknown dimension ${dimension}`);
    let members = byValue.get(value);
    if (members === undefined) {
      members = { rows: [], registered: [] };
      byValue.set(value, members);
    }
    return members;
  };
  for (const row of rows) {
    for (const [dimension, value] of sliceKeys(row)) slice(dimension, value).rows.push(row);
    for (const category of new Set(row.categories)) slice('category', category).rows.push(row);
  }
  for (const response of registered) {
    for (const [dimension, value] of sliceKeys(response)) slice(dimension, value).registered.push(response);
  }
  return ROLLUP_DIMENSIONS.flatMap((dimension) =>
    [...(groups.get(dimension) ?? [])]
      .sort(([a], [b]) => compareCodeUnits(a, b))
      .map(([value, members]) => metricsOf(dimension, value, members.rows, members.registered)),
  );
}

/** The response-owned slices an event or a registered response belongs to (categories apart). */
function sliceKeys(of: Pick<RollupRow, 'agent' | 'model' | 'queryType' | 'variant'>): Array<[RollupDimension, string]> {
  const keys: Array<[RollupDimension, string]> = [['all', '']];
  if (of.agent !== null) keys.push(['agent', of.agent]);
  if (of.model !== null) keys.push(['model', of.model]);
  if (of.queryType !== null) keys.push(['query_type', of.queryType]);
  if (of.variant !== null) keys.push(['variant', of.variant]);
  return keys;
}

/** All measures of one slice; `rows` and `registered` are not both empty. */
function metricsOf(dimension: RollupDimension, dimensionValue: string, rows: readonly RollupRow[], registered: readonly RegisteredResponse[]): DailyMetrics {
  const sums = sumsOf(rows, registered);
  const byCategory = dimension === 'category';
  return {
    dimension,
    dimensionValue,
    totalEvents: sums.events,
    totalResponses: sums.responses,
    totalSessions: sums.sessions,
    positiveRatings: sums.positiveRatings,
    negativeRatings: sums.negativeRatings,
    skippedRatings: sums.skippedRatings,
    firstPassAcceptanceRate: percentOf(sums.firstPassAccepted, sums.firstPassJudged),
    averageEditDistance: meanOf(sums.editDistanceSum, sums.editDistanceCount, PERCENT_DECIMALS),
    errorCategoryCounts: sums.negativeCategoryCounts,
    positiveCategoryCounts: sums.positiveCategoryCounts,
    avgAccuracyScore: meanOf(sums.accuracySum, sums.accuracyCount, PERCENT_DECIMALS),
    avgCompletenessScore: meanOf(sums.completenessSum, sums.completenessCount, PERCENT_DECIMALS),
    avgStyleMatchScore: meanOf(sums.styleMatchSum, sums.styleMatchCount, PERCENT_DECIMALS),
    positiveRate: percentOf(sums.positiveRatings, sums.positiveRatings + sums.negativeRatings),
    correctionRate: byCategory ? null : percentOf(sums.correctedResponses, sums.responses),
    escalationRate: byCategory ? null : percentOf(sums.escalatedSessions, sums.sessions),
    avgResponseTimeMs: meanOf(sums.responseTimeSumMs, sums.responseTimeCount, RESPONSE_TIME_DECIMALS),
    avgValue: meanOf(sums.valueSum, sums.valueCount, VALUE_DECIMALS),
    sums,
  };
}

/**
 * numerator / denominator as a percentage with 2 decimals; null when the denominator is 0.
 *
 * @example
 * percentOf(1, 8) // 12.5
 */
export function percentOf(numerator: number, denominator: number): number | null {
  // Multiplying first keeps one rounding step: (1 * 100) / 8 is exactly 12.5.
  return denominator === 0 ? null : roundTo((numerator * PERCENT) / denominator, PERCENT_DECIMALS);
}

/**
 * sum / count rounded to `decimals` (2 by default); null when the count is 0.
 *
 * @example
 * meanOf(171, 2) // 85.5
 */
export function meanOf(sum: number, count: number, decimals = PERCENT_DECIMALS): number | null {
  return count === 0 ? null : roundTo(sum / count, decimals);
}

/** Rounds half away from zero, as PostgreSQL rounds NUMERIC, and never returns -0. */
function roundTo(x: number, decimals: number): number {
  const factor = 10 ** decimals;
  const magnitude = Math.round(Math.abs(x) * factor) / factor;
  return x < 0 && magnitude !== 0 ? -magnitude : magnitude;
}
