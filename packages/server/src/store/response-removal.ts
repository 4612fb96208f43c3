/**
 * Removes registered responses from the hot tables with every row that hangs off them: the
 * experiments' facts (taken out of their variants' sums first), scores, the response list's tags,
 * rescore marks and any vote or signal row left. Retention calls it for responses whose events
 * are all gone (issue 24, ADR-016); the caller archives them first.
 */
import type { SqlExecutor } from '../db/sql-client.js';
import { removeExperimentFacts } from './experiment-upkeep.js';

/**
 * Deletes those of the responses `ids` of a workspace that still have no event, and what hangs
 * off them, in the caller's transaction. Returns the ids that went.
 *
 * Retention reads its orphans, writes their archive, and only then deletes: feedback that came
 * for one of them meanwhile (its first event, moments after an import registered it) keeps it,
 * with its event's signal and vote. Deleting it anyway failed that acknowledged event in
 * processing (`FEEDLOOP_ERR_RESPONSE_NOT_FOUND`).
 *
 * @example
 * await db.transaction((tx) => deleteOrphanResponses(tx, 'ws_1', ['r-1', 'r-2'])) // ['r-1', 'r-2']
 */
export async function deleteOrphanResponses(tx: SqlExecutor, workspaceId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const orphans = await tx.query<{ id: string }>(
    `SELECT r.id FROM responses r
      WHERE r.workspace_id = $1 AND r.id = ANY ($2::text[])
        AND NOT EXISTS (SELECT 1 FROM feedback_events e WHERE e.workspace_id = r.workspace_id AND e.response_id = r.id)
      ORDER BY r.id FOR UPDATE OF r`,
    [workspaceId, [...ids]],
  );
  if (orphans.length === 0) return [];
  const orphanIds = orphans.map((r) => r.id);
  const p = [workspaceId, orphanIds];
  // Experiments first: the responses leave their variants' sums, as an erasure's do.
  await removeExperimentFacts(tx, workspaceId, orphanIds);
  await tx.query('DELETE FROM score_dirty WHERE workspace_id = $1 AND response_id = ANY ($2::text[])', p);
  await tx.query('DELETE FROM response_scores WHERE workspace_id = $1 AND response_id = ANY ($2::text[])', p);
  await tx.query('DELETE FROM response_list_tags WHERE workspace_id = $1 AND response_id = ANY ($2::text[])', p);
  await tx.query('DELETE FROM feedback_current_votes WHERE workspace_id = $1 AND response_id = ANY ($2::text[])', p);
  await tx.query('DELETE FROM feedback_signals WHERE workspace_id = $1 AND response_id = ANY ($2::text[])', p);
  const gone = await tx.query<{ id: string }>('DELETE FROM responses WHERE workspace_id = $1 AND id = ANY ($2::text[]) RETURNING id', p);
  return gone.map((r) => r.id);
}
