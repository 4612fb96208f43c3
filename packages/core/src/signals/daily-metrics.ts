/**
 * The daily rollup: ADR-016 `feedback_metrics_daily` plus the Feedback-and-RLHF rates
 * (positive, correction, escalation, response time), for the whole workspace and per agent,
 * model, query type, variant and error category. One {@link DailyMetrics} maps 1:1 onto one
 * `feedback_metrics_daily` row; `docs/metrics.md` holds the definitions for readers of the table.
 *
 * @module
 */
import type { FeedbackEventType } from '../event-types.js';
import type { Polarity } from './signal-types.js';

/** One counted event of the day, with its classification and its response's dimensions. */
export interface RollupRow {
  eventId: string;
  type: FeedbackEventType;
  /** The event's payload as stored; read defensively. */
  payload: unknown;
  polarity: Polarity;
  categories: readonly string[];
  /** The classification's value in [-1, 1]. */
  value: number;
  firstPass: boolean | null;
  /** ADR-016 percentage of changed characters, for corrections and edits. */
  editDistance: number | null;
  occurredAt: Date;
  responseId: string;
  responseCreatedAt: Date;
  /** The event's session, else its response's. */
  sessionId: string | null;
  agent: string | null;
  model: string | null;
  queryType: string | null;
  variant: string | null;
}

/** The slices a day is rolled up by, in output order. `all` is the whole workspace. */
export const ROLLUP_DIMENSIONS = ['all', 'agent', 'model', 'query_type', 'variant', 'category'] as const;

/** One of {@link ROLLUP_DIMENSIONS}. */
export type RollupDimension = (typeof ROLLUP_DIMENSIONS)[number];

/** The explicit vote and rating types: ADR-016's `rating` column, and the RLHF positive rate's population. */
export const RATING_TYPES = ['thumbs_up', 'thumbs_down', 'rating', 'rate_usefulness'] as const satisfies readonly FeedbackEventType[];

/** Types whose `editDistance` column feeds the average edit distance (reviews carry theirs in the payload). */
const EDIT_DISTANCE_TYPES = ['correction', 'edit'] as const satisfies readonly FeedbackEventType[];

/** Rates and averages of scores are percentages; NUMERIC(5,2) keeps 2 decimals. */
const PERCENT = 100;
const PERCENT_DECIMALS = 2;
/** avg_value is a mean in [-1, 1]; 4 decimals is finer than any dashboard shows and keeps rows stable. */
const VALUE_DECIMALS = 4;
/** avg_response_time_ms: sub-millisecond digits of a mean of whole milliseconds are noise. */
const RESPONSE_TIME_DECIMALS = 2;

const ratingTypes: ReadonlySet<FeedbackEventType> = new Set(RATING_TYPES);
const editDistanceTypes: ReadonlySet<FeedbackEventType> = new Set(EDIT_DISTANCE_TYPES);

/** One `feedback_metrics_daily` row (without workspace, day and computed_at, which the adapter adds). */
export interface DailyMetrics {
  dimension: (typeof ROLLUP_DIMENSIONS)[number];
  /** The agent, model, query type, variant or category; `''` for `all`. */
  dimensionValue: string;
  /** Counted events. */
  totalEvents: number;
  /** Distinct responses those events are about. */
  totalResponses: number;
  /** Distinct non-null sessions of those events. */
  totalSessions: number;
  /** Positive events of {@link RATING_TYPES}. */
  positiveRatings: number;
  /** Negative events of {@link RATING_TYPES}. */
  negativeRatings: number;
  /** `skip` events. */
  skippedRatings: number;
  /** Responses accepted on first pass / responses judged (any first-pass verdict), × 100. */
  firstPassAcceptanceRate: number | null;
  /** Mean edit distance (0-100) of corrections, edits and reviews that state one. */
  averageEditDistance: number | null;
  /** Error category → negative events naming it. */
  errorCategoryCounts: Record<string, number>;
  /** Means of the `quality_scores` fields present (0-100). */
  avgAccuracyScore: number | null;
  avgCompletenessScore: number | null;
  avgStyleMatchScore: number | null;
  /** positiveRatings / (positiveRatings + negativeRatings) × 100. */
  positiveRate: number | null;
  /** Responses with a correction / totalResponses × 100. */
  correctionRate: number | null;
  /** Escalated sessions / sessions × 100; a response without a session is a session of its own. */
  escalationRate: number | null;
  /** Mean of (occurredAt − responseCreatedAt), clamped at 0, in ms. */
  avgResponseTimeMs: number | null;
  /** Mean classification value, in [-1, 1]. */
  avgValue: number | null;
}

