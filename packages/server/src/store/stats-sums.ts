/**
 * Reads the sums `GET /v1/stats` needs from the rollup tables (feedback_metrics_daily, the stats
 * cells, the issue counts), never from events. Which table answers depends on the filters:
 *
 * - none, or one of agent / model / queryType / category: feedback_metrics_daily, exact per day
 *   (the slice the rollup computed);
 * - experimentId, variant, or two filters or more: the stats cells, added up. A session whose
 *   responses fall in two cells counts in each (session-days, per cell);
 * - userId: the user sums, alone (users are not crossed with the other dimensions).
 *
 * `category` and `userId` cannot be combined with other filters: {@link uncombinableFilter}.
 */
import { addSums, emptySums, expandSums, measuresOf, splitIntoWeeks, utcDay, type StatsGroupBy, type StatsSums } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import type { WorkspaceRates } from '../metrics.js';

/** The filters of `GET /v1/stats`. */
export interface StatsFilters {
  agent?: string | undefined;
  model?: string | undefined;
  queryType?: string | undefined;
  experimentId?: string | undefined;
  variant?: string | undefined;
  category?: string | undefined;
  userId?: string | undefined;
}

/** Per-day sums of the selection, per-group sums over the range, and whether the rollup table answered. */
export interface SelectedSums {
  days: Array<{ day: string; sums: StatsSums }>;
  groups: Array<{ key: string; sums: StatsSums }>;
  /** `rollup`: feedback_metrics_daily; `cells`: feedback_stats_cells; `users`: feedback_user_stats_daily. */
  source: 'rollup' | 'cells' | 'users';
  /** The rollup's dimension when it answered: `all` when unfiltered. */
  dimension: string | null;
}

/** The rollup dimension of each single filter it can answer. */
const ROLLUP_FILTERS = { agent: 'agent', model: 'model', queryType: 'query_type', category: 'category' } as const;
/** The cells' column of each filter and group. */
const CELL_COLUMNS = { agent: 'agent', model: 'model', queryType: 'query_type', experimentId: 'experiment_id', variant: 'variant' } as const;
const ROLLUP_GROUPS: Partial<Record<StatsGroupBy, string>> = { agent: 'agent', model: 'model', queryType: 'query_type', variant: 'variant' };

const setFilters = (filters: StatsFilters) => (Object.keys(filters) as Array<keyof StatsFilters>).filter((k) => filters[k] !== undefined);

/**
 * The filter that cannot be combined with the rest of the request, if any: `category` (the cells
 * do not split by category) or `userId` (users are summed alone) next to another filter or,
 * for `userId`, a grouping by a response dimension.
 *
 * @example
 * uncombinableFilter({ agent: 'sql', category: 'accuracy' }, null) // 'category'
 */
export function uncombinableFilter(filters: StatsFilters, groupBy: StatsGroupBy | null): 'category' | 'userId' | undefined {
  const set = setFilters(filters);
  if (filters.userId !== undefined && (set.length > 1 || (groupBy !== null && ROLLUP_GROUPS[groupBy] !== undefined))) return 'userId';
  if (filters.category !== undefined && set.length > 1) return 'category';
  return undefined;
}

function needsCells(filters: StatsFilters): boolean {
  const set = setFilters(filters);
  return set.length > 1 || set.some((k) => !(k in ROLLUP_FILTERS));
}

/**
 * The selection's sums over `[from, to]` (UTC days, inclusive).
 *
 * @example
 * await selectSums(db, 'ws_1', '2026-11-01', '2026-11-30', {}, 'agent')
 * // { days: [{ day: '2026-11-01', sums }, ...], groups: [{ key: 'sql-agent', sums }], source: 'rollup', dimension: 'all' }
 */
export async function selectSums(db: SqlExecutor, workspaceId: string, from: string, to: string, filters: StatsFilters, groupBy: StatsGroupBy | null): Promise<SelectedSums> {
  if (filters.userId !== undefined) return fromUsers(db, workspaceId, from, to, filters.userId);
  return needsCells(filters) ? fromCells(db, workspaceId, from, to, filters, groupBy) : fromRollup(db, workspaceId, from, to, filters, groupBy);
}

