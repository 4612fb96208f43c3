/**
 * Retracting a feedback event (issue 26: LangSmith's and Langfuse's DELETE, feedloop's
 * `DELETE /v1/feedback/:eventId`): the event stays in the log, marked `retracted_at`; it stops
 * being a current vote, its fingerprint goes (the same vote may be given again), the audit log
 * records it, and it goes back to the pipeline's outbox, whose next claim reverses what it
 * counted (pipeline/retraction.ts). Every read of current feedback leaves it out
 * ({@link NOT_RETRACTED}), as it leaves out replaced votes.
 */
import { LOCK_CLASSES, responseLockStatement } from '../db/response-locks.js';
import type { SqlClient } from '../db/sql-client.js';
import { appendAudit } from './audit-log.js';

/** SQL: the event (alias `e`, or the bare table) is not retracted. */
export const NOT_RETRACTED = (alias?: string): string => `${alias ? `${alias}.` : ''}retracted_at IS NULL`;

/** What a retraction did. */
export interface Retraction {
  eventId: string;
  responseId: string;
  type: string;
  retractedAt: Date;
  reason: string | null;
  /** false: it was retracted before (this call changed nothing). */
  changed: boolean;
}

interface EventFacts {
  seq: string;
  received_at: Date;
  response_id: string;
  type: string;
  retracted_at: Date | null;
  retraction_reason: string | null;
}

const FIND = `SELECT e.seq, e.received_at, e.response_id, e.type, e.retracted_at, e.retraction_reason
                FROM feedback_event_ids k
                JOIN feedback_events e ON e.workspace_id = k.workspace_id AND e.seq = k.seq AND e.received_at = k.received_at
               WHERE k.workspace_id = $1 AND k.id = $2`;

/**
 * Retracts one event of the workspace, once: a second call answers the first retraction
 * (`changed: false`). `undefined` when the workspace has no event of that id.
 *
 * @example
 * await retractEvent(db, 'ws_1', 'evt-1', { reason: 'deleted in LangSmith', actorKeyId: 'key_1' })
 * // { eventId: 'evt-1', responseId: 'r1', type: 'thumbs_down', retractedAt, reason: 'deleted in LangSmith', changed: true }
 */
export async function retractEvent(
  db: SqlClient,
  workspaceId: string,
  eventId: string,
  options: { reason?: string; actorKeyId?: string | null; now?: Date } = {},
): Promise<Retraction | undefined> {
  const [found] = await db.query<EventFacts>(FIND, [workspaceId, eventId]);
  if (!found) return undefined;
  const view = (r: EventFacts, changed: boolean): Retraction => ({
    eventId,
    responseId: r.response_id,
    type: r.type,
    retractedAt: r.retracted_at ?? options.now ?? new Date(),
    reason: r.retraction_reason,
    changed,
  });
  if (found.retracted_at !== null) return view(found, false);
  // The ingest lock of the response: a concurrent vote of the same slot sees the current vote gone.
  const lock = db.dialect === 'postgres' ? responseLockStatement(LOCK_CLASSES.ingest, [{ workspaceId, responseId: found.response_id }]) : undefined;
  return db.transaction(
    async (tx) => {
      const [row] = await tx.query<EventFacts>(`${FIND} FOR UPDATE OF e`, [workspaceId, eventId]);
      if (!row) return undefined;
      if (row.retracted_at !== null) return view(row, false);
      const at = options.now ?? new Date();
      const p = [workspaceId, eventId];
      await tx.query('UPDATE feedback_events SET retracted_at = $4, retraction_reason = $5 WHERE workspace_id = $1 AND seq = $2 AND received_at = $3', [
        workspaceId,
        row.seq,
        row.received_at,
        at.toISOString(),
        options.reason ?? null,
      ]);
      await tx.query('DELETE FROM feedback_current_votes WHERE workspace_id = $1 AND event_id = $2', p);
      await tx.query('DELETE FROM feedback_fingerprints WHERE workspace_id = $1 AND event_id = $2', p);
      // DO UPDATE, not DO NOTHING: it locks a pending row still there, so a claim running now skips
      // the event (SKIP LOCKED) instead of counting it unretracted; a claim that took the row
      // first makes this wait for its commit, and the new row brings the event back to be reversed.
      await tx.query(
        // The event's place in the log from the key table, exact to the microsecond (a Date is not).
        `INSERT INTO pipeline_pending (workspace_id, event_id, seq, received_at)
         SELECT workspace_id, id, seq, received_at FROM feedback_event_ids WHERE workspace_id = $1 AND id = $2
         ON CONFLICT (workspace_id, event_id) DO UPDATE SET created_at = pipeline_pending.created_at`,
        p,
      );
      await appendAudit(tx, {
        workspaceId,
        action: 'feedback.retracted',
        actorKeyId: options.actorKeyId ?? null,
        details: { eventId, responseId: row.response_id, type: row.type, ...(options.reason ? { reason: options.reason } : {}) },
      });
      return view({ ...row, retracted_at: at, retraction_reason: options.reason ?? null }, true);
    },
    lock ? { begin: lock } : {},
  );
}
