/**
 * ADR-016 real-time counters: the flat hash fields one processed event increments (the Redis
 * `HINCRBY feedback:<workspace>:<day>` of the seed), batching those increments per flush, and
 * turning a day's hash back into the shape the live dashboard reads. Pure; the server's counter
 * store owns the keys, expiry and the round trips.
 *
 * @module
 */
import { isUserSource, type FeedbackEventType } from '../event-types.js';
import type { Polarity, Severity } from './signal-types.js';
import { RATING_TYPES } from '../stats/stats-sums.js';

/** Field counting every event the pipeline finished with, counted or dropped. */
const TOTAL_FIELD = 'total';
/** Field counting events the pipeline dropped (duplicates, superseded votes, ...). */
const DROPPED_FIELD = 'dropped';
/** Prefixes of the per-value fields: `type:thumbs_up`, `polarity:negative`, `severity:high`. */
const TYPE_PREFIX = 'type:';
const POLARITY_PREFIX = 'polarity:';
const SEVERITY_PREFIX = 'severity:';
/** Prefix of the counted events per source: `source:judge`. */
const SOURCE_PREFIX = 'source:';
/** Length of an ISO-8601 `YYYY-MM-DD` date at the start of `toISOString()`. */
const ISO_DAY_LENGTH = 10;
/** Counted ratings by polarity, kept under the day the event occurred (not received): see {@link ratedCounterFields}. */
const RATED_PREFIX = 'rated:';
const RATED_TYPES: ReadonlySet<FeedbackEventType> = new Set(RATING_TYPES);

/**
 * The UTC calendar day of an instant, `YYYY-MM-DD`: the day a live counter and a daily rollup
 * row belong to. UTC so that every process (and the SQL rollup) cuts days at the same instant,
 * whatever its local time zone.
 *
 * @example
 * utcDay(new Date('2026-03-01T23:30:00-02:00')) // '2026-03-02'
 */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, ISO_DAY_LENGTH);
}

/** What the counters need to know about one event the pipeline finished with. */
export interface LiveCounterInput {
  type: FeedbackEventType;
  polarity: Polarity;
  severity: Severity;
  /** `counted`: it went into scores and rollups; `dropped`: it was judged a duplicate or superseded. */
  status: 'counted' | 'dropped';
  /** The event's source; absent: a user's. */
  source?: string;
}

/**
 * The counter fields one event increments by 1. Every event counts in `total` and `type:<type>`,
 * so the per-type numbers always add up to the total. A counted event also counts in
 * `polarity:<polarity>` and, when it has one, `severity:<severity>`; a dropped event counts in
 * `dropped` instead, so dropped noise never moves the positive/negative numbers.
 *
 * @example
 * liveCounterFields({ type: 'thumbs_down', polarity: 'negative', severity: 'medium', status: 'counted' })
 * // ['total', 'type:thumbs_down', 'polarity:negative', 'severity:medium']
 * liveCounterFields({ type: 'thumbs_up', polarity: 'positive', severity: 'none', status: 'dropped' })
 * // ['total', 'type:thumbs_up', 'dropped']
 * liveCounterFields({ type: 'thumbs_up', polarity: 'positive', severity: 'none', status: 'counted', source: 'judge' })
 * // ['total', 'type:thumbs_up', 'source:judge']
 */
export function liveCounterFields(input: LiveCounterInput): string[] {
  const fields = [TOTAL_FIELD, `${TYPE_PREFIX}${input.type}`];
  if (input.status === 'dropped') {
    fields.push(DROPPED_FIELD);
    return fields;
  }
  if (input.source !== undefined) fields.push(`${SOURCE_PREFIX}${input.source}`);
  // Polarity and severity are what users said; a reviewer's or a judge's verdict counts by source only.
  if (input.source !== undefined && !isUserSource(input.source)) return fields;
  fields.push(`${POLARITY_PREFIX}${input.polarity}`);
  if (input.severity !== 'none') fields.push(`${SEVERITY_PREFIX}${input.severity}`);
  return fields;
}

/** Pending increments: workspace id → day (`YYYY-MM-DD`) → field → amount. */
export type CounterDeltas = Record<string /* workspaceId */, Record<string /* day */, Record<string /* field */, number>>>;

/**
 * Adds 1 to each of `fields` for one workspace and day, in place. The pipeline accumulates a
 * whole batch this way and then sends one `HINCRBY` per (key, field) instead of one per event.
 *
 * @example
 * const deltas: CounterDeltas = {};
 * addCounterDeltas(deltas, 'ws1', '2026-03-02', ['total', 'type:skip']);
 * addCounterDeltas(deltas, 'ws1', '2026-03-02', ['total']);
 * // deltas → { ws1: { '2026-03-02': { total: 2, 'type:skip': 1 } } }
 */
export function addCounterDeltas(into: CounterDeltas, workspaceId: string, day: string, fields: readonly string[]): void {
  for (const field of fields) addAmount(into, workspaceId, day, field, 1);
}

/**
 * Sums two sets of pending increments into a new object; neither input is changed. Addition is
 * associative and commutative, so deltas gathered by several workers (or retried) can be
 * combined in any order.
 *
 * @example
 * mergeCounterDeltas({ ws1: { d: { total: 1 } } }, { ws1: { d: { total: 2, dropped: 1 } } })
 * // { ws1: { d: { total: 3, dropped: 1 } } }
 */
export function mergeCounterDeltas(a: CounterDeltas, b: CounterDeltas): CounterDeltas {
  const out: CounterDeltas = {};
  for (const source of [a, b]) {
    for (const [workspaceId, days] of Object.entries(source)) {
      for (const [day, fields] of Object.entries(days)) {
        for (const [field, amount] of Object.entries(fields)) addAmount(out, workspaceId, day, field, amount);
      }
    }
  }
  return out;
}