async function fromUsers(db: SqlExecutor, workspaceId: string, from: string, to: string, userId: string): Promise<SelectedSums> {
  const rows = await db.query<{ day: string; sums: Partial<StatsSums> }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, sums FROM feedback_user_stats_daily
      WHERE workspace_id = $1 AND user_id = $2 AND day BETWEEN $3::date AND $4::date`,
    [workspaceId, userId, from, to],
  );
  // Stored compacted (core's compactSums).
  return { days: rows.map((r) => ({ day: r.day, sums: expandSums(r.sums) })), groups: [], source: 'users', dimension: null };
}

async function fromRollup(db: SqlExecutor, workspaceId: string, from: string, to: string, filters: StatsFilters, groupBy: StatsGroupBy | null): Promise<SelectedSums> {
  const filter = (Object.keys(ROLLUP_FILTERS) as Array<keyof typeof ROLLUP_FILTERS>).find((k) => filters[k] !== undefined);
  const dimension = filter === undefined ? 'all' : ROLLUP_FILTERS[filter];
  const value = filter === undefined ? '' : (filters[filter] ?? '');
  // A filtered selection grouped by another dimension: only the cells hold both.
  if (filter !== undefined && (groupBy === null ? undefined : ROLLUP_GROUPS[groupBy]) !== undefined) return fromCells(db, workspaceId, from, to, filters, groupBy);
  const groupDimension = (groupBy === null ? undefined : ROLLUP_GROUPS[groupBy]);
  const rows = await db.query<{ day: string; dimension: string; dimension_value: string; sums: StatsSums | null }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, dimension, dimension_value, sums FROM feedback_metrics_daily
      WHERE workspace_id = $1 AND day BETWEEN $2::date AND $3::date
        AND ((dimension = $4 AND dimension_value = $5) OR dimension = $6)`,
    [workspaceId, from, to, dimension, value, groupDimension ?? dimension],
  );
  const days: SelectedSums['days'] = [];
  const groups = new Map<string, StatsSums>();
  for (const row of rows) {
    const sums = row.sums ?? emptySums();
    if (row.dimension === dimension && row.dimension_value === value) days.push({ day: row.day, sums });
    if (groupDimension !== undefined && row.dimension === groupDimension) groups.set(row.dimension_value, addSums(groups.get(row.dimension_value) ?? emptySums(), sums));
  }
  return { days, groups: [...groups].map(([key, sums]) => ({ key, sums })), source: 'rollup', dimension };
}

