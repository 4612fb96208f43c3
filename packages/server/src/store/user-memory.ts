/**
 * Reads one user's own events for their memory (ADR-004), straight from the committed event log,
 * so a feedback event counts on the very next request. Only rows whose user_id is that user are
 * read: no other user's data can reach their memory. The route reads through the snapshot
 * (user-memory-window.ts); this full read is what a missing or stale snapshot is rebuilt from.
 */
import type { MemoryEvent } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';

/** The newest events read per user: older ones have decayed to almost nothing (docs/memory.md). */
export const MEMORY_EVENTS_LIMIT = 2_000;

/**
 * Tables this feature keeps that hold a user id: the per-user snapshots of event facts (a cache
 * of the log, erased with the user and rebuilt from what the log still holds).
 */
export const USER_MEMORY_USER_TABLES = ['user_memory_snapshots'] as const;

/** An event with its place in the log (`seq`), which the snapshot's window and check are kept by. */
export interface SeqMemoryEvent extends MemoryEvent {
  seq: number;
}

interface Row {
  seq: number;
  id: string;
  type: string;
  payload: Record<string, unknown>;
  at_ms: number;
  answer: string | null;
  query_type: string | null;
  response_id: string;
}

/**
 * The columns of an event and its response that memory reads, and the join that reads them, for
 * `FROM (<events with seq, id, type, payload, occurred_at, response_id>) e`. The time is read as
 * whole milliseconds in SQL (truncated, as the drivers' Date parsing does), so the full read and
 * the snapshot's JSON tail (user-memory-snapshot.ts) give an event the same time to the bit.
 */
export const MEMORY_EVENT_COLUMNS = `e.seq::float8 AS seq, e.id, e.type, e.payload, floor(extract(epoch FROM e.occurred_at) * 1000)::float8 AS at_ms,
       e.response_id, r.answer, r.query_type`;

/**
 * The responses join of {@link MEMORY_EVENT_COLUMNS}: one primary-key probe per event whatever
 * the statistics say. LATERAL alone did not do it: the planner pulls a simple subquery up into a
 * plain join, and on a fresh table (4 rows estimated for the workspace) it joined every event to
 * every response of the workspace (2 million rows filtered, 120-260 ms at 2,000 events). OFFSET 0
 * keeps the subquery a subquery, run as a responses_pkey probe per event (8-22 ms).
 */
export const MEMORY_RESPONSE_JOIN = `LEFT JOIN LATERAL (SELECT answer, query_type FROM responses WHERE workspace_id = $1 AND id = e.response_id OFFSET 0) r ON true`;

/**
 * The events a user's memory counts: their own, verified for them, neither duplicates nor votes
 * they replaced. Verified (issue 22): sent with a secret key, or with a feedback token naming that
 * user. A public key's `userId` is anyone's claim, and memory is pasted into the next prompt: an
 * unverified event must not be able to teach anything to another user's memory. A reviewer's or a
 * judge's verdict naming the user is about the user's response, not what the user said: left out.
 */
export const MEMORY_EVENT_FILTER =
  "workspace_id = $1 AND user_id = $2 AND verified AND duplicate_of IS NULL AND superseded_by IS NULL AND retracted_at IS NULL AND source NOT IN ('review', 'judge')";

/**
 * The user's newest events (duplicates and replaced votes left out) with their response's answer
 * and query type, newest (highest seq) first.
 *
 * @example
 * const events = await readMemoryEvents(db, ws, 'user-456');
 */
export async function readMemoryEvents(db: SqlExecutor, workspaceId: string, userId: string, limit = MEMORY_EVENTS_LIMIT): Promise<SeqMemoryEvent[]> {
  const rows = await db.query<Row>(
    `SELECT ${MEMORY_EVENT_COLUMNS}
       FROM (SELECT id, type, payload, occurred_at, response_id, seq FROM feedback_events
              WHERE ${MEMORY_EVENT_FILTER}
              ORDER BY seq DESC LIMIT $3) e
       ${MEMORY_RESPONSE_JOIN}
      ORDER BY e.seq DESC`,
    [workspaceId, userId, limit],
  );
  return rows.map(toMemoryEvent);
}

/** A row of {@link MEMORY_EVENT_COLUMNS}, from SQL or from its JSON form, as an event. */
export function toMemoryEvent(r: Row): SeqMemoryEvent {
  return {
    seq: Number(r.seq),
    id: r.id,
    type: r.type,
    payload: r.payload ?? {},
    occurredAt: new Date(Number(r.at_ms)),
    answer: r.answer,
    queryType: r.query_type,
    responseId: r.response_id,
  };
}

/** The shape of one event row as {@link MEMORY_EVENT_COLUMNS} gives it. */
export type MemoryEventRow = Row;
