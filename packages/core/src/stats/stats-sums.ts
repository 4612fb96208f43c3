/**
 * Additive sums behind every rate and average of the stats: counts, numerators, denominators,
 * sums and their sample sizes. Rates cannot be added across days or slices, sums can: the daily
 * rollup and the stats cells store these, and `GET /v1/stats` adds them over its range and
 * divides once, so a 90-day rate is exact, not a mean of daily rates.
 *
 * @module
 */
import { isUserSource, sourceOfType, type FeedbackEventType } from '../event-types.js';
import type { Polarity } from '../signals/signal-types.js';

/** The explicit vote and rating types: ADR-016's `rating` column, and the satisfaction rate's population. */
export const RATING_TYPES = ['thumbs_up', 'thumbs_down', 'rating', 'rate_usefulness'] as const satisfies readonly FeedbackEventType[];

/** Types whose `editDistance` column feeds the average edit distance (reviews carry theirs in the payload). */
const EDIT_DISTANCE_TYPES = ['correction', 'edit'] as const satisfies readonly FeedbackEventType[];
const PERCENT = 100;

const ratingTypes: ReadonlySet<FeedbackEventType> = new Set(RATING_TYPES);
const editDistanceTypes: ReadonlySet<FeedbackEventType> = new Set(EDIT_DISTANCE_TYPES);

/** One counted event, as much of it as the sums need. */
export interface SummedEvent {
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
  /** The event's source; absent counts as a user's (rows of older callers). */
  source?: string;
}

/** One response registered on the day and what its feedback (of any day) said. */
export interface SummedResponse {
  responseId: string;
  /** Its session; `null` stands for a session of its own. */
  sessionId: string | null;
  /** Whether a counted correction is about it (on whichever day). */
  corrected: boolean;
  /** Whether a counted escalation is about it (on whichever day). */
  escalated: boolean;
}

/** The sums of one slice of one day (or, added up, of a range). */
export interface StatsSums {
  /** Counted events. */
  events: number;
  /** Positive / negative events of {@link RATING_TYPES}. */
  positiveRatings: number;
  negativeRatings: number;
  /** `skip` events. */
  skippedRatings: number;
  /** Responses registered, and of those the ones with a correction. */
  responses: number;
  correctedResponses: number;
  /** Sessions of the registered responses (a sessionless response counts as one), and the escalated ones. */
  sessions: number;
  escalatedSessions: number;
  /** Responses accepted on first pass, and responses judged (any first-pass verdict). */
  firstPassAccepted: number;
  firstPassJudged: number;
  /** Sum and count of the edit distances (0-100) stated by corrections, edits and reviews. */
  editDistanceSum: number;
  editDistanceCount: number;
  /** Sums and counts of the `quality_scores` fields (0-100). */
  accuracySum: number;
  accuracyCount: number;
  completenessSum: number;
  completenessCount: number;
  styleMatchSum: number;
  styleMatchCount: number;
  /** Sum and count of (occurredAt − responseCreatedAt), clamped at 0, in ms. */
  responseTimeSumMs: number;
  responseTimeCount: number;
  /** Sum and count of the classification values. */
  valueSum: number;
  valueCount: number;
  /** Category → negative events naming it (ADR-016 error_category_counts). */
  negativeCategoryCounts: Record<string, number>;
  /** Category → positive events naming it (Phase 4.1 byCategory.positive). */
  positiveCategoryCounts: Record<string, number>;
  /**
   * Source → counted events of it, of every source: they add up to `events`. Every other measure
   * above counts the users' sources only (explicit, implicit, outcome): a reviewer's or a judge's
   * verdict is counted here and in the two below, never in a user figure (docs/metrics.md).
   */
  sourceEvents: Record<string, number>;
  /** Source → positive / negative events of the rating types (as `positiveRatings`, per source). */
  sourcePositive: Record<string, number>;
  sourceNegative: Record<string, number>;
}

/**
 * The sums of a slice: event measures over `events`, response measures over `registered`.
 * A category counts once per event however often the event names it.
 *
 * @example
 * sumsOf([thumbsUp], [{ responseId: 'r1', sessionId: null, corrected: true, escalated: false }])
 * // { events: 1, positiveRatings: 1, responses: 1, correctedResponses: 1, sessions: 1, ... }
 */