/**
 * Rolls a day's counted events up into one {@link DailyMetrics} per slice: `all` (value `''`),
 * then one per distinct non-null agent, model, query type and variant, and one per category a
 * row carries (over the rows carrying it). Sorted by dimension in {@link ROLLUP_DIMENSIONS}
 * order, then value in code-unit order. Empty input gives `[]` (no `all` row for a quiet day).
 *
 * Per-response measures (correction, first pass) are computed over the slice's rows: agent,
 * model, query type and variant belong to the response, so those slices see whole responses;
 * a category slice sees only the events that name the category. Rates are percentages rounded
 * to 2 decimals, null when their denominator is 0. See `docs/metrics.md` for every definition.
 *
 * @example
 * const [all] = computeDailyMetrics(rows); // rows: 3 responses, one with a correction
 * all.dimension // 'all'
 * all.correctionRate // 33.33
 */
export function computeDailyMetrics(rows: readonly RollupRow[]): DailyMetrics[] {
  const groups = new Map<RollupDimension, Map<string, RollupRow[]>>(ROLLUP_DIMENSIONS.map((d) => [d, new Map()]));
  for (const row of rows) {
    for (const [dimension, value] of sliceKeys(row)) {
      const byValue = groups.get(dimension);
      if (byValue === undefined) continue;
      const members = byValue.get(value);
      if (members === undefined) byValue.set(value, [row]);
      else members.push(row);
    }
  }
  return ROLLUP_DIMENSIONS.flatMap((dimension) =>
    [...(groups.get(dimension) ?? [])]
      .sort(([a], [b]) => compareCodeUnits(a, b))
      .map(([value, members]) => metricsOf(dimension, value, members)),
  );
}

/** The slices one row belongs to. */
function sliceKeys(row: RollupRow): Array<[RollupDimension, string]> {
  const keys: Array<[RollupDimension, string]> = [['all', '']];
  if (row.agent !== null) keys.push(['agent', row.agent]);
  if (row.model !== null) keys.push(['model', row.model]);
  if (row.queryType !== null) keys.push(['query_type', row.queryType]);
  if (row.variant !== null) keys.push(['variant', row.variant]);
  for (const category of new Set(row.categories)) keys.push(['category', category]);
  return keys;
}