/** A day's live counters in the shape the dashboard reads. */
/**
 * The live fields of a counted rating (a type of {@link RATING_TYPES} with a polarity): `rated:positive`
 * or `rated:negative`, to be added under the day the event occurred, so today's satisfaction in
 * `GET /v1/stats` counts the same events the day's rollup will. Other events give none.
 *
 * @example
 * ratedCounterFields('thumbs_up', 'positive') // ['rated:positive']
 * ratedCounterFields('comment', 'neutral') // []
 * ratedCounterFields('thumbs_up', 'positive', 'judge') // [] (today's satisfaction is the users')
 */
export function ratedCounterFields(type: FeedbackEventType, polarity: Polarity, source?: string): string[] {
  if (source !== undefined && !isUserSource(source)) return [];
  return RATED_TYPES.has(type) && polarity !== 'neutral' ? [`${RATED_PREFIX}${polarity}`] : [];
}

/**
 * Today's counted ratings from a day's live fields (see {@link ratedCounterFields}).
 *
 * @example
 * ratedFromFields({ 'rated:positive': 3, total: 9 }) // { positive: 3, negative: 0 }
 */
export function ratedFromFields(fields: Record<string, number>): { positive: number; negative: number } {
  const read = (field: string) => {
    const value = Object.hasOwn(fields, field) ? fields[field] : undefined;
    return typeof value === 'number' && Number.isFinite(value) ? value : 0;
  };
  return { positive: read(`${RATED_PREFIX}positive`), negative: read(`${RATED_PREFIX}negative`) };
}

export interface LiveStats {
  day: string;
  /** Events processed this day, counted or dropped. */
  total: number;
  /** Of those, events dropped as duplicates or superseded votes. */
  dropped: number;
  /** Events per type, counted and dropped alike; absent types are 0. */
  byType: Record<string, number>;
  /** Counted events per polarity. */
  byPolarity: { positive: number; negative: number; neutral: number };
  /** Counted events per severity (`low`, `medium`, `high`); absent severities are 0. */
  bySeverity: Record<string, number>;
  /** Counted events per source (`explicit`, …, `review`, `judge`); absent sources are 0. */
  bySource: Record<string, number>;
}

/**
 * Reads a day's flat counter hash (as `HGETALL` returns it, values already numbers) into
 * {@link LiveStats}. Missing fields are 0; fields it does not know, unknown polarities and
 * values that are not finite numbers are ignored, so an older or newer writer's extra fields
 * never break the dashboard.
 *
 * @example
 * liveStatsFromFields('2026-03-02', { total: 3, dropped: 1, 'type:thumbs_up': 3, 'polarity:positive': 2 })
 * // { day: '2026-03-02', total: 3, dropped: 1, byType: { thumbs_up: 3 },
 * //   byPolarity: { positive: 2, negative: 0, neutral: 0 }, bySeverity: {}, bySource: {} }
 */
export function liveStatsFromFields(day: string, fields: Record<string, number>): LiveStats {
  const byType: Array<[string, number]> = [];
  const bySeverity: Array<[string, number]> = [];
  const bySource: Array<[string, number]> = [];
  const byPolarity = { positive: 0, negative: 0, neutral: 0 };
  let total = 0;
  let dropped = 0;
  for (const [field, raw] of Object.entries(fields)) {
    if (typeof raw !== 'number' || !Number.isFinite(raw)) continue;
    if (field === TOTAL_FIELD) total = raw;
    else if (field === DROPPED_FIELD) dropped = raw;
    else if (field.startsWith(TYPE_PREFIX)) byType.push([field.slice(TYPE_PREFIX.length), raw]);
    else if (field.startsWith(SEVERITY_PREFIX)) bySeverity.push([field.slice(SEVERITY_PREFIX.length), raw]);
    else if (field.startsWith(SOURCE_PREFIX)) bySource.push([field.slice(SOURCE_PREFIX.length), raw]);
    else if (field.startsWith(POLARITY_PREFIX)) {
      const polarity = field.slice(POLARITY_PREFIX.length);
      if (polarity === 'positive' || polarity === 'negative' || polarity === 'neutral') byPolarity[polarity] = raw;
    }
  }
  // Object.fromEntries defines own properties, so a field such as `type:__proto__` stays data.
  return { day, total, dropped, byType: Object.fromEntries(byType), byPolarity, bySeverity: Object.fromEntries(bySeverity), bySource: Object.fromEntries(bySource) };
}

/** Adds `amount` to one field, creating the workspace and day levels as needed. */
function addAmount(into: CounterDeltas, workspaceId: string, day: string, field: string, amount: number): void {
  const days = ownChild<Record<string, Record<string, number>>>(into, workspaceId, () => ({}));
  const fields = ownChild<Record<string, number>>(days, day, () => ({}));
  // Once the field is an own property, plain assignment updates it (even for `__proto__`).
  if (Object.hasOwn(fields, field)) fields[field] = (fields[field] ?? 0) + amount;
  else setOwn(fields, field, amount);
}

/**
 * The record's own entry for `key`, created when missing. An own-property check (not
 * `record[key]`) keeps an id like `constructor` from resolving to an inherited member.
 */
function ownChild<T>(record: Record<string, T>, key: string, create: () => T): T {
  const existing = Object.hasOwn(record, key) ? record[key] : undefined;
  if (existing !== undefined) return existing;
  const child = create();
  setOwn(record, key, child);
  return child;
}

/** Sets an own data property; unlike `record[key] = value`, a key `__proto__` cannot change the prototype. */
function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });
}
