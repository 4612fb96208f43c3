/**
 * Removes registered responses from the hot tables with every row that hangs off them: the
 * experiments' facts (taken out of their variants' sums first), scores, the response list's tags,
 * rescore marks and any vote or signal row left. Retention calls it for responses whose events
 * are all gone (issue 24, ADR-016); the caller archives them first.
 */
import type { SqlExecutor } from '../db/sql-client.js';
import { removeExperimentFacts } from './experiment-upkeep.js';

/**
 * Deletes the responses `ids` of a workspace and what hangs off them, in the caller's transaction.
 * Returns how many responses went.
 *
 * @example
 * await db.transaction((tx) => deleteResponses(tx, 'ws_1', ['r-1', 'r-2'])) // 2
 */
export async function deleteResponses(tx: SqlExecutor, workspaceId: string, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const p = [workspaceId, [...ids]];
  // Experiments first: the responses leave their variants' sums, as an erasure's do.
  await removeExperimentFacts(tx, workspaceId, ids);
  await tx.query('DELETE FROM score_dirty WHERE workspace_id = $1 AND response_id = ANY ($2::text[])', p);
  await tx.query('DELETE FROM response_scores WHERE workspace_id = $1 AND response_id = ANY ($2::text[])', p);
  await tx.query('DELETE FROM response_list_tags WHERE workspace_id = $1 AND response_id = ANY ($2::text[])', p);
  await tx.query('DELETE FROM feedback_current_votes WHERE workspace_id = $1 AND response_id = ANY ($2::text[])', p);
  await tx.query('DELETE FROM feedback_signals WHERE workspace_id = $1 AND response_id = ANY ($2::text[])', p);
  const gone = await tx.query<{ id: string }>('DELETE FROM responses WHERE workspace_id = $1 AND id = ANY ($2::text[]) RETURNING id', p);
  return gone.length;
}
