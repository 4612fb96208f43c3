/**
 * Which feedback event holds the current value of a drop-in protocol's feedback id (a Langfuse
 * score id; migration 0032, docs/compat.md): a score sent again with another value is a new event,
 * and the earlier one is retracted.
 */
import type { SqlExecutor } from '../db/sql-client.js';

/** A protocol's feedback id and the event that holds its value. */
export interface CompatFeedbackId {
  externalId: string;
  eventId: string;
  responseId: string;
  deleted: boolean;
  /** The content version its event carries (`metadata.compatVersion`), to tell a resend from a change. */
  version?: string | null;
}

/**
 * The current events of these ids (absent ids are left out).
 *
 * @example
 * await currentFeedbackIds(db, ws, 'langfuse', ['score-1']) // Map { 'score-1' => { eventId, responseId, deleted } }
 */
export async function currentFeedbackIds(db: SqlExecutor, workspaceId: string, protocol: string, ids: readonly string[]): Promise<Map<string, CompatFeedbackId>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<{ external_id: string; event_id: string; response_id: string; deleted: boolean; version: string | null }>(
    `SELECT c.external_id, c.event_id, c.response_id, c.deleted_at IS NOT NULL AS deleted, e.metadata->>'compatVersion' AS version
       FROM compat_feedback_ids c LEFT JOIN feedback_events e ON e.workspace_id = c.workspace_id AND e.id = c.event_id
      WHERE c.workspace_id = $1 AND c.protocol = $2 AND c.external_id = ANY($3::text[])`,
    [workspaceId, protocol, [...new Set(ids)]],
  );
  return new Map(
    rows.map((r) => [r.external_id, { externalId: r.external_id, eventId: r.event_id, responseId: r.response_id, deleted: r.deleted, version: r.version }]),
  );
}

/**
 * Records (or moves) each id to its current event; a recorded id is no longer deleted.
 *
 * @example
 * await recordFeedbackIds(db, ws, 'langfuse', [{ externalId: 'score-1', eventId: 'lf-…', responseId: 't1' }])
 */
export async function recordFeedbackIds(db: SqlExecutor, workspaceId: string, protocol: string, rows: ReadonlyArray<Omit<CompatFeedbackId, 'deleted' | 'version'>>): Promise<void> {
  if (rows.length === 0) return;
  // One row per id (the last wins), in key order so concurrent writers lock alike.
  const byId = new Map(rows.map((r) => [r.externalId, r]));
  const sorted = [...byId.values()].sort((a, b) => (a.externalId < b.externalId ? -1 : a.externalId > b.externalId ? 1 : 0));
  await db.query(
    `INSERT INTO compat_feedback_ids AS c (workspace_id, protocol, external_id, event_id, response_id)
     SELECT $1, $2, x.external_id, x.event_id, x.response_id FROM json_to_recordset($3::json) AS x(external_id text, event_id text, response_id text)
     ON CONFLICT (workspace_id, protocol, external_id) DO UPDATE
       SET event_id = excluded.event_id, response_id = excluded.response_id, deleted_at = NULL, updated_at = now()`,
    [workspaceId, protocol, JSON.stringify(sorted.map((r) => ({ external_id: r.externalId, event_id: r.eventId, response_id: r.responseId })))],
  );
}

/**
 * Marks an id deleted (its event retracted); returns whether it was live.
 *
 * @example
 * await markFeedbackIdDeleted(db, ws, 'langfuse', 'score-1') // true, then false
 */
export async function markFeedbackIdDeleted(db: SqlExecutor, workspaceId: string, protocol: string, externalId: string): Promise<boolean> {
  const rows = await db.query(
    `UPDATE compat_feedback_ids SET deleted_at = now(), updated_at = now()
      WHERE workspace_id = $1 AND protocol = $2 AND external_id = $3 AND deleted_at IS NULL RETURNING 1`,
    [workspaceId, protocol, externalId],
  );
  return rows.length > 0;
}

/** The current event of a feedback id, as stored. */
export interface CompatFeedbackEvent {
  externalId: string;
  deleted: boolean;
  updatedAt: Date;
  event: { id: string; responseId: string; type: string; sessionId: string | null; payload: Record<string, unknown>; metadata: Record<string, unknown>; occurredAt: Date; receivedAt: Date };
}

/**
 * The event that holds a feedback id's current value, or `undefined` (unknown id, or its event
 * removed by retention or erasure).
 *
 * @example
 * await feedbackIdEvent(db, ws, 'langfuse', 'score-1') // { externalId, deleted, updatedAt, event }
 */
export async function feedbackIdEvent(db: SqlExecutor, workspaceId: string, protocol: string, externalId: string): Promise<CompatFeedbackEvent | undefined> {
  const [r] = await db.query<{
    deleted: boolean;
    updated_at: Date;
    id: string;
    response_id: string;
    type: string;
    session_id: string | null;
    payload: Record<string, unknown>;
    metadata: Record<string, unknown>;
    occurred_at: Date;
    received_at: Date;
  }>(
    `SELECT c.deleted_at IS NOT NULL AS deleted, c.updated_at, e.id, e.response_id, e.type, e.session_id, e.payload, e.metadata, e.occurred_at, e.received_at
       FROM compat_feedback_ids c JOIN feedback_events e ON e.workspace_id = c.workspace_id AND e.id = c.event_id
      WHERE c.workspace_id = $1 AND c.protocol = $2 AND c.external_id = $3`,
    [workspaceId, protocol, externalId],
  );
  if (!r) return undefined;
  return {
    externalId,
    deleted: r.deleted,
    updatedAt: r.updated_at,
    event: { id: r.id, responseId: r.response_id, type: r.type, sessionId: r.session_id, payload: r.payload, metadata: r.metadata, occurredAt: r.occurred_at, receivedAt: r.received_at },
  };
}
