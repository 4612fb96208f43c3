/**
 * A poison event for tests: committed and pending like any other, but its response does not
 * exist, so the pipeline's stages throw on it and it is moved aside as `failed`.
 */
import type { SqlClient } from '../src/db/sql-client.js';

/** Commits event `id` on a response that does not exist, and leaves it pending for the pipeline. */
export async function insertPoisonEvent(db: SqlClient, workspaceId: string, id: string): Promise<void> {
  await db.query(
    `INSERT INTO feedback_events (workspace_id, id, response_id, type, source, payload, occurred_at, received_at)
     VALUES ($1, $2, 'no-such-response', 'thumbs_up', 'explicit', '{}', now(), now())`,
    [workspaceId, id],
  );
  await db.query(
    `INSERT INTO feedback_event_ids (workspace_id, id, received_at, seq)
     SELECT workspace_id, id, received_at, seq FROM feedback_events WHERE workspace_id = $1 AND id = $2`,
    [workspaceId, id],
  );
  await db.query(
    `INSERT INTO pipeline_pending (workspace_id, event_id, seq, received_at)
     SELECT workspace_id, id, seq, received_at FROM feedback_event_ids WHERE workspace_id = $1 AND id = $2`,
    [workspaceId, id],
  );
}

/** A stack frame (`at f (/x/y.ts:1:2)`, `at /x/y.js:1:2`) or a source path (`/src/`, `.ts:`) in a text. */
export const INTERNALS = /\bat \S+ \(.*:\d+:\d+\)|\bat \/\S+:\d+:\d+|\/src\/|\.ts:/;
