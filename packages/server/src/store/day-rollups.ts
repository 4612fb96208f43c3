/**
 * The daily rollups' tables: the dirty marks that say which days to recompute (`rollup_dirty`,
 * migration 0012's pace), a day's input (its counted signals with their events and responses, and
 * the responses registered on it) and its output (`feedback_metrics_daily`, the stats cells, the
 * user sums, the issue counts and their ISO week). The arithmetic between them is
 * pipeline/rollup-compute.ts; the loop, pipeline/rollup.ts.
 */
import type { DailyMetrics } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import { writeIssueCounts, type IssueCount } from './issue-counts-write.js';
import { writeUserSums, type DayUserSums } from './user-sums-write.js';

/** One counted signal of the day with its event and response, as the rollup reads it. */
export interface RollupInputRow {
  event_id: string;
  /** The signal's occurred_at as text (microseconds kept, which a Date drops): the key the day is read by. */
  s_occurred_key: string;
  type: string;
  /** The event's source: review and judge count by source only (core's sumsOf). */
  source: string;
  payload: unknown;
  polarity: string;
  categories: string[];
  value: number;
  first_pass: boolean | null;
  edit_distance: number | null;
  occurred_at: Date;
  response_id: string;
  r_created_at: Date;
  session_id: string | null;
  agent: string | null;
  model: string | null;
  query_type: string | null;
  experiment_id: string | null;
  variant: string | null;
  user_id: string | null;
  query: string;
}

/** One response registered on the day, as the rollup reads it. */
export interface RegisteredInputRow {
  id: string;
  /** created_at as text (microseconds kept): the key the day's responses are read by. */
  created_key: string;
  session_id: string | null;
  user_id: string | null;
  agent: string | null;
  model: string | null;
  query_type: string | null;
  experiment_id: string | null;
  variant: string | null;
  corrected: boolean;
  escalated: boolean;
}

/** A day's input: its counted events and the responses registered on it. */
export interface DayInput {
  rows: RollupInputRow[];
  registered: RegisteredInputRow[];
}

/**
 * A day's input as the paged read (embedded) leaves it: its counted events as the pages' JSON
 * documents, parsed by {@link dayInputOf} where the arithmetic runs, in the rollup's own thread.
 * Handed over parsed, 50,000 rows took 0.7-0.8 s to clone (`structuredClone`: serialized on the
 * event loop, deserialized in the thread).
 */
export interface DayPages {
  rowPages: string[];
  registered: RegisteredInputRow[];
}

/** A day as {@link readDayPages} reads it: rows (one statement, Postgres) or pages (embedded). */
export type DayRead = DayInput | DayPages;

/** A page's row as its JSON document carries it: timestamps as text. */
type PagedRollupRow = Omit<RollupInputRow, 'occurred_at' | 'r_created_at'> & { occurred_at: string; r_created_at: string };

/**
 * The day's input with its pages parsed.
 *
 * @example
 * computeDay(dayInputOf(await readDayPages(db, 'ws_1', '2026-11-22', 1_000)));
 */
export function dayInputOf(read: DayRead): DayInput {
  if ('rows' in read) return read;
  const rows: RollupInputRow[] = [];
  for (const text of read.rowPages) {
    // Made rows in place: a copy of each (~25 keys) cost more than the parse.
    for (const p of JSON.parse(text) as PagedRollupRow[]) {
      const row = p as unknown as RollupInputRow;
      row.occurred_at = new Date(p.occurred_at);
      row.r_created_at = new Date(p.r_created_at);
      rows.push(row);
    }
  }
  return { rows, registered: read.registered };
}

/** A day's rollup: the metrics rows, the metrics and cells as the JSON their inserts take (null: no cells), the user sums with their digests and the issue counts. */
export interface DayOutput {
  metrics: DailyMetrics[];
  metricsJson: string;
  cellsJson: string | null;
  users: DayUserSums;
  issues: IssueCount[];
}

/**
 * Marks days to roll up, bumping the version of a mark already there (see migration 0012): a
 * rollup running meanwhile then knows the day changed under it. A day named twice (a batch that
 * counts new events and reverses retracted ones of the same day) is marked once: an upsert may
 * not touch a row twice.
 *
 * @example
 * await markDaysDirty(tx, [{ workspaceId: 'ws_1', day: '2026-11-22' }]);
 */
