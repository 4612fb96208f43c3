/**
 * `pipeline_pending`, the outbox of committed events waiting for processing: the sweep's query
 * for events still unprocessed after the grace period (their job was lost, e.g. the queue was
 * down when ingest committed; taking them renews their age, a lease, so the next sweep does not
 * enqueue them again while their new job waits), and a workspace's backlog.
 */
import type { SqlExecutor } from '../db/sql-client.js';

/** A feedback event named by its workspace and id: how ingest hands committed events to processing. */
export type EventKey = [workspaceId: string, eventId: string];

/**
 * Takes up to `limit` events pending for longer than `graceMs`, oldest first.
 *
 * @example
 * const keys = await takeStalePending(db, 10_000, 50_000); // [['ws_1', '0190…'], …]
 */
export async function takeStalePending(db: SqlExecutor, graceMs: number, limit: number): Promise<EventKey[]> {
  const rows = await db.query<{ workspace_id: string; event_id: string }>(
    `UPDATE pipeline_pending AS p SET created_at = now()
       FROM (SELECT workspace_id, event_id FROM pipeline_pending
              WHERE created_at < now() - $1 * interval '1 millisecond'
              ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED) AS stale
      WHERE p.workspace_id = stale.workspace_id AND p.event_id = stale.event_id
      RETURNING p.workspace_id, p.event_id`,
    [graceMs, limit],
  );
  return rows.map((r) => [r.workspace_id, r.event_id]);
}

/**
 * Reads up to `limit` events pending for longer than `graceMs`, oldest first, without taking them:
 * for a process that knows which events its own jobs hold (the embedded pipeline, one process on
 * PGlite), where that knowledge is the lease and renewing each row's age rewrote every row of a
 * backlog on every sweep.
 *
 * @example
 * const keys = await readStalePending(db, 10_000, 50_000); // [['ws_1', '0190…'], …]
 */
export async function readStalePending(db: SqlExecutor, graceMs: number, limit: number): Promise<EventKey[]> {
  // One JSON document, not a row per key: PGlite decodes each row's columns in JavaScript, and the
  // start-up read of a 50,000-event backlog took 380-880 ms as rows, 130-290 ms as one document.
  const [row] = await db.query<{ keys: string }>(
    `SELECT coalesce(json_agg(json_build_array(workspace_id, event_id) ORDER BY created_at), '[]')::text AS keys
       FROM (SELECT workspace_id, event_id, created_at FROM pipeline_pending
              WHERE created_at < now() - $1 * interval '1 millisecond' ORDER BY created_at LIMIT $2) AS stale`,
    [graceMs, limit],
  );
  return JSON.parse(row?.keys ?? '[]') as EventKey[];
}

/**
 * How many events of one workspace wait for processing, and how old the oldest is (ms). Scoped to
 * the workspace: a tenant's backlog tells how busy the others are.
 *
 * @example
 * await pendingBacklog(db, 'ws_1') // { pending: 3, oldestAgeMs: 120.5 }
 */
export async function pendingBacklog(db: SqlExecutor, workspaceId: string): Promise<{ pending: number; oldestAgeMs: number | null }> {
  const [row] = await db.query<{ n: number; oldest_ms: number | null }>(
    `SELECT count(*)::int AS n, (extract(epoch FROM now() - min(created_at)) * 1000)::float8 AS oldest_ms
       FROM pipeline_pending WHERE workspace_id = $1`,
    [workspaceId],
  );
  return { pending: row?.n ?? 0, oldestAgeMs: row?.oldest_ms ?? null };
}

/** What is left to do for a workspace: events to process, days to roll up, responses to rescore. */
export interface WorkspaceBacklog {
  pending: number;
  dirty: number;
  scores: number;
}

/**
 * How much of a workspace's work the pipeline has not done yet (the demo waits for all three to
 * reach zero).
 *
 * @example
 * await workspaceBacklog(db, 'ws_1') // { pending: 0, dirty: 2, scores: 14 }
 */
export async function workspaceBacklog(db: SqlExecutor, workspaceId: string): Promise<WorkspaceBacklog> {
  const [row] = await db.query<WorkspaceBacklog>(
    `SELECT (SELECT count(*) FROM pipeline_pending WHERE workspace_id = $1)::int AS pending,
            (SELECT count(*) FROM rollup_dirty WHERE workspace_id = $1)::int AS dirty,
            (SELECT count(*) FROM score_dirty WHERE workspace_id = $1)::int AS scores`,
    [workspaceId],
  );
  return row ?? { pending: 0, dirty: 0, scores: 0 };
}