async function fromCells(db: SqlExecutor, workspaceId: string, from: string, to: string, filters: StatsFilters, groupBy: StatsGroupBy | null): Promise<SelectedSums> {
  const where: string[] = ['workspace_id = $1', 'day BETWEEN $2::date AND $3::date'];
  const params: unknown[] = [workspaceId, from, to];
  for (const key of Object.keys(CELL_COLUMNS) as Array<keyof typeof CELL_COLUMNS>) {
    const v = filters[key];
    if (v === undefined) continue;
    params.push(v);
    where.push(`${CELL_COLUMNS[key]} = $${params.length}`);
  }
  const rows = await db.query<{ day: string; agent: string; model: string; query_type: string; experiment_id: string; variant: string; sums: StatsSums }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, agent, model, query_type, experiment_id, variant, sums
       FROM feedback_stats_cells WHERE ${where.join(' AND ')}`,
    params,
  );
  const days = new Map<string, StatsSums>();
  const groups = new Map<string, StatsSums>();
  for (const row of rows) {
    days.set(row.day, addSums(days.get(row.day) ?? emptySums(), row.sums));
    const key = groupKey(row, groupBy);
    if (key !== undefined && key !== '') groups.set(key, addSums(groups.get(key) ?? emptySums(), row.sums));
  }
  return {
    days: [...days].map(([day, sums]) => ({ day, sums })),
    groups: [...groups].map(([key, sums]) => ({ key, sums })),
    source: 'cells',
    dimension: null,
  };
}

/** A cell's group under `groupBy`; variants are named within their experiment, as in the rollup. */
function groupKey(row: { agent: string; model: string; query_type: string; experiment_id: string; variant: string }, groupBy: StatsGroupBy | null): string | undefined {
  if (groupBy === 'agent') return row.agent;
  if (groupBy === 'model') return row.model;
  if (groupBy === 'queryType') return row.query_type;
  if (groupBy === 'variant') return row.variant === '' || row.experiment_id === '' ? row.variant : `${row.experiment_id}/${row.variant}`;
  return undefined;
}

/**
 * Negative ratings per normalized query over the range, the `limit` most frequent (ties by query).
 * The range's whole ISO weeks are read from the weekly counts, its loose days from the daily ones,
 * so a 90-day range reads 12 weeks and at most 12 days instead of 90 days of rows.
 *
 * @example
 * await topIssueCounts(db, 'ws_1', '2026-11-01', '2026-11-30', 10) // [{ query: 'reset password', negatives: 12 }]
 */
export async function topIssueCounts(db: SqlExecutor, workspaceId: string, from: string, to: string, limit: number): Promise<Array<{ query: string; negatives: number }>> {
  const { weeks, days } = splitIntoWeeks(from, to);
  // An empty range: BETWEEN matches nothing when its bounds are reversed.
  const none = ['9999-12-31', '0001-01-01'] as const;
  const [weekFrom, weekTo] = weeks ?? none;
  const [headFrom, headTo] = days[0] ?? none;
  const [tailFrom, tailTo] = days[1] ?? none;
  return db.query<{ query: string; negatives: number }>(
    `SELECT query, sum(negatives)::int AS negatives FROM (
       SELECT query, negatives FROM feedback_issue_counts_weekly
        WHERE workspace_id = $1 AND week BETWEEN $2::date AND $3::date
       UNION ALL
       SELECT query, negatives FROM feedback_issue_counts
        WHERE workspace_id = $1 AND day BETWEEN $4::date AND $5::date
       UNION ALL
       SELECT query, negatives FROM feedback_issue_counts
        WHERE workspace_id = $1 AND day BETWEEN $6::date AND $7::date
     ) counts
      GROUP BY query ORDER BY 2 DESC, query COLLATE "C" LIMIT $8`,
    [workspaceId, weekFrom, weekTo, headFrom, headTo, tailFrom, tailTo, limit],
  );
}

/** Days the `/metrics` workspace rates cover, today included. */
export const MONITORING_DAYS = 7;

/**
 * Every workspace's monitoring rates over the last {@link MONITORING_DAYS} UTC days, from the
 * rollups' whole-workspace rows: one indexed range read per scrape (cached by the caller).
 *
 * @example
 * await workspaceRates(db, new Date()) // [{ workspaceId: 'ws_1', positiveRate: 82.5, correctionRate: 4, ... }]
 */
export async function workspaceRates(db: SqlExecutor, now: Date): Promise<WorkspaceRates[]> {
  const to = utcDay(now);
  const from = utcDay(new Date(now.getTime() - (MONITORING_DAYS - 1) * 86_400_000));
  const rows = await db.query<{ workspace_id: string; sums: StatsSums | null }>(
    `SELECT workspace_id, sums FROM feedback_metrics_daily WHERE dimension = 'all' AND day BETWEEN $1::date AND $2::date`,
    [from, to],
  );
  const byWorkspace = new Map<string, StatsSums>();
  for (const row of rows) byWorkspace.set(row.workspace_id, addSums(byWorkspace.get(row.workspace_id) ?? emptySums(), row.sums ?? emptySums()));
  return [...byWorkspace].map(([workspaceId, sums]) => {
    const m = measuresOf(sums);
    return { workspaceId, positiveRate: m.positiveRate, correctionRate: m.correctionRate, escalationRate: m.escalationRate, avgResponseTimeMs: m.avgResponseTimeMs };
  });
}
