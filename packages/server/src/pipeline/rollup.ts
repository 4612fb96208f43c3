/**
 * Daily rollups: recomputes feedback_metrics_daily, the stats cells, the user sums and the issue counts for the
 * days processing (or a response registration) marked dirty. A day is
 * recomputed whole from its counted signals, so re-runs are idempotent and a late event simply
 * marks its day dirty again. A dirty mark is read without a lock and deleted, in the transaction
 * that writes the rollup, only if its version is unchanged: processing never waits for a rollup,
 * an event processed meanwhile keeps the day dirty, and a failure leaves the mark.
 *
 * The day is read before that transaction; embedded, in pages of {@link ROLLUP_PAGE} rows, each
 * its own statement: PGlite serves one statement at a time on the event loop's thread, and one
 * read of a busy day (100,000 events) would hold every request for seconds. The pages need no
 * common snapshot: whatever is processed after the mark was read bumps its version, so the day
 * stays dirty and is read again.
 *
 * A day still dirty after its rollup (events kept coming: today) is rolled up again only after
 * {@link ROLLUP_PACE} times that rollup's duration, so recomputing a busy day whole never takes
 * more than a tenth of a connection from the pipeline. Today's unfiltered figures come from the
 * live counters meanwhile.
 */
import { isoWeekOf, type DailyMetrics } from '@feedloop/core';
import type { SqlClient, SqlExecutor } from '../db/sql-client.js';
import { computeDay, type DayInput, type DayOutput, type RegisteredInputRow, type RollupInputRow } from './rollup-compute.js';

const DAYS_PER_RUN = 100;
/** Rows a read of the day takes at a time. */
export const ROLLUP_PAGE = 5_000;
/** A day still dirty after its rollup waits this many times the rollup's duration for the next. */
export const ROLLUP_PACE = 10;


/**
 * Rolls up dirty days until none is left or `maxDays` are done; with `workspaceId`, only that
 * workspace's (an erasure's job: it recomputes what it changed and touches no other workspace).
 *
 * @returns the days rolled up.
 * @example
 * await rollupDirtyDays(db) // [{ workspaceId: 'ws_1', day: '2026-11-22' }]
 */
export async function rollupDirtyDays(
  db: SqlClient,
  options: { maxDays?: number; now?: Date; compute?: (input: DayInput) => Promise<DayOutput>; workspaceId?: string } = {},
): Promise<Array<{ workspaceId: string; day: string }>> {
  const compute = options.compute ?? (async (input: DayInput) => computeDay(input));
  const done: Array<{ workspaceId: string; day: string }> = [];
  const maxDays = options.maxDays ?? DAYS_PER_RUN;
  while (done.length < maxDays) {
    const [mark] = await db.query<{ workspace_id: string; day: string; version: number }>(
      `SELECT workspace_id, to_char(day, 'YYYY-MM-DD') AS day, version FROM rollup_dirty
        WHERE (workspace_id, day) NOT IN (SELECT x.ws, x.day::date FROM json_to_recordset($1::json) AS x(ws text, day text))
          AND (not_before IS NULL OR not_before <= now())${options.workspaceId === undefined ? '' : ' AND workspace_id = $2'}
        ORDER BY marked_at LIMIT 1`,
      [JSON.stringify(done.map((d) => ({ ws: d.workspaceId, day: d.day }))), ...(options.workspaceId === undefined ? [] : [options.workspaceId])],
    );
    if (!mark) break;
    const started = performance.now();
    // Paged only embedded: there one statement at a time holds the event loop (see above).
    const input = await readDay(db, mark.workspace_id, mark.day, db.dialect === 'pglite' ? ROLLUP_PAGE : Infinity);
    const output = await compute(input);
    await db.transaction(async (tx) => {
      await writeDay(tx, mark.workspace_id, mark.day, output, options.now ?? new Date());
      const cleared = await tx.query('DELETE FROM rollup_dirty WHERE workspace_id = $1 AND day = $2::date AND version = $3 RETURNING 1', [
        mark.workspace_id,
        mark.day,
        mark.version,
      ]);
      // Still dirty: events keep coming. Its next rollup waits, so a busy day's rollups take at
      // most 1 / ROLLUP_PACE of a connection (migration 0012).
      if (cleared.length === 0) {
        await tx.query("UPDATE rollup_dirty SET not_before = now() + $3 * interval '1 millisecond' WHERE workspace_id = $1 AND day = $2::date", [
          mark.workspace_id,
          mark.day,
          Math.round((performance.now() - started) * ROLLUP_PACE),
        ]);
      }
    }, { background: true });
    done.push({ workspaceId: mark.workspace_id, day: mark.day });
  }
  return done;
}

/**
 * Recomputes one workspace's day (UTC) in one go: {@link readDay}, then {@link writeDay}.
 *
 * @example
 * await db.transaction((tx) => rollupDay(tx, 'ws_1', '2026-11-22', new Date()));
 */
export async function rollupDay(tx: SqlExecutor, workspaceId: string, day: string, now: Date): Promise<DailyMetrics[]> {
  return writeDay(tx, workspaceId, day, computeDay(await readDay(tx, workspaceId, day)), now);
}

/**
 * Reads one workspace's day (UTC) in pages: its counted, current signals with their events and
 * responses, by (occurred_at, event_id); and the responses registered that day, by (created_at,
 * id), each with whether a counted correction or escalation (of any day) is about it. The day's
 * bounds are UTC midnights written out (`AT TIME ZONE 'UTC'`): a bare `date` compared with a
 * `timestamptz` is cast in the session's zone, and the connections' UTC setting should not be all
 * that holds.
 *
 * @example
 * const input = await readDay(db, 'ws_1', '2026-11-22');
 */
