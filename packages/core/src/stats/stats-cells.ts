/**
 * The stats cells: a day's {@link StatsSums} per combination of agent, model, query type,
 * experiment and variant; per user; and the day's negative ratings per normalized query. The
 * daily rollup slices one dimension at a time; these let `GET /v1/stats` combine filters, filter
 * by experiment or user and list the top issues, still without reading a single event. Users are
 * kept apart from the other dimensions: crossed with them, every event would be a cell of its own.
 *
 * @module
 */
import { isUserSource } from '../event-types.js';
import { RATING_TYPES, compareCodeUnits, sumsOf, type StatsSums, type SummedEvent, type SummedResponse } from './stats-sums.js';

/** A cell's coordinates; `''` stands for "none" (SQL keys cannot be null). */
export interface StatsCellKey {
  agent: string;
  model: string;
  queryType: string;
  experimentId: string;
  variant: string;
}

/** The coordinates of an event or a registered response, as stored (null when absent). */
export interface CellCoordinates {
  agent: string | null;
  model: string | null;
  queryType: string | null;
  experimentId: string | null;
  /** The bare variant, as the response carries it. */
  variant: string | null;
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
 * computeStatsCells([{ ...thumbsUp, agent: 'a', model: null, ... }], [])
 * // [{ agent: 'a', model: '', queryType: '', experimentId: '', variant: '', sums: { events: 1, ... } }]
 */
export function computeStatsCells(
  events: ReadonlyArray<SummedEvent & CellCoordinates>,
  registered: ReadonlyArray<SummedResponse & CellCoordinates>,
): StatsCell[] {
  return sumsBy(events, registered, (c) => {
    const key: StatsCellKey = { agent: c.agent ?? '', model: c.model ?? '', queryType: c.queryType ?? '', experimentId: c.experimentId ?? '', variant: c.variant ?? '' };
    return [KEY_FIELDS.map((f) => key[f]), key];
  }).map(({ key, sums }) => ({ ...key, sums }));
}

/**
 * A day's sums per user: events by the user who gave the feedback, registered responses by the
 * user they were made for; events and responses without a user are left out. Sorted by user.
 *
 * @example
 * userSums([{ ...thumbsUp, userId: 'u1' }], []) // [{ userId: 'u1', sums: { events: 1, ... } }]
 */
export function userSums(
  events: ReadonlyArray<SummedEvent & { userId: string | null }>,
  registered: ReadonlyArray<SummedResponse & { userId: string | null }>,
): Array<{ userId: string; sums: StatsSums }> {
  const withUser = <T extends { userId: string | null }>(rows: readonly T[]) => rows.filter((r): r is T & { userId: string } => r.userId !== null);
  return sumsBy(withUser(events), withUser(registered), (r) => [[r.userId], r.userId]).map(({ key, sums }) => ({ userId: key, sums }));
}

/** Groups by a key (its parts, compared in order, and its value) and sums each group. */
function sumsBy<E extends SummedEvent, R extends SummedResponse, K>(
  events: readonly E[],
  registered: readonly R[],
  keyOf: (row: E | R) => [readonly string[], K],
): Array<{ key: K; sums: StatsSums }> {
  const groups = new Map<string, { parts: readonly string[]; key: K; events: SummedEvent[]; registered: SummedResponse[] }>();
  const groupOf = (row: E | R) => {
    const [parts, key] = keyOf(row);
    const id = JSON.stringify(parts);
    let group = groups.get(id);
    if (group === undefined) {
      group = { parts, key, events: [], registered: [] };
      groups.set(id, group);
    }
    return group;
  };
  for (const e of events) groupOf(e).events.push(e);
  for (const r of registered) groupOf(r).registered.push(r);
  return [...groups.values()]
    .sort((a, b) => compareParts(a.parts, b.parts))
    .map((g) => ({ key: g.key, sums: sumsOf(g.events, g.registered) }));
}

const KEY_FIELDS = ['agent', 'model', 'queryType', 'experimentId', 'variant'] as const satisfies ReadonlyArray<keyof StatsCellKey>;

function compareParts(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < a.length; i++) {
    const order = compareCodeUnits(a[i] ?? '', b[i] ?? '');
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
export function issueCounts(events: ReadonlyArray<Pick<SummedEvent, 'type' | 'polarity' | 'source'> & { query: string }>): Array<{ query: string; negatives: number }> {
  const counts = new Map<string, number>();
  for (const e of events) {
    // Top issues are the queries users rated down; a reviewer's or a judge's verdict is not one.
    if (e.polarity !== 'negative' || !ratingTypes.has(e.type) || (e.source !== undefined && !isUserSource(e.source))) continue;
    const query = normalizeQuery(e.query);
    if (query === '') continue;
    counts.set(query, (counts.get(query) ?? 0) + 1);
  }
  return [...counts].sort(([a], [b]) => compareCodeUnits(a, b)).map(([query, negatives]) => ({ query, negatives }));
}
