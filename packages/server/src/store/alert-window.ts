/**
 * What an alert evaluation reads of one workspace: its hourly counts since a given hour (an index
 * range on `feedback_metrics_hourly`'s key), and its registered responses and distinct sessions
 * since a given instant (an index-only scan of `responses_created`).
 */
import type { HourlyCounts, RegisteredCounts } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';

interface HourlyRow {
  hour: Date;
  rated: number;
  positive: number;
  negative: number;
  corrections: number;
  escalations: number;
  negative_categories: Record<string, number>;
}

/**
 * The workspace's hourly buckets from `from` on.
 *
 * @example
 * const buckets = await readHourlyCounts(tx, 'ws_1', new Date(Date.now() - 8 * 86_400_000));
 */
export async function readHourlyCounts(db: SqlExecutor, workspaceId: string, from: Date): Promise<HourlyCounts[]> {
  const rows = await db.query<HourlyRow>(
    `SELECT hour, rated, positive, negative, corrections, escalations, negative_categories
       FROM feedback_metrics_hourly WHERE workspace_id = $1 AND hour >= $2 ORDER BY hour`,
    [workspaceId, from.toISOString()],
  );
  return rows.map((r) => ({
    hour: r.hour,
    rated: Number(r.rated),
    positive: Number(r.positive),
    negative: Number(r.negative),
    corrections: Number(r.corrections),
    escalations: Number(r.escalations),
    negativeCategories: r.negative_categories,
  }));
}

/**
 * Responses registered since `from`, and their distinct sessions (a response without a session
 * is a session of its own, as in the daily rollup's escalation rate).
 *
 * @example
 * await readRegistered(tx, 'ws_1', windowStart(now, 24)) // { responses: 812, sessions: 240 }
 */
export async function readRegistered(db: SqlExecutor, workspaceId: string, from: Date): Promise<RegisteredCounts> {
  const [row] = await db.query<{ responses: number; sessions: number }>(
    `SELECT count(*)::int AS responses, (count(DISTINCT session_id) + count(*) FILTER (WHERE session_id IS NULL))::int AS sessions
       FROM responses WHERE workspace_id = $1 AND created_at >= $2`,
    [workspaceId, from.toISOString()],
  );
  return { responses: row?.responses ?? 0, sessions: row?.sessions ?? 0 };
}

/**
 * The workspaces with hourly counts since `from`, with an open alert, or with a judge_agreement
 * rule (a judge's calibration spans 30 days, not the hourly counts): the ones an evaluation looks
 * at (any other has nothing to fire and nothing to resolve).
 *
 * @example
 * await workspacesToEvaluate(db, new Date(Date.now() - 168 * 3_600_000)) // ['ws_1', 'ws_2']
 */
export async function workspacesToEvaluate(db: SqlExecutor, from: Date): Promise<string[]> {
  const rows = await db.query<{ workspace_id: string }>(
    `SELECT DISTINCT workspace_id FROM feedback_metrics_hourly WHERE hour >= $1
     UNION SELECT DISTINCT workspace_id FROM alerts WHERE state IN ('pending', 'firing')
     UNION SELECT workspace_id FROM alert_rules WHERE rules @> '[{"kind": "judge_agreement"}]'::jsonb
     ORDER BY 1`,
    [from.toISOString()],
  );
  return rows.map((r) => r.workspace_id);
}