export async function markDaysDirty(tx: SqlExecutor, days: ReadonlyArray<{ workspaceId: string; day: string }>): Promise<void> {
  if (days.length === 0) return;
  await tx.query(
    `INSERT INTO rollup_dirty AS d (workspace_id, day)
     SELECT ws, d FROM (SELECT DISTINCT ws, day::date AS d FROM json_to_recordset($1::json) AS x(ws text, day text)) AS u ORDER BY ws, d
     ON CONFLICT (workspace_id, day) DO UPDATE SET version = d.version + 1`,
    [JSON.stringify(days.map((d) => ({ ws: d.workspaceId, day: d.day })))],
    { prepare: true },
  );
}

/** A day marked dirty, with the version of its mark when read. */
export interface DirtyDay {
  workspaceId: string;
  day: string;
  version: number;
}

/**
 * The dirty day marked longest ago that is due (its pace passed) and not in `skip`; with
 * `workspaceId`, that workspace's only and whatever its pace (an erasure's rollup job: the
 * aggregates must stop counting the erased user now, and a scheduled rollup that read the day
 * before the erasure will have deferred it).
 *
 * @example
 * await nextDirtyDay(db, []) // { workspaceId: 'ws_1', day: '2026-11-22', version: 3 }
 */
export async function nextDirtyDay(db: SqlExecutor, skip: ReadonlyArray<{ workspaceId: string; day: string }>, workspaceId?: string): Promise<DirtyDay | undefined> {
  const [mark] = await db.query<{ workspace_id: string; day: string; version: number }>(
    `SELECT workspace_id, to_char(day, 'YYYY-MM-DD') AS day, version FROM rollup_dirty
      WHERE (workspace_id, day) NOT IN (SELECT x.ws, x.day::date FROM json_to_recordset($1::json) AS x(ws text, day text))
        AND ${workspaceId === undefined ? '(not_before IS NULL OR not_before <= now())' : 'workspace_id = $2'}
      ORDER BY marked_at LIMIT 1`,
    [JSON.stringify(skip.map((d) => ({ ws: d.workspaceId, day: d.day }))), ...(workspaceId === undefined ? [] : [workspaceId])],
  );
  return mark ? { workspaceId: mark.workspace_id, day: mark.day, version: Number(mark.version) } : undefined;
}

/** Deletes a day's mark if its version is still the one read; false when events marked it again meanwhile. */
export async function clearDirtyDay(tx: SqlExecutor, mark: DirtyDay): Promise<boolean> {
  const cleared = await tx.query('DELETE FROM rollup_dirty WHERE workspace_id = $1 AND day = $2::date AND version = $3 RETURNING 1', [mark.workspaceId, mark.day, mark.version]);
  return cleared.length > 0;
}

/**
 * Makes a day still dirty wait `waitMs` before its next rollup (migration 0012's pace).
 *
 * @returns false when the day has no mark any more: another rollup, which read it later, wrote the
 *   day and cleared it meanwhile.
 */
export async function deferDirtyDay(tx: SqlExecutor, mark: Pick<DirtyDay, 'workspaceId' | 'day'>, waitMs: number): Promise<boolean> {
  const deferred = await tx.query(
    "UPDATE rollup_dirty SET not_before = now() + $3 * interval '1 millisecond' WHERE workspace_id = $1 AND day = $2::date RETURNING 1",
    [mark.workspaceId, mark.day, waitMs],
  );
  return deferred.length > 0;
}

/**
 * A page of the day's counted signals (embedded), in key order from after the key `$3`, `$4`
 * (none: from the start), at most `$5`. Materialized first, so that a page is read from the
 * signals' index and only its own rows are joined: planned as one statement, a page of 1,000
 * hash-joined every event of the workspace's month and sorted them for its top 1,000 (180 ms a
 * page at 40,000 events, growing all month; docs/benchmarks.md, "Tenth session").
 */
const DAY_SIGNALS = `WITH signals AS MATERIALIZED (
  SELECT s.workspace_id, s.event_id, s.type, s.polarity, s.categories, s.value, s.first_pass, s.occurred_at, s.response_id, s.session_id, s.user_id
    FROM feedback_signals s
   WHERE s.workspace_id = $1 AND s.status = 'counted'
     AND s.occurred_at >= ($2::date)::timestamp AT TIME ZONE 'UTC' AND s.occurred_at < ($2::date + 1)::timestamp AT TIME ZONE 'UTC'
     AND ($3::timestamptz IS NULL OR (s.occurred_at, s.event_id) > ($3::timestamptz, $4::text))
   ORDER BY s.occurred_at, s.event_id LIMIT $5)`;
