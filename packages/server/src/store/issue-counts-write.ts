/**
 * A day's top-issue counts (`feedback_issue_counts`, negatives per normalized query) and their ISO
 * week's (`feedback_issue_counts_weekly`, migration 0018), written by the day's rollup as a change
 * set: only the queries whose count changed are written, and only their weekly rows summed again.
 * A busy day is rolled up again and again while its feedback comes in, and between two rollups
 * only the queries with new negatives change; deleting and inserting every query of the day, then
 * summing its whole week again, held the embedded database's one connection for 0.25-0.7 s a
 * rollup at 10,000 queries (docs/benchmarks.md, "Twelfth session").
 */
import { isoWeekOf } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';

/** A day's negatives per query, as the rollup computes them (core's `issueCounts`). */
export interface IssueCount {
  query: string;
  negatives: number;
}

/** What a write changed: the queries whose day row was deleted, inserted or both (a count that moved). */
export interface IssueCountsChange {
  deleted: number;
  inserted: number;
}

/**
 * Makes `workspaceId`'s `day` counts those of `issues`, and its week's the sum of its days for
 * every query that changed. Runs in the rollup's transaction, after its day lock; the week's lock
 * is taken after it (always in that order, so no cycle): a rollup of another day of the week waits,
 * and each sums the days as committed, its own included. A query no rollup of the week touched
 * keeps its weekly row, which is the sum of its days because every write of a day's row is
 * followed by this sum.
 *
 * @example
 * await writeIssueCounts(tx, 'ws_1', '2026-11-22', [{ query: 'sales last month?', negatives: 3 }]);
 * // { deleted: 1, inserted: 1 } when that query had 2 negatives at the last rollup
 */
export async function writeIssueCounts(tx: SqlExecutor, workspaceId: string, day: string, issues: readonly IssueCount[]): Promise<IssueCountsChange> {
  // One JSON document of the stored counts, not a row each (as the user sums' digests).
  const [doc] = await tx.query<{ counts: string | null }>(
    'SELECT json_object_agg(query, negatives)::text AS counts FROM feedback_issue_counts WHERE workspace_id = $1 AND day = $2::date',
    [workspaceId, day],
  );
  const stored = new Map(Object.entries(JSON.parse(doc?.counts ?? '{}') as Record<string, number>));
  const changed = issues.filter((i) => stored.get(i.query) !== i.negatives);
  const current = new Set(issues.map((i) => i.query));
  const gone = [...stored.keys()].filter((query) => !current.has(query));
  const stale = [...changed.filter((i) => stored.has(i.query)).map((i) => i.query), ...gone];
  if (stale.length === stored.size && stale.length > 0) {
    await tx.query('DELETE FROM feedback_issue_counts WHERE workspace_id = $1 AND day = $2::date', [workspaceId, day]);
  } else if (stale.length > 0) {
    await tx.query('DELETE FROM feedback_issue_counts WHERE workspace_id = $1 AND day = $2::date AND query = ANY ($3::text[])', [workspaceId, day, stale]);
  }
  if (changed.length > 0) {
    await tx.query(
      `INSERT INTO feedback_issue_counts (workspace_id, day, query, negatives)
       SELECT $2, $3::date, query, negatives FROM json_to_recordset($1::json) AS x(query text, negatives int)`,
      [JSON.stringify(changed), workspaceId, day],
    );
  }
  const touched = [...changed.map((i) => i.query), ...gone];
  if (touched.length > 0) await sumWeek(tx, workspaceId, isoWeekOf(day), touched);
  return { deleted: stale.length, inserted: changed.length };
}

/** Sums the week's days again for the given queries (their weekly rows, deleted when no day has them). */
async function sumWeek(tx: SqlExecutor, workspaceId: string, week: string, queries: readonly string[]): Promise<void> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtext('feedloop.rollup.week'), hashtext($1 || '/' || $2))", [workspaceId, week]);
  await tx.query('DELETE FROM feedback_issue_counts_weekly WHERE workspace_id = $1 AND week = $2::date AND query = ANY ($3::text[])', [workspaceId, week, queries]);
  await tx.query(
    `INSERT INTO feedback_issue_counts_weekly (workspace_id, week, query, negatives)
     SELECT $1, $2::date, query, sum(negatives)::int FROM feedback_issue_counts
      WHERE workspace_id = $1 AND day BETWEEN $2::date AND $2::date + 6 AND query = ANY ($3::text[])
      GROUP BY query`,
    [workspaceId, week, queries],
  );
}