export function sumsOf(events: readonly SummedEvent[], registered: readonly SummedResponse[]): StatsSums {
  const sums = emptySums();
  const acceptedOnce = new Set<string>();
  const rejectedOnce = new Set<string>();
  const negative = new Map<string, number>();
  const positive = new Map<string, number>();
  const bySource = new Map<string, number>();
  const sourcePositive = new Map<string, number>();
  const sourceNegative = new Map<string, number>();
  for (const e of events) {
    sums.events += 1;
    const source = e.source ?? sourceOfType(e.type);
    bySource.set(source, (bySource.get(source) ?? 0) + 1);
    if (ratingTypes.has(e.type) && e.polarity !== 'neutral') {
      const into = e.polarity === 'positive' ? sourcePositive : sourceNegative;
      into.set(source, (into.get(source) ?? 0) + 1);
    }
    // What a reviewer or a judge said is counted by source above and in no user measure below.
    if (e.source !== undefined && !isUserSource(e.source)) continue;
    if (ratingTypes.has(e.type)) {
      if (e.polarity === 'positive') sums.positiveRatings += 1;
      else if (e.polarity === 'negative') sums.negativeRatings += 1;
    }
    if (e.type === 'skip') sums.skippedRatings += 1;
    if (e.firstPass === true) acceptedOnce.add(e.responseId);
    else if (e.firstPass === false) rejectedOnce.add(e.responseId);
    const counts = e.polarity === 'negative' ? negative : e.polarity === 'positive' ? positive : undefined;
    if (counts !== undefined) for (const c of new Set(e.categories)) counts.set(c, (counts.get(c) ?? 0) + 1);
    const editDistance = editDistanceOf(e);
    if (editDistance !== null) {
      sums.editDistanceSum += editDistance;
      sums.editDistanceCount += 1;
    }
    if (e.type === 'quality_scores') {
      const accuracy = percentField(e.payload, 'accuracy');
      const completeness = percentField(e.payload, 'completeness');
      const styleMatch = percentField(e.payload, 'styleMatch');
      if (accuracy !== undefined) [sums.accuracySum, sums.accuracyCount] = [sums.accuracySum + accuracy, sums.accuracyCount + 1];
      if (completeness !== undefined) [sums.completenessSum, sums.completenessCount] = [sums.completenessSum + completeness, sums.completenessCount + 1];
      if (styleMatch !== undefined) [sums.styleMatchSum, sums.styleMatchCount] = [sums.styleMatchSum + styleMatch, sums.styleMatchCount + 1];
    }
    const sinceResponseMs = e.occurredAt.getTime() - e.responseCreatedAt.getTime();
    // Clamped: a client clock may date feedback a little before its response (within the skew ingest allows).
    if (Number.isFinite(sinceResponseMs)) {
      sums.responseTimeSumMs += Math.max(0, sinceResponseMs);
      sums.responseTimeCount += 1;
    }
    if (Number.isFinite(e.value)) {
      sums.valueSum += e.value;
      sums.valueCount += 1;
    }
  }
  sums.firstPassJudged = new Set([...acceptedOnce, ...rejectedOnce]).size;
  sums.firstPassAccepted = [...acceptedOnce].filter((id) => !rejectedOnce.has(id)).length;
  sums.negativeCategoryCounts = sortedRecord(negative);
  sums.positiveCategoryCounts = sortedRecord(positive);
  sums.sourceEvents = sortedRecord(bySource);
  sums.sourcePositive = sortedRecord(sourcePositive);
  sums.sourceNegative = sortedRecord(sourceNegative);

  const sessions = new Set<string>();
  const escalated = new Set<string>();
  for (const r of registered) {
    // A sessionless response's made-up key lives in a namespace no real session id can reach.
    const session = r.sessionId === null ? `\u0000${r.responseId}` : `s${r.sessionId}`;
    sessions.add(session);
    if (r.escalated) escalated.add(session);
    sums.responses += 1;
    if (r.corrected) sums.correctedResponses += 1;
  }
  sums.sessions = sessions.size;
  sums.escalatedSessions = escalated.size;
  return sums;
}

/** Sums of nothing: the identity of {@link addSums}. */
export function emptySums(): StatsSums {
  return {
    events: 0,
    positiveRatings: 0,
    negativeRatings: 0,
    skippedRatings: 0,
    responses: 0,
    correctedResponses: 0,
    sessions: 0,
    escalatedSessions: 0,
    firstPassAccepted: 0,
    firstPassJudged: 0,
    editDistanceSum: 0,
    editDistanceCount: 0,
    accuracySum: 0,
    accuracyCount: 0,
    completenessSum: 0,
    completenessCount: 0,
    styleMatchSum: 0,
    styleMatchCount: 0,
    responseTimeSumMs: 0,
    responseTimeCount: 0,
    valueSum: 0,
    valueCount: 0,
    negativeCategoryCounts: {},
    positiveCategoryCounts: {},
    sourceEvents: {},
    sourcePositive: {},
    sourceNegative: {},
  };
}