/** A day's signal with its event and response ({@link RollupInputRow}). */
const DAY_COLUMNS = `s.event_id, s.type, e.source, e.payload, s.polarity, s.categories, s.value, s.first_pass, e.edit_distance, e.occurred_at,
  s.occurred_at::text AS s_occurred_key, s.response_id, r.created_at AS r_created_at, COALESCE(s.session_id, r.session_id) AS session_id,
  s.user_id, r.agent, r.model, r.query_type, r.experiment_id, r.variant, r.query`;
/**
 * A page's signals with their events and responses, where the rollup counts them: the event
 * current (not replaced, not retracted) and the response there. Index probes per signal (LATERAL,
 * fenced with OFFSET 0): planned as joins, a page hashed every id of the log (a sequential scan of
 * `feedback_event_ids`, 30 ms a page at 50,000 events, growing with the log, not the day).
 */
const DAY_JOINS = `CROSS JOIN LATERAL (SELECT e.source, e.payload, e.edit_distance, e.occurred_at
                       FROM feedback_event_ids k
                       JOIN feedback_events e ON e.workspace_id = k.workspace_id AND e.seq = k.seq AND e.received_at = k.received_at
                      WHERE k.workspace_id = s.workspace_id AND k.id = s.event_id AND e.superseded_by IS NULL AND e.retracted_at IS NULL OFFSET 0) AS e
  CROSS JOIN LATERAL (SELECT r.created_at, r.session_id, r.agent, r.model, r.query_type, r.experiment_id, r.variant, r.query
                       FROM responses r WHERE r.workspace_id = s.workspace_id AND r.id = s.response_id OFFSET 0) AS r`;

/**
 * {@link readDayPages}, parsed.
 *
 * @example
 * const input = await readDay(db, 'ws_1', '2026-11-22');
 */
export async function readDay(db: SqlExecutor, workspaceId: string, day: string, pageSize = Infinity, signal?: AbortSignal): Promise<DayInput> {
  return dayInputOf(await readDayPages(db, workspaceId, day, pageSize, signal));
}

/**
 * Reads one workspace's day (UTC) in pages: its counted, current signals with their events and
 * responses, by (occurred_at, event_id); and the responses registered that day, by (created_at,
 * id), each with whether a counted correction or escalation (of any day) is about it. The day's
 * bounds are UTC midnights written out (`AT TIME ZONE 'UTC'`): a bare `date` compared with a
 * `timestamptz` is cast in the session's zone, and the connections' UTC setting should not be all
 * that holds. An aborted `signal` stops the read before its next page, with the signal's reason.
 * Paged, the signals stay the pages' JSON ({@link DayPages}).
 *
 * @example
 * const read = await readDayPages(db, 'ws_1', '2026-11-22', 1_000);
 */
