/**
 * The read behind `GET /api/v1/feedback/summary`: a session's feedback events. The numbers are
 * computed by `summarizeSession` in core, which also decides what counts.
 */
import type { SessionFeedbackEvent } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';

interface SessionEventRow {
  response_id: string;
  type: string;
  occurred_at: Date;
  rating: number | null;
  superseded_by: string | null;
  duplicate_of: string | null;
}

/**
 * The feedback of one session in a workspace. An event belongs to the session when it carries
 * the session id itself, or when its response was registered with it: clients of the seed
 * send `session_id` on the event, feedloop clients usually on the response. Replaced votes and
 * content duplicates are returned too, marked, so the one rule for leaving them out lives in core.
 *
 * @example
 * summarizeSession('sess-1', await loadSessionFeedback(db, ws, 'sess-1'))
 */
export async function loadSessionFeedback(db: SqlExecutor, workspaceId: string, sessionId: string): Promise<SessionFeedbackEvent[]> {
  // Only the stars leave the database, not whole payloads: corrections can be 200 kB each. A
  // session's summary is what its user said: reviewers' and judges' events are left out.
  const rows = await db.query<SessionEventRow>(
    `SELECT f.response_id, f.type, f.occurred_at, f.superseded_by, f.duplicate_of,
            CASE WHEN f.type = 'rating' THEN (f.payload->>'rating')::float8 END AS rating
       FROM feedback_events f
      WHERE f.workspace_id = $1 AND f.retracted_at IS NULL AND f.source IN ('explicit', 'implicit', 'outcome')
        AND (f.session_id = $2
             OR f.response_id IN (SELECT r.id FROM responses r WHERE r.workspace_id = $1 AND r.session_id = $2))`,
    [workspaceId, sessionId],
  );
  return rows.map((r) => ({
    responseId: r.response_id,
    type: r.type,
    occurredAt: r.occurred_at,
    rating: r.rating,
    supersededBy: r.superseded_by,
    duplicateOf: r.duplicate_of,
  }));
}
