/**
 * Reads of named scores (issue 26 §1): the current scores of a response, a selection's score
 * sums per name (`GET /v1/stats?groupBy=score`), the response list's score filter. A score is a
 * `score` event's payload, or the `payload.score` of a vote mapped from one; only current events
 * count (not a duplicate, not replaced, not retracted). Migration 0030 indexes the name.
 */
import type { ScoreSums } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';

/** SQL: the score an event (alias `e`) carries, as JSON; null when none. */
const SCORE_JSON = (e: string): string => `(CASE WHEN ${e}.type = 'score' THEN ${e}.payload ELSE ${e}.payload->'score' END)`;
/** SQL: the score's name, written as migration 0030's index so the planner uses it. */
export const SCORE_NAME = (e: string): string => `(CASE WHEN ${e}.type = 'score' THEN ${e}.payload->>'name' ELSE ${e}.payload->'score'->>'name' END)`;
/** SQL: the score's numeric value (null for a label-only score). */
export const SCORE_VALUE = (e: string): string => `(${SCORE_JSON(e)}->>'value')::float8`;
/** SQL: the score's label (`stringValue`). */
export const SCORE_LABEL = (e: string): string => `(${SCORE_JSON(e)}->>'stringValue')`;
/** SQL: the event is current: not a duplicate, not replaced, not retracted. */
export const CURRENT_EVENT = (e: string): string => `${e}.duplicate_of IS NULL AND ${e}.superseded_by IS NULL AND ${e}.retracted_at IS NULL`;

/** One current score of a response. */
export interface ResponseScore {
  eventId: string;
  name: string;
  value: number | null;
  stringValue: string | null;
  configId: string | null;
  /** The type it is stored as: `score`, or the vote it was mapped to. */
  type: string;
  userId: string | null;
  occurredAt: string;
}

/**
 * The current scores of a response, by name then time.
 *
 * @example
 * await responseScores(db, 'ws_1', 'r1') // [{ eventId, name: 'helpfulness', value: 0.8, … }]
 */
export async function responseScores(db: SqlExecutor, workspaceId: string, responseId: string): Promise<ResponseScore[]> {
  const rows = await db.query<{ id: string; name: string; value: number | null; label: string | null; config_id: string | null; type: string; user_id: string | null; occurred_at: Date }>(
    `SELECT e.id, ${SCORE_NAME('e')} AS name, ${SCORE_VALUE('e')} AS value, ${SCORE_LABEL('e')} AS label, ${SCORE_JSON('e')}->>'configId' AS config_id,
            e.type, e.user_id, e.occurred_at
       FROM feedback_events e
      WHERE e.workspace_id = $1 AND e.response_id = $2 AND ${SCORE_NAME('e')} IS NOT NULL AND ${CURRENT_EVENT('e')}
      ORDER BY 2, e.occurred_at, e.id`,
    [workspaceId, responseId],
  );
  return rows.map((r) => ({
    eventId: r.id,
    name: r.name,
    value: r.value,
    stringValue: r.label,
    configId: r.config_id,
    type: r.type,
    userId: r.user_id,
    occurredAt: r.occurred_at.toISOString(),
  }));
}

/**
 * A selection's current scores summed per name: events that occurred in [from, to) (UTC days,
 * `to` inclusive as the stats' ranges are), optionally of one name.
 *
 * @example
 * await scoreSums(db, 'ws_1', '2026-11-01', '2026-11-27') // [{ name: 'helpfulness', count: 12, valued: 12, sum: 9.1, sumSquares: 7.3, labels: {} }]
 */
