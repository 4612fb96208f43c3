/**
 * Past hourly counts rebuilt from the processed signals, for the alert rule preview: the live
 * `feedback_metrics_hourly` keeps only the longest window and baseline (about three weeks), and a
 * preview looks back 30 days plus a baseline. The counts follow pipeline/hourly-counts.ts: the
 * users' signals only (a reviewer's or a judge's are not counted there either).
 */
import { RATING_TYPES, type HourlyCounts, type HourlyRegistered } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import { BY_USERS } from './response-list-tags.js';

const HOUR_SQL = (column: string): string => `date_trunc('hour', ${column} AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`;

/**
 * A workspace's hourly counts since `from`, from its counted signals.
 *
 * @example
 * const buckets = await readPastHourlyCounts(db, 'ws_1', new Date(Date.now() - 45 * 86_400_000));
 */
export async function readPastHourlyCounts(db: SqlExecutor, workspaceId: string, from: Date): Promise<HourlyCounts[]> {
  const [rows, categories] = await Promise.all([
    db.query<{ hour: Date; rated: number; positive: number; negative: number; corrections: number; escalations: number }>(
      `SELECT ${HOUR_SQL('occurred_at')} AS hour,
              count(*) FILTER (WHERE type = ANY($3::text[]) AND polarity IN ('positive', 'negative'))::int AS rated,
              count(*) FILTER (WHERE type = ANY($3::text[]) AND polarity = 'positive')::int AS positive,
              count(*) FILTER (WHERE type = ANY($3::text[]) AND polarity = 'negative')::int AS negative,
              count(*) FILTER (WHERE type = 'correction')::int AS corrections,
              count(*) FILTER (WHERE type = 'escalation')::int AS escalations
         FROM feedback_signals s WHERE workspace_id = $1 AND status = 'counted' AND occurred_at >= $2 AND ${BY_USERS}
        GROUP BY 1 ORDER BY 1`,
      [workspaceId, from.toISOString(), [...RATING_TYPES]],
    ),
    db.query<{ hour: Date; category: string; n: number }>(
      `SELECT ${HOUR_SQL('occurred_at')} AS hour, c AS category, count(*)::int AS n
         FROM feedback_signals s, unnest(categories) c
        WHERE workspace_id = $1 AND status = 'counted' AND occurred_at >= $2 AND polarity = 'negative' AND ${BY_USERS}
        GROUP BY 1, 2`,
      [workspaceId, from.toISOString()],
    ),
  ]);
  const byHour = new Map<number, Record<string, number>>();
  for (const c of categories) {
    const k = new Date(c.hour).getTime();
    const counts = byHour.get(k) ?? {};
    Object.defineProperty(counts, c.category, { value: c.n, enumerable: true, writable: true, configurable: true });
    byHour.set(k, counts);
  }
  return rows.map((r) => ({
    hour: new Date(r.hour),
    rated: r.rated,
    positive: r.positive,
    negative: r.negative,
    corrections: r.corrections,
    escalations: r.escalations,
    negativeCategories: byHour.get(new Date(r.hour).getTime()) ?? {},
  }));
}

/**
 * Responses and sessions registered per UTC hour since `from` (a response without a session is a
 * session of its own, as in the evaluator).
 *
 * @example
 * await readPastRegistered(db, 'ws_1', from) // [{ hour, responses: 40, sessions: 12 }, ...]
 */
export async function readPastRegistered(db: SqlExecutor, workspaceId: string, from: Date): Promise<HourlyRegistered[]> {
  const rows = await db.query<{ hour: Date; responses: number; sessions: number }>(
    `SELECT ${HOUR_SQL('created_at')} AS hour, count(*)::int AS responses,
            (count(DISTINCT session_id) + count(*) FILTER (WHERE session_id IS NULL))::int AS sessions
       FROM responses WHERE workspace_id = $1 AND created_at >= $2 GROUP BY 1`,
    [workspaceId, from.toISOString()],
  );
  return rows.map((r) => ({ hour: new Date(r.hour), responses: r.responses, sessions: r.sessions }));
}
