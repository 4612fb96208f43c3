/**
 * The failed events of a workspace (`feedback_signals` rows with status `failed`), as
 * `GET /v1/pipeline` lists them: each with its error's registry code and a one-line message.
 */
import type { ErrorCode } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import { parseStoredFailure } from '../errors.js';

/** A failed event as a client sees it. */
export interface FailedEvent {
  eventId: string;
  type: string;
  /** The registry code of the failure. */
  code: ErrorCode;
  /** `<code>: <message>`, one line, no stack and no path. */
  error: string;
  processedAt: string;
}

interface FailedEventRow {
  event_id: string;
  type: string;
  error: string | null;
  processed_at: Date;
}

/**
 * The workspace's newest failed events, at most `limit`. Errors stored by older versions held a
 * stack; only their first line is read back, so no stack reaches the wire (issue 25).
 *
 * @example
 * await listFailedEvents(db, 'ws_1', 100) // [{ eventId: 'e1', type: 'thumbs_up', code: 'FEEDLOOP_ERR_RESPONSE_NOT_FOUND', … }]
 */
export async function listFailedEvents(db: SqlExecutor, workspaceId: string, limit: number): Promise<FailedEvent[]> {
  const rows = await db.query<FailedEventRow>(
    `SELECT event_id, type, error, processed_at FROM feedback_signals
      WHERE workspace_id = $1 AND status = 'failed' ORDER BY processed_at DESC LIMIT $2`,
    [workspaceId, limit],
  );
  return rows.map(toFailedEvent);
}

function toFailedEvent(r: FailedEventRow): FailedEvent {
  const { code, message } = parseStoredFailure(r.error ?? '');
  return { eventId: r.event_id, type: r.type, code, error: `${code}: ${message}`, processedAt: r.processed_at.toISOString() };
}