export async function scoreSums(db: SqlExecutor, workspaceId: string, from: string, to: string, name?: string): Promise<ScoreSums[]> {
  const rows = await db.query<{ name: string; label: string | null; n: number; valued: number; sum: number | null; sum_sq: number | null }>(
    `SELECT ${SCORE_NAME('e')} AS name, ${SCORE_LABEL('e')} AS label, count(*)::int AS n, count(${SCORE_VALUE('e')})::int AS valued,
            sum(${SCORE_VALUE('e')}) AS sum, sum(${SCORE_VALUE('e')} * ${SCORE_VALUE('e')}) AS sum_sq
       FROM feedback_events e
      WHERE e.workspace_id = $1 AND ${SCORE_NAME('e')} IS NOT NULL AND ($4::text IS NULL OR ${SCORE_NAME('e')} = $4)
        AND e.occurred_at >= $2::date AND e.occurred_at < $3::date + 1 AND ${CURRENT_EVENT('e')}
      GROUP BY 1, 2`,
    [workspaceId, from, to, name ?? null],
  );
  const byName = new Map<string, ScoreSums>();
  for (const r of rows) {
    const s = byName.get(r.name) ?? { name: r.name, count: 0, valued: 0, sum: 0, sumSquares: 0, labels: {} };
    s.count += r.n;
    s.valued += r.valued;
    s.sum += r.sum ?? 0;
    s.sumSquares += r.sum_sq ?? 0;
    if (r.label !== null) Object.defineProperty(s.labels, r.label, { value: r.n, enumerable: true, writable: true, configurable: true });
    byName.set(r.name, s);
  }
  return [...byName.values()];
}

/** The response list's score filter: a current score of `name`, within [min, max], or equal to `value` (its label, or its number). */
export interface ScoreFilter {
  name: string;
  min?: number;
  max?: number;
  value?: string;
}

/**
 * SQL: the response (alias `r`) has a current score matching the filter; `p` adds a parameter
 * and answers its placeholder. A probe per response of the walk, through migration 0030's index.
 *
 * @example
 * where.push(scoreFilterSql({ name: 'helpfulness', min: 0.5 }, p));
 */
export function scoreFilterSql(filter: ScoreFilter, p: (value: unknown) => string): string {
  const conditions = [`e.workspace_id = r.workspace_id`, `e.response_id = r.id`, `${SCORE_NAME('e')} = ${p(filter.name)}`, CURRENT_EVENT('e')];
  if (filter.min !== undefined) conditions.push(`${SCORE_VALUE('e')} >= ${p(filter.min)}`);
  if (filter.max !== undefined) conditions.push(`${SCORE_VALUE('e')} <= ${p(filter.max)}`);
  if (filter.value !== undefined) {
    const asNumber = Number(filter.value);
    const numeric = filter.value.trim() !== '' && Number.isFinite(asNumber);
    conditions.push(numeric ? `(${SCORE_LABEL('e')} = ${p(filter.value)} OR ${SCORE_VALUE('e')} = ${p(asNumber)})` : `${SCORE_LABEL('e')} = ${p(filter.value)}`);
  }
  return `EXISTS (SELECT 1 FROM feedback_events e WHERE ${conditions.join(' AND ')} OFFSET 0)`;
}

/**
 * Marks for a rescore every response with a current `score` of `name` (a config's weight or
 * range changed: their composite scores change); the scheduled rescore picks them up.
 *
 * @example
 * await markScoredResponsesDirty(db, 'ws_1', 'helpfulness') // 42
 */
export async function markScoredResponsesDirty(db: SqlExecutor, workspaceId: string, name: string): Promise<number> {
  const rows = await db.query(
    `INSERT INTO score_dirty AS d (workspace_id, response_id)
     SELECT DISTINCT e.workspace_id, e.response_id FROM feedback_events e
      WHERE e.workspace_id = $1 AND ${SCORE_NAME('e')} = $2 AND e.type = 'score' AND ${CURRENT_EVENT('e')}
      ORDER BY 1, 2
     ON CONFLICT (workspace_id, response_id) DO UPDATE SET version = d.version + 1
     RETURNING 1`,
    [workspaceId, name],
  );
  return rows.length;
}

/**
 * The numeric scores of `name` that occurred since `since` (a score_mean alert rule's window):
 * how many, and their sum.
 *
 * @example
 * await scoreWindow(db, 'ws_1', 'helpfulness', windowStart(now, 24)) // { count: 40, sum: 29.5 }
 */
export async function scoreWindow(db: SqlExecutor, workspaceId: string, name: string, since: Date): Promise<{ count: number; sum: number }> {
  const [row] = await db.query<{ n: number; sum: number | null }>(
    `SELECT count(${SCORE_VALUE('e')})::int AS n, sum(${SCORE_VALUE('e')}) AS sum FROM feedback_events e
      WHERE e.workspace_id = $1 AND ${SCORE_NAME('e')} = $2 AND e.occurred_at >= $3 AND ${CURRENT_EVENT('e')}`,
    [workspaceId, name, since.toISOString()],
  );
  return { count: row?.n ?? 0, sum: row?.sum ?? 0 };
}
