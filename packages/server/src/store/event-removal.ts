/**
 * Removes raw feedback events from the hot tables with every row that hangs off them (id keys,
 * fingerprints, current votes, signals, outbox rows), and recomputes the response list's tags of
 * the responses whose signals went. Retention calls it after archiving the events; the rollups
 * stay (the aggregates stay, the raw log goes).
 */
import type { SqlExecutor } from '../db/sql-client.js';
import { recomputeTags } from './response-list-tags.js';

/**
 * Deletes events (by workspace and id) and every row that hangs off them, in the caller's transaction.
 *
 * @example
 * await db.transaction((tx) => deleteEvents(tx, 'ws_1', ['0190…', '0191…']));
 */
export async function deleteEvents(tx: SqlExecutor, workspaceId: string, ids: readonly string[]): Promise<void> {
  const p = [workspaceId, [...ids]];
  await tx.query('DELETE FROM feedback_events WHERE workspace_id = $1 AND id = ANY ($2::text[])', p);
  await tx.query('DELETE FROM feedback_event_ids WHERE workspace_id = $1 AND id = ANY ($2::text[])', p);
  await tx.query('DELETE FROM feedback_fingerprints WHERE workspace_id = $1 AND event_id = ANY ($2::text[])', p);
  await tx.query('DELETE FROM feedback_current_votes WHERE workspace_id = $1 AND event_id = ANY ($2::text[])', p);
  const gone = await tx.query<{ response_id: string }>('DELETE FROM feedback_signals WHERE workspace_id = $1 AND event_id = ANY ($2::text[]) RETURNING response_id', p);
  await tx.query('DELETE FROM pipeline_pending WHERE workspace_id = $1 AND event_id = ANY ($2::text[])', p);
  await recomputeTags(tx, gone.map((g) => ({ workspaceId, responseId: g.response_id })));
}

/**
 * Postgres: drops one month's partition of `feedback_events` (`name`, holding events received in
 * [`from`, `to`)) with what hangs off its events, and the memory snapshots of its users (rebuilt
 * on their next read). `name` comes from {@link listEventPartitions}, never from a request.
 *
 * @example
 * await db.transaction((tx) => dropEventPartition(tx, 'feedback_events_2026_07', new Date('2026-07-01'), new Date('2026-08-01')));
 */
export async function dropEventPartition(tx: SqlExecutor, name: string, from: Date, to: Date): Promise<void> {
  const range = [from, to];
  const gone = await tx.query<{ workspace_id: string; response_id: string }>(
    `DELETE FROM feedback_signals s USING feedback_event_ids k WHERE k.workspace_id = s.workspace_id AND k.id = s.event_id AND k.received_at >= $1 AND k.received_at < $2
     RETURNING s.workspace_id, s.response_id`,
    range,
  );
  await recomputeTags(tx, gone.map((g) => ({ workspaceId: g.workspace_id, responseId: g.response_id })));
  await tx.query(`DELETE FROM feedback_fingerprints f USING feedback_event_ids k WHERE k.workspace_id = f.workspace_id AND k.id = f.event_id AND k.received_at >= $1 AND k.received_at < $2`, range);
  await tx.query(`DELETE FROM pipeline_pending p USING feedback_event_ids k WHERE k.workspace_id = p.workspace_id AND k.id = p.event_id AND k.received_at >= $1 AND k.received_at < $2`, range);
  await tx.query('DELETE FROM feedback_current_votes WHERE received_at >= $1 AND received_at < $2', range);
  await tx.query('DELETE FROM feedback_event_ids WHERE received_at >= $1 AND received_at < $2', range);
  await tx.query(
    `DELETE FROM user_memory_snapshots s USING (SELECT DISTINCT workspace_id, user_id FROM "${name}" WHERE user_id IS NOT NULL) d
      WHERE s.workspace_id = d.workspace_id AND s.user_id = d.user_id`,
  );
  await tx.exec(`DROP TABLE "${name}"`);
}
