/**
 * One workspace's stats report: the rollup sums of its selection, today's live ratings, the top
 * issues, through core's `buildStatsReport`. Shared by `GET /v1/stats`, `GET /api/rag/feedback/stats`
 * and the `/metrics` gauges.
 *
 * Today: the rollup of today runs every `FEEDLOOP_ROLLUP_INTERVAL_SECONDS`, the live counters move
 * as each event is processed. For an unfiltered selection, today's positive and negative ratings
 * are the live counters' `rated:*` fields (kept under the day the event occurred, as the rollup
 * counts), or the rollup's if larger (in-memory counters restart at 0); today's other measures
 * come from the rollup's last run. Each event thus counts once, in its own day, from one source.
 * Filtered selections read the rollups only (counters are not sliced).
 */
import { buildStatsReport, emptySums, ratedFromFields, utcDay, type StatsGroupBy, type StatsReport, type StatsSums } from '@feedloop/core';
import type { SqlClient, SqlExecutor } from '../db/sql-client.js';
import { selectSums, topIssueCounts, type StatsFilters } from './stats-sums.js';

/** Reads a workspace's live counter fields of a day. */
export type LiveFieldsReader = (workspaceId: string, day: string) => Promise<Record<string, number>>;

/** A report's request. */
export interface StatsRequest {
  from: string;
  to: string;
  /** null: no groups. */
  groupBy: StatsGroupBy | null;
  filters: StatsFilters;
  /** Top issues listed at most. */
  topIssues?: number;
}

/** Where today's ratings came from. */
export interface LiveNote {
  day: string;
  source: 'counters' | 'rollup';
}

/**
 * Keeps the top issues' read serial. At 10 M events the planner's estimate of a 30-day range crossed
 * Postgres's parallel-query threshold and every request started two workers to aggregate ~3,000
 * rows: 7.5-11.7 ms a statement against 2.3-2.7 ms serial (docs/benchmarks.md, "Sixth session").
 */
const SERIAL_READ = 'SET LOCAL max_parallel_workers_per_gather = 0';

/**
 * Reads and builds the report.
 *
 * @example
 * await loadStatsReport(db, readLive, 'ws_1', { from: '2026-10-24', to: '2026-11-22', groupBy: 'day', filters: {} })
 */
export async function loadStatsReport(
  db: SqlClient,
  readLive: LiveFieldsReader,
  workspaceId: string,
  request: StatsRequest,
  now: Date = new Date(),
): Promise<StatsReport & { source: 'rollup' | 'cells' | 'users'; live: LiveNote | null }> {
  const limit = request.topIssues ?? 10;
  const [selected, issues] = await Promise.all([
    selectSums(db, workspaceId, request.from, request.to, request.filters, request.groupBy),
    db.transaction((tx) => topIssueCounts(tx, workspaceId, request.from, request.to, limit), { begin: SERIAL_READ }),
  ]);
  const today = utcDay(now);
  let live: LiveNote | null = null;
  let days = selected.days;
  if (selected.dimension === 'all' && request.from <= today && today <= request.to) {
    const fields = await readLive(workspaceId, today).catch(() => undefined);
    if (fields !== undefined) {
      const counted = ratedFromFields(fields);
      const rolled = days.find((d) => d.day === today)?.sums ?? emptySums();
      const merged: StatsSums = {
        ...rolled,
        positiveRatings: Math.max(rolled.positiveRatings, counted.positive),
        negativeRatings: Math.max(rolled.negativeRatings, counted.negative),
      };
      days = [...days.filter((d) => d.day !== today), { day: today, sums: merged }];
      live = { day: today, source: 'counters' };
    } else live = { day: today, source: 'rollup' };
  }
  const report = buildStatsReport({ from: request.from, to: request.to, days, groupBy: request.groupBy, groups: selected.groups, issues, topIssues: limit });
  return { ...report, source: selected.source, live };
}

/** The response dimensions a stats filter may name, and their column in `feedback_stats_cells`. */
export const STATS_DIMENSION_COLUMNS = { agent: 'agent', model: 'model', queryType: 'query_type', experimentId: 'experiment_id', variant: 'variant' } as const;

/**
 * Whether any response of the workspace ever had `value` in a dimension (any day), read from the
 * stats cells (a row per day and dimension combination: small beside the responses).
 *
 * @example
 * await statsDimensionSeen(db, 'ws_1', 'agent', 'sql') // true
 */
export async function statsDimensionSeen(db: SqlExecutor, workspaceId: string, dimension: keyof typeof STATS_DIMENSION_COLUMNS, value: string): Promise<boolean> {
  const column = STATS_DIMENSION_COLUMNS[dimension];
  const [row] = await db.query<{ seen: boolean }>(`SELECT EXISTS (SELECT 1 FROM feedback_stats_cells WHERE workspace_id = $1 AND ${column} = $2) AS seen`, [workspaceId, value]);
  return row?.seen === true;
}