/** All measures of one slice; `rows` is non-empty. */
function metricsOf(dimension: RollupDimension, dimensionValue: string, rows: readonly RollupRow[]): DailyMetrics {
  const responses = new Set<string>();
  const sessions = new Set<string>();
  // A response without a session stands for a session of its own in the escalation rate; kept
  // apart from real session ids so no id can collide with a made-up one.
  const sessionlessResponses = new Set<string>();
  const escalatedSessions = new Set<string>();
  const escalatedSessionlessResponses = new Set<string>();
  const correctedResponses = new Set<string>();
  const acceptedOnce = new Set<string>();
  const rejectedOnce = new Set<string>();
  const categoryCounts = new Map<string, number>();
  const editDistances: number[] = [];
  const accuracy: number[] = [];
  const completeness: number[] = [];
  const styleMatch: number[] = [];
  const responseTimes: number[] = [];
  const values: number[] = [];
  let positiveRatings = 0;
  let negativeRatings = 0;
  let skippedRatings = 0;

  for (const row of rows) {
    responses.add(row.responseId);
    if (row.sessionId !== null) sessions.add(row.sessionId);
    else sessionlessResponses.add(row.responseId);
    if (row.type === 'escalation') {
      if (row.sessionId !== null) escalatedSessions.add(row.sessionId);
      else escalatedSessionlessResponses.add(row.responseId);
    }
    if (ratingTypes.has(row.type)) {
      if (row.polarity === 'positive') positiveRatings += 1;
      else if (row.polarity === 'negative') negativeRatings += 1;
    }
    if (row.type === 'skip') skippedRatings += 1;
    if (row.type === 'correction') correctedResponses.add(row.responseId);
    if (row.firstPass === true) acceptedOnce.add(row.responseId);
    else if (row.firstPass === false) rejectedOnce.add(row.responseId);
    if (row.polarity === 'negative') {
      for (const category of new Set(row.categories)) categoryCounts.set(category, (categoryCounts.get(category) ?? 0) + 1);
    }
    const editDistance = editDistanceOf(row);
    if (editDistance !== null) editDistances.push(editDistance);
    if (row.type === 'quality_scores') {
      pushDefined(accuracy, percentField(row.payload, 'accuracy'));
      pushDefined(completeness, percentField(row.payload, 'completeness'));
      pushDefined(styleMatch, percentField(row.payload, 'styleMatch'));
    }
    const sinceResponseMs = row.occurredAt.getTime() - row.responseCreatedAt.getTime();
    // Clamped: a client clock may date feedback a little before its response (within the skew ingest allows).
    if (Number.isFinite(sinceResponseMs)) responseTimes.push(Math.max(0, sinceResponseMs));
    if (Number.isFinite(row.value)) values.push(row.value);
  }

  const judged = new Set([...acceptedOnce, ...rejectedOnce]).size;
  const accepted = [...acceptedOnce].filter((id) => !rejectedOnce.has(id)).length;
  return {
    dimension,
    dimensionValue,
    totalEvents: rows.length,
    totalResponses: responses.size,
    totalSessions: sessions.size,
    positiveRatings,
    negativeRatings,
    skippedRatings,
    firstPassAcceptanceRate: percentOf(accepted, judged),
    averageEditDistance: roundedMean(editDistances, PERCENT_DECIMALS),
    errorCategoryCounts: Object.fromEntries([...categoryCounts].sort(([a], [b]) => compareCodeUnits(a, b))),
    avgAccuracyScore: roundedMean(accuracy, PERCENT_DECIMALS),
    avgCompletenessScore: roundedMean(completeness, PERCENT_DECIMALS),
    avgStyleMatchScore: roundedMean(styleMatch, PERCENT_DECIMALS),
    positiveRate: percentOf(positiveRatings, positiveRatings + negativeRatings),
    correctionRate: percentOf(correctedResponses.size, responses.size),
    escalationRate: percentOf(escalatedSessions.size + escalatedSessionlessResponses.size, sessions.size + sessionlessResponses.size),
    avgResponseTimeMs: roundedMean(responseTimes, RESPONSE_TIME_DECIMALS),
    avgValue: roundedMean(values, VALUE_DECIMALS),
  };
}

/**
 * A row's edit distance, if it states one: the column for corrections and edits; for a review,
 * its payload's `editDistance`, else the column (in case ingest ever copies it there).
 */
function editDistanceOf(row: RollupRow): number | null {
  if (editDistanceTypes.has(row.type)) return row.editDistance !== null && Number.isFinite(row.editDistance) ? row.editDistance : null;
  if (row.type === 'review') return percentField(row.payload, 'editDistance') ?? row.editDistance;
  return null;
}

/**
 * A payload field that is a percentage (a finite number in 0-100), else undefined. The payload
 * was validated at ingest, but rows outlive schema changes, and a value out of range would
 * overflow NUMERIC(5,2) and fail the whole rollup.
 */
function percentField(payload: unknown, key: string): number | undefined {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload) || !Object.hasOwn(payload, key)) return undefined;
  const value: unknown = (payload as Record<string, unknown>)[key];
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= PERCENT ? value : undefined;
}

function pushDefined(into: number[], value: number | undefined): void {
  if (value !== undefined) into.push(value);
}

/** numerator / denominator as a percentage with 2 decimals; null when the denominator is 0. */
function percentOf(numerator: number, denominator: number): number | null {
  // Multiplying first keeps one rounding step: (1 * 100) / 8 is exactly 12.5.
  return denominator === 0 ? null : roundTo((numerator * PERCENT) / denominator, PERCENT_DECIMALS);
}

function roundedMean(values: readonly number[], decimals: number): number | null {
  if (values.length === 0) return null;
  let sum = 0;
  for (const v of values) sum += v;
  return roundTo(sum / values.length, decimals);
}

/** Rounds half away from zero, as PostgreSQL rounds NUMERIC, and never returns -0. */
function roundTo(x: number, decimals: number): number {
  const factor = 10 ** decimals;
  const magnitude = Math.round(Math.abs(x) * factor) / factor;
  return x < 0 && magnitude !== 0 ? -magnitude : magnitude;
}

/** Plain code-unit order, independent of locale, so every process sorts values identically. */
function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