export async function readDayPages(db: SqlExecutor, workspaceId: string, day: string, pageSize = Infinity, signal?: AbortSignal): Promise<DayRead> {
  // LIMIT NULL is no limit: one statement, which Postgres plans with hash joins (paging forces
  // index probes row by row: 13 pages of 450 ms for a day of 60,000 events).
  const limit = Number.isFinite(pageSize) ? pageSize : null;
  const full = (page: unknown[]): boolean => limit !== null && page.length === limit;
  let rows: RollupInputRow[] = [];
  const rowPages: string[] = [];
  if (limit === null) {
    rows = await db.query<RollupInputRow>(
      `SELECT ${DAY_COLUMNS}
         FROM feedback_signals s
         JOIN feedback_event_ids k ON k.workspace_id = s.workspace_id AND k.id = s.event_id
         JOIN feedback_events e ON e.workspace_id = k.workspace_id AND e.seq = k.seq AND e.received_at = k.received_at
         JOIN responses r ON r.workspace_id = s.workspace_id AND r.id = s.response_id
        WHERE s.workspace_id = $1 AND s.status = 'counted' AND e.superseded_by IS NULL AND e.retracted_at IS NULL
          AND s.occurred_at >= ($2::date)::timestamp AT TIME ZONE 'UTC' AND s.occurred_at < ($2::date + 1)::timestamp AT TIME ZONE 'UTC'
        ORDER BY s.occurred_at, s.event_id`,
      [workspaceId, day],
    );
  } else {
    for (let after: { key: string; id: string } | undefined; ; ) {
      // One JSON document a page, not a row each: decoding 1,000 rows of 22 columns (a payload, an
      // array, timestamps) in the database's thread and copying them to this one cost more than the
      // page's probes. The page's length and last key are the signals', whether counted or not.
      signal?.throwIfAborted();
      const [doc] = await db.query<{ n: number; last_key: string | null; last_id: string | null; page: string | null }>(
        `${DAY_SIGNALS}, last AS (SELECT s.occurred_at::text AS k, s.event_id FROM signals s ORDER BY s.occurred_at DESC, s.event_id DESC LIMIT 1)
         SELECT (SELECT count(*) FROM signals)::int AS n, (SELECT k FROM last) AS last_key, (SELECT event_id FROM last) AS last_id,
                (SELECT json_agg(p ORDER BY p.s_occurred_key::timestamptz, p.event_id)
                   FROM (SELECT ${DAY_COLUMNS} FROM signals s ${DAY_JOINS}) AS p)::text AS page`,
        [workspaceId, day, after?.key ?? null, after?.id ?? null, limit],
        { prepare: true },
      );
      if (doc?.page) rowPages.push(doc.page);
      if (!doc || doc.n < limit || doc.last_key === null || doc.last_id === null) break;
      after = { key: doc.last_key, id: doc.last_id };
    }
  }
  // Corrections and escalations mark their response's day dirty, so the flags stay current. Each
  // EXISTS is a probe per response (fenced with OFFSET 0): unfenced, the planner hashed every
  // signal, id and event of the workspace for each page (1.3 s a page of 1,000 at 50,000 events,
  // growing with the log, not the day).
  const registered: RegisteredInputRow[] = [];
  for (let after: RegisteredInputRow | undefined; ; ) {
    signal?.throwIfAborted();
    const page = await db.query<RegisteredInputRow>(
      `SELECT r.id, r.created_at::text AS created_key, r.session_id, r.user_id, r.agent, r.model, r.query_type, r.experiment_id, r.variant,
              EXISTS (SELECT 1 FROM feedback_signals s
                         JOIN feedback_event_ids k ON k.workspace_id = s.workspace_id AND k.id = s.event_id
                         JOIN feedback_events e ON e.workspace_id = k.workspace_id AND e.seq = k.seq AND e.received_at = k.received_at
                        WHERE s.workspace_id = r.workspace_id AND s.response_id = r.id
                          AND s.status = 'counted' AND s.type = 'correction' AND e.source NOT IN ('review', 'judge') OFFSET 0) AS corrected,
              EXISTS (SELECT 1 FROM feedback_signals s WHERE s.workspace_id = r.workspace_id AND s.response_id = r.id
                         AND s.status = 'counted' AND s.type = 'escalation' OFFSET 0) AS escalated
         FROM responses r
        WHERE r.workspace_id = $1
          AND r.created_at >= ($2::date)::timestamp AT TIME ZONE 'UTC' AND r.created_at < ($2::date + 1)::timestamp AT TIME ZONE 'UTC'
          AND ($3::timestamptz IS NULL OR (r.created_at, r.id) > ($3::timestamptz, $4::text))
        ORDER BY r.created_at, r.id LIMIT $5`,
      [workspaceId, day, after?.created_key ?? null, after?.id ?? null, limit],
    );
    registered.push(...page);
    if (!full(page)) break;
    after = page[page.length - 1];
  }
  return limit === null ? { rows, registered } : { rowPages, registered };
}

/**
 * Writes one workspace's day from its input: `feedback_metrics_daily`, the stats cells, the user
 * sums and the issue counts, replacing what was there (the user sums and the issue counts only
 * where they changed: store/user-sums-write.ts, store/issue-counts-write.ts), in the caller's transaction.
 *
 * @example
 * await db.transaction((tx) => writeDay(tx, 'ws_1', '2026-11-22', output, new Date()));
 */
export async function writeDay(tx: SqlExecutor, workspaceId: string, day: string, output: DayOutput, now: Date): Promise<DailyMetrics[]> {
  const metrics = await writeDayTotals(tx, workspaceId, day, output, now);
  await writeUserSums(tx, workspaceId, day, output.users);
  return metrics;
}

/**
 * Writes one workspace's day but its user sums: `feedback_metrics_daily`, the stats cells and the
 * issue counts. Rollups of one day are serialized by a transaction lock, so two workers rolling up
 * the same day one after the other cannot collide.
 *
 * @example
 * await db.transaction((tx) => writeDayTotals(tx, 'ws_1', '2026-11-22', output, new Date()));
 */