export async function readDay(db: SqlExecutor, workspaceId: string, day: string, pageSize = Infinity): Promise<DayInput> {
  // LIMIT NULL is no limit: one statement, which Postgres plans with hash joins (paging forces
  // index probes row by row: 13 pages of 450 ms for a day of 60,000 events).
  const limit = Number.isFinite(pageSize) ? pageSize : null;
  const full = (page: unknown[]): boolean => limit !== null && page.length === limit;
  const rows: RollupInputRow[] = [];
  for (let after: RollupInputRow | undefined; ; ) {
    const page = await db.query<RollupInputRow>(
      `SELECT s.event_id, s.type, e.payload, s.polarity, s.categories, s.value, s.first_pass, e.edit_distance, e.occurred_at,
              s.occurred_at::text AS s_occurred_key, s.response_id, r.created_at AS r_created_at, COALESCE(s.session_id, r.session_id) AS session_id,
              s.user_id, r.agent, r.model, r.query_type, r.experiment_id, r.variant, r.query
         FROM feedback_signals s
         JOIN feedback_event_ids k ON k.workspace_id = s.workspace_id AND k.id = s.event_id
         JOIN feedback_events e ON e.workspace_id = k.workspace_id AND e.seq = k.seq AND e.received_at = k.received_at
         JOIN responses r ON r.workspace_id = s.workspace_id AND r.id = s.response_id
        WHERE s.workspace_id = $1 AND s.status = 'counted' AND e.superseded_by IS NULL
          AND s.occurred_at >= ($2::date)::timestamp AT TIME ZONE 'UTC' AND s.occurred_at < ($2::date + 1)::timestamp AT TIME ZONE 'UTC'
          AND ($3::timestamptz IS NULL OR (s.occurred_at, s.event_id) > ($3::timestamptz, $4::text))
        ORDER BY s.occurred_at, s.event_id LIMIT $5`,
      [workspaceId, day, after?.s_occurred_key ?? null, after?.event_id ?? null, limit],
    );
    rows.push(...page);
    if (!full(page)) break;
    after = page[page.length - 1];
  }
  // Corrections and escalations mark their response's day dirty, so the flags stay current.
  const registered: RegisteredInputRow[] = [];
  for (let after: RegisteredInputRow | undefined; ; ) {
    const page = await db.query<RegisteredInputRow>(
      `SELECT r.id, r.created_at::text AS created_key, r.session_id, r.user_id, r.agent, r.model, r.query_type, r.experiment_id, r.variant,
              EXISTS (SELECT 1 FROM feedback_signals s WHERE s.workspace_id = r.workspace_id AND s.response_id = r.id
                         AND s.status = 'counted' AND s.type = 'correction') AS corrected,
              EXISTS (SELECT 1 FROM feedback_signals s WHERE s.workspace_id = r.workspace_id AND s.response_id = r.id
                         AND s.status = 'counted' AND s.type = 'escalation') AS escalated
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
  return { rows, registered };
}

/**
 * Writes one workspace's day from its input: `feedback_metrics_daily`, the stats cells, the user
 * sums and the issue counts, replacing what was there. Rollups of one day are serialized by a
 * transaction lock, so two workers rolling up the same day one after the other cannot collide.
 *
 * @example
 * await db.transaction((tx) => writeDay(tx, 'ws_1', '2026-11-22', input, new Date()));
 */
export async function writeDay(tx: SqlExecutor, workspaceId: string, day: string, output: DayOutput, now: Date): Promise<DailyMetrics[]> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtext('feedloop.rollup'), hashtext($1 || '/' || $2))", [workspaceId, day]);
  const { metrics, metricsJson, cellsJson, usersJson, issuesJson } = output;

  for (const table of ['feedback_metrics_daily', 'feedback_stats_cells', 'feedback_user_stats_daily', 'feedback_issue_counts']) {
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
  if (usersJson !== null) {
    await tx.query(
      `INSERT INTO feedback_user_stats_daily (workspace_id, day, user_id, sums)
       SELECT $2, $3::date, "userId", sums FROM json_to_recordset($1::json) AS x("userId" text, sums jsonb)`,
      [usersJson, workspaceId, day],
    );
  }
  if (issuesJson !== null) {
    await tx.query(
      `INSERT INTO feedback_issue_counts (workspace_id, day, query, negatives)
       SELECT $2, $3::date, query, negatives FROM json_to_recordset($1::json) AS x(query text, negatives int)`,
      [issuesJson, workspaceId, day],
    );
  }
  await rewriteIssueWeek(tx, workspaceId, day);
  return metrics;
}

/**
 * Rewrites the weekly top-issue counts of `day`'s ISO week from that week's days. Serialized per
 * week by a transaction lock taken after the day's (always in that order, so no cycle): a rollup
 * of another day of the week waits, then sums every committed day, its own included.
 */
async function rewriteIssueWeek(tx: SqlExecutor, workspaceId: string, day: string): Promise<void> {
  const week = isoWeekOf(day);
  await tx.query("SELECT pg_advisory_xact_lock(hashtext('feedloop.rollup.week'), hashtext($1 || '/' || $2))", [workspaceId, week]);
  await tx.query('DELETE FROM feedback_issue_counts_weekly WHERE workspace_id = $1 AND week = $2::date', [workspaceId, week]);
  await tx.query(
    `INSERT INTO feedback_issue_counts_weekly (workspace_id, week, query, negatives)
     SELECT $1, $2::date, query, sum(negatives)::int FROM feedback_issue_counts
      WHERE workspace_id = $1 AND day BETWEEN $2::date AND $2::date + 6
      GROUP BY query`,
    [workspaceId, week],
  );
}