/**
 * `a + b`, field by field (category counts merged by key), as a new object. Sessions add up as
 * session-days: a session seen on two days, or in two cells, counts in each.
 *
 * @example
 * addSums(sumsOf([up], []), sumsOf([down], [])).events // 2
 */
export function addSums(a: StatsSums, b: StatsSums): StatsSums {
  return addSumsInto(addSumsInto(emptySums(), a), b);
}

/** The sums' count records (key → count), merged key by key; every other field is a number. */
const RECORD_KEYS = ['negativeCategoryCounts', 'positiveCategoryCounts', 'sourceEvents', 'sourcePositive', 'sourceNegative'] as const;
type RecordKey = (typeof RECORD_KEYS)[number];
const recordKeys: ReadonlySet<string> = new Set(RECORD_KEYS);

const NUMERIC_KEYS = (Object.keys(emptySums()) as Array<keyof StatsSums>).filter((k): k is Exclude<keyof StatsSums, RecordKey> => !recordKeys.has(k));

/**
 * Adds `b` into `target` in place and returns it: the allocation-free form of {@link addSums}
 * for folding many rows (a 90-day report adds hundreds). Category keys keep insertion order;
 * readers sort them.
 *
 * @example
 * const total = emptySums(); for (const d of days) addSumsInto(total, d.sums);
 */
export function addSumsInto(target: StatsSums, b: StatsSums): StatsSums {
  for (const key of NUMERIC_KEYS) target[key] += b[key] ?? 0;
  // Sums stored before a record existed lack it (the source records came with issue 26's sources).
  for (const key of RECORD_KEYS) addCountsInto((target[key] ??= {}), b[key]);
  return target;
}

/**
 * The sums without their zero counts and empty records: what a per-user row stores. A user's day
 * is a handful of events, so most of its 27 fields are zero; written whole, a busy day's 33,000
 * users were 13 MB of JSON for the database to parse (docs/benchmarks.md, "Eleventh session").
 * {@link expandSums} gives the whole sums back; {@link addSumsInto} takes either form.
 *
 * @example
 * compactSums(sumsOf([up], [])) // { events: 1, positiveRatings: 1, sourceEvents: { explicit: 1 }, sourcePositive: { explicit: 1 } }
 */
export function compactSums(sums: StatsSums): Partial<StatsSums> {
  const compact: Partial<StatsSums> = {};
  for (const key of NUMERIC_KEYS) if (sums[key] !== 0) compact[key] = sums[key];
  for (const key of RECORD_KEYS) if (Object.keys(sums[key]).length > 0) compact[key] = sums[key];
  return compact;
}

/**
 * Whole sums from a compacted row ({@link compactSums}) or a whole one: every field present.
 *
 * @example
 * expandSums({ events: 1 }).negativeRatings // 0
 */
export function expandSums(stored: Partial<StatsSums>): StatsSums {
  return addSumsInto(emptySums(), stored as StatsSums);
}

function addCountsInto(target: Record<string, number>, b: Record<string, number> | undefined): void {
  if (b === undefined) return;
  for (const [k, v] of Object.entries(b)) {
    // defineProperty, not assignment: a category named `__proto__` must stay a plain count.
    if (Object.hasOwn(target, k)) target[k] = (target[k] ?? 0) + v;
    else Object.defineProperty(target, k, { value: v, writable: true, enumerable: true, configurable: true });
  }
}

/**
 * A review's edit distance is in its payload (else the column, in case ingest ever copies it
 * there); corrections and edits carry theirs in the column.
 */
function editDistanceOf(e: SummedEvent): number | null {
  if (editDistanceTypes.has(e.type)) return e.editDistance !== null && Number.isFinite(e.editDistance) ? e.editDistance : null;
  if (e.type === 'review') return percentField(e.payload, 'editDistance') ?? e.editDistance;
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

/** Plain code-unit order, independent of locale, so every process sorts keys identically. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedRecord(counts: ReadonlyMap<string, number>): Record<string, number> {
  // Object.fromEntries defines own properties, so a category named `__proto__` stays data.
  return Object.fromEntries([...counts].sort(([a], [b]) => compareCodeUnits(a, b)));
}