export async function writeDayTotals(tx: SqlExecutor, workspaceId: string, day: string, output: DayOutput, now: Date): Promise<DailyMetrics[]> {
  await lockDay(tx, workspaceId, day);
  const { metrics, metricsJson, cellsJson, issues } = output;
  for (const table of ['feedback_metrics_daily', 'feedback_stats_cells']) {
    await tx.query(`DELETE FROM ${table} WHERE workspace_id = $1 AND day = $2::date`, [workspaceId, day]);
  }
  if (metrics.length > 0) {
    await tx.query(
      `INSERT INTO feedback_metrics_daily (workspace_id, day, dimension, dimension_value, total_events, total_responses, total_sessions,
              positive_ratings, negative_ratings, skipped_ratings, first_pass_acceptance_rate, average_edit_distance, error_category_counts,
              positive_category_counts, avg_accuracy_score, avg_completeness_score, avg_style_match_score, positive_rate, correction_rate,
              escalation_rate, avg_response_time_ms, avg_value, sums, computed_at)
       SELECT $2, $3::date, dimension, "dimensionValue", "totalEvents", "totalResponses", "totalSessions", "positiveRatings",
              "negativeRatings", "skippedRatings", "firstPassAcceptanceRate", "averageEditDistance", "errorCategoryCounts",
              "positiveCategoryCounts", "avgAccuracyScore", "avgCompletenessScore", "avgStyleMatchScore", "positiveRate", "correctionRate",
              "escalationRate", "avgResponseTimeMs", "avgValue", sums, $4::timestamptz
         FROM json_to_recordset($1::json) AS x(dimension text, "dimensionValue" text, "totalEvents" int, "totalResponses" int,
              "totalSessions" int, "positiveRatings" int, "negativeRatings" int, "skippedRatings" int, "firstPassAcceptanceRate" numeric,
              "averageEditDistance" numeric, "errorCategoryCounts" jsonb, "positiveCategoryCounts" jsonb, "avgAccuracyScore" numeric,
              "avgCompletenessScore" numeric, "avgStyleMatchScore" numeric, "positiveRate" numeric, "correctionRate" numeric,
              "escalationRate" numeric, "avgResponseTimeMs" double precision, "avgValue" double precision, sums jsonb)`,
      [metricsJson, workspaceId, day, now.toISOString()],
    );
  }
  if (cellsJson !== null) {
    await tx.query(
      `INSERT INTO feedback_stats_cells (workspace_id, day, agent, model, query_type, experiment_id, variant, sums)
       SELECT $2, $3::date, agent, model, "queryType", "experimentId", variant, sums
         FROM json_to_recordset($1::json) AS x(agent text, model text, "queryType" text, "experimentId" text, variant text, sums jsonb)`,
      [cellsJson, workspaceId, day],
    );
  }
  await writeIssueCounts(tx, workspaceId, day, issues);
  return metrics;
}

/** Takes the day's rollup lock for the caller's transaction. */
function lockDay(tx: SqlExecutor, workspaceId: string, day: string): Promise<unknown> {
  return tx.query("SELECT pg_advisory_xact_lock(hashtext('feedloop.rollup'), hashtext($1 || '/' || $2))", [workspaceId, day]);
}

/**
 * Makes `writer` the day's writer (migration 0051), in the transaction that writes its totals.
 *
 * @returns false when the day has no mark any more: another rollup, which read it later, wrote the
 *   day and cleared it meanwhile.
 */
export async function claimDayWriter(tx: SqlExecutor, mark: Pick<DirtyDay, 'workspaceId' | 'day'>, writer: string): Promise<boolean> {
  const claimed = await tx.query('UPDATE rollup_dirty SET writer = $3 WHERE workspace_id = $1 AND day = $2::date RETURNING 1', [mark.workspaceId, mark.day, writer]);
  return claimed.length > 0;
}

/**
 * Takes the day's rollup lock and says whether `writer` is still the day's writer: false once a
 * later rollup of the day wrote its totals (or cleared the mark), whose user sums then stand.
 */
export async function stillDayWriter(tx: SqlExecutor, mark: Pick<DirtyDay, 'workspaceId' | 'day'>, writer: string): Promise<boolean> {
  await lockDay(tx, mark.workspaceId, mark.day);
  const rows = await tx.query('SELECT 1 FROM rollup_dirty WHERE workspace_id = $1 AND day = $2::date AND writer = $3', [mark.workspaceId, mark.day, writer]);
  return rows.length > 0;
}
