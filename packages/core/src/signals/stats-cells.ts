/**
 * The stats cells: a day's {@link StatsSums} per combination of agent, model, query type,
 * experiment, variant and user, and the day's negative ratings per normalized query. The daily
 * rollup slices one dimension at a time; these let `GET /v1/stats` combine filters (and filter by
 * user) and list the top issues, still without reading a single event.
 *
 * @module
 */
import { RATING_TYPES, compareCodeUnits, sumsOf, type StatsSums, type SummedEvent, type SummedResponse } from './stats-sums.js';

/** A cell's coordinates; `''` stands for "none" (SQL keys cannot be null). */
export interface StatsCellKey {
  agent: string;
  model: string;
  queryType: string;
  experimentId: string;
  variant: string;
  userId: string;
}

/** The coordinates of an event or a registered response, as stored (null when absent). */
export interface CellCoordinates {
  agent: string | null;
  model: string | null;
  queryType: string | null;
  experimentId: string | null;
  /** The bare variant, as the response carries it. */
  variant: string | null;
  /** The event's user (who gave the feedback); for a registered response, its user. */
  userId: string | null;
}

/** One stats cell of a day. */
export interface StatsCell extends StatsCellKey {
  sums: StatsSums;
}

/**
 * Groups a day's events and registered responses into cells and sums each. Cells come sorted by
 * their key fields in {@link StatsCellKey} order, so a rollup writes them in a stable order.
 *
 * @example
 * computeStatsCells([{ ...thumbsUp, agent: 'a', userId: 'u1', ... }], [])
 * // [{ agent: 'a', model: '', queryType: '', experimentId: '', variant: '', userId: 'u1', sums: { events: 1, ... } }]
 */
export function computeStatsCells(
  events: ReadonlyArray<SummedEvent & CellCoordinates>,
  registered: ReadonlyArray<SummedResponse & CellCoordinates>,
): StatsCell[] {
  const cells = new Map<string, { key: StatsCellKey; events: SummedEvent[]; registered: SummedResponse[] }>();
  const cellOf = (c: CellCoordinates) => {
    const key = keyOf(c);
    const id = JSON.stringify(Object.values(key));
    let cell = cells.get(id);
    if (cell === undefined) {
      cell = { key, events: [], registered: [] };
      cells.set(id, cell);
    }
    return cell;
  };
  for (const e of events) cellOf(e).events.push(e);
  for (const r of registered) cellOf(r).registered.push(r);
  return [...cells.values()]
    .sort((a, b) => compareKeys(a.key, b.key))
    .map((cell) => ({ ...cell.key, sums: sumsOf(cell.events, cell.registered) }));
}

const KEY_FIELDS = ['agent', 'model', 'queryType', 'experimentId', 'variant', 'userId'] as const satisfies ReadonlyArray<keyof StatsCellKey>;

function keyOf(c: CellCoordinates): StatsCellKey {
  return {
    agent: c.agent ?? '',
    model: c.model ?? '',
    queryType: c.queryType ?? '',
    experimentId: c.experimentId ?? '',
    variant: c.variant ?? '',
    userId: c.userId ?? '',
  };
}

function compareKeys(a: StatsCellKey, b: StatsCellKey): number {
  for (const field of KEY_FIELDS) {
    const order = compareCodeUnits(a[field], b[field]);
    if (order !== 0) return order;
  }
  return 0;
}

/** Normalized queries are cut here: a top-issue label, not a copy of the query. */
export const MAX_ISSUE_QUERY_LENGTH = 200;

/**
 * A query as the top issues group it: Unicode NFKC, lower case, runs of white space as one space,
 * trimmed, trailing `?`, `!`, `.` dropped, cut to {@link MAX_ISSUE_QUERY_LENGTH} characters. So
 * "How do I reset my password?" and "how do i  reset my password" are one issue.
 *
 * @example
 * normalizeQuery('  How do I reset my password?? ') // 'how do i reset my password'
 */
export function normalizeQuery(query: string): string {
  const normalized = query
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/gu, ' ')
    .trim()
    .replace(/[?!.\s]+$/u, '');
  return [...normalized].slice(0, MAX_ISSUE_QUERY_LENGTH).join('');
}

const ratingTypes: ReadonlySet<string> = new Set(RATING_TYPES);

/**
 * The day's negative ratings per normalized query (Phase 4.1 `topIssues`: the queries with the
 * most negatives), sorted by query. Only negative ratings count, as in the satisfaction rate.
 *
 * @example
 * issueCounts([{ type: 'thumbs_down', polarity: 'negative', query: 'Reset password?' }])
 * // [{ query: 'reset password', negatives: 1 }]
 */
export function issueCounts(events: ReadonlyArray<Pick<SummedEvent, 'type' | 'polarity'> & { query: string }>): Array<{ query: string; negatives: number }> {
  const counts = new Map<string, number>();
  for (const e of events) {
    if (e.polarity !== 'negative' || !ratingTypes.has(e.type)) continue;
    const query = normalizeQuery(e.query);
    if (query === '') continue;
    counts.set(query, (counts.get(query) ?? 0) + 1);
  }
  return [...counts].sort(([a], [b]) => compareCodeUnits(a, b)).map(([query, negatives]) => ({ query, negatives }));
}
