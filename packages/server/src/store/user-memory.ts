/**
 * Reads one user's own events for their memory (ADR-004), straight from the committed event log,
 * so a feedback event counts on the very next request. Only rows whose user_id is that user are
 * read: no other user's data can reach their memory.
 */
import type { MemoryEvent } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';

/** The newest events read per user: older ones have decayed to almost nothing (docs/memory.md). */
export const MEMORY_EVENTS_LIMIT = 2_000;

/**
 * Tables this feature reads that hold a user id. It adds none of its own: memory is computed on
 * read from feedback_events and responses, so erasing a user's events erases their memory.
 */
export const USER_MEMORY_USER_TABLES = [] as const;

interface Row {
  id: string;
  type: string;
  payload: Record<string, unknown>;
  occurred_at: Date;
  answer: string | null;
  query_type: string | null;
  response_id: string;
}

/**
 * The user's newest events (duplicates and replaced votes left out) with their response's answer
 * and query type.
 *
 * @example
 * const events = await readMemoryEvents(db, ws, 'user-456');
 */
export async function readMemoryEvents(db: SqlExecutor, workspaceId: string, userId: string, limit = MEMORY_EVENTS_LIMIT): Promise<MemoryEvent[]> {
  const rows = await db.query<Row>(
    `SELECT e.id, e.type, e.payload, e.occurred_at, e.response_id, r.answer, r.query_type
       FROM (SELECT id, type, payload, occurred_at, response_id, seq FROM feedback_events
              WHERE workspace_id = $1 AND user_id = $2 AND duplicate_of IS NULL AND superseded_by IS NULL
              ORDER BY seq DESC LIMIT $3) e
       -- One primary-key probe per event whatever the statistics say. LATERAL alone did not do it:
       -- the planner pulls a simple subquery up into a plain join, and on a fresh table (rows=4
       -- estimated for the workspace) it joined every event to every response of the workspace
       -- (2 million rows filtered, 120-260 ms at 2,000 events). OFFSET 0 keeps the subquery a
       -- subquery, so it runs as a responses_pkey probe per event (8-22 ms).
       LEFT JOIN LATERAL (SELECT answer, query_type FROM responses WHERE workspace_id = $1 AND id = e.response_id OFFSET 0) r ON true
      ORDER BY e.seq DESC`,
    [workspaceId, userId, limit],
  );
  return rows.map((r) => ({
    id: r.id,
    type: r.type,
    payload: r.payload ?? {},
    occurredAt: r.occurred_at,
    answer: r.answer,
    queryType: r.query_type,
    responseId: r.response_id,
  }));
}
