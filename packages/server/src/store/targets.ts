/**
 * Reads a target's label actions (ADR-0012) from the event log, by the (workspace, target) index
 * of migration 0014; core's targetState folds them into the current state with its history.
 */
import { LABEL_ACTION_TYPES, type TargetEvent } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';

/** Actions read per target at most (the oldest first: history starts at the beginning). */
export const TARGET_EVENTS_LIMIT = 10_000;

interface Row {
  id: string;
  type: string;
  payload: Record<string, unknown>;
  user_id: string | null;
  session_id: string | null;
  response_id: string;
  occurred_at: Date;
}

/**
 * The label actions on one target, content duplicates left out.
 *
 * @example
 * const events = await readTargetEvents(db, ws, 'edge_abc123');
 */
export async function readTargetEvents(db: SqlExecutor, workspaceId: string, targetId: string): Promise<TargetEvent[]> {
  const rows = await db.query<Row>(
    `SELECT id, type, payload, user_id, session_id, response_id, occurred_at FROM feedback_events
      WHERE workspace_id = $1 AND target_id = $2 AND duplicate_of IS NULL AND retracted_at IS NULL AND type = ANY($3::text[])
      ORDER BY seq LIMIT $4`,
    [workspaceId, targetId, [...LABEL_ACTION_TYPES], TARGET_EVENTS_LIMIT],
  );
  return rows.map((r) => ({
    id: r.id,
    type: r.type,
    payload: r.payload ?? {},
    userId: r.user_id,
    sessionId: r.session_id,
    responseId: r.response_id,
    occurredAt: r.occurred_at,
  }));
}
