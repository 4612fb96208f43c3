/**
 * Removes registered responses from the hot tables with every row that hangs off them: the
 * experiments' facts (taken out of their variants' sums first), scores, the response list's tags,
 * rescore marks and any vote or signal row left. Retention calls it for responses whose events
 * are all gone (issue 24, ADR-016); the caller archives them first.
 */
import type { SqlExecutor } from '../db/sql-client.js';

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
  // Experiments: take the responses out of their variants' sums, then their facts (as an erasure does).
  await tx.query(
    `UPDATE experiment_variant_totals t
        SET rated = t.rated - f.rated, positive = t.positive - f.positive, corrected = t.corrected - f.corrected, edits = t.edits - f.edits,
            edit_distance_sum = t.edit_distance_sum - f.eds, scored = t.scored - f.scored, score_sum = t.score_sum - f.ss,
            score_sum_squares = t.score_sum_squares - f.ssq
       FROM (SELECT experiment_id, variant, count(*) FILTER (WHERE rated) AS rated, count(*) FILTER (WHERE positive) AS positive,
                    count(*) FILTER (WHERE corrected) AS corrected, sum(edits) AS edits, sum(edit_distance_sum) AS eds, count(score) AS scored,
                    COALESCE(sum(score), 0) AS ss, COALESCE(sum(score * score), 0) AS ssq
               FROM experiment_response_facts WHERE workspace_id = $1 AND response_id = ANY ($2::text[])
              GROUP BY experiment_id, variant) f
      WHERE t.workspace_id = $1 AND t.experiment_id = f.experiment_id AND t.variant = f.variant`,
    p,
  );
  await tx.query('DELETE FROM experiment_response_facts WHERE workspace_id = $1 AND response_id = ANY ($2::text[])', p);
  await tx.query('DELETE FROM score_dirty WHERE workspace_id = $1 AND response_id = ANY ($2::text[])', p);
  await tx.query('DELETE FROM response_scores WHERE workspace_id = $1 AND response_id = ANY ($2::text[])', p);
  await tx.query('DELETE FROM response_list_tags WHERE workspace_id = $1 AND response_id = ANY ($2::text[])', p);
  await tx.query('DELETE FROM feedback_current_votes WHERE workspace_id = $1 AND response_id = ANY ($2::text[])', p);
  await tx.query('DELETE FROM feedback_signals WHERE workspace_id = $1 AND response_id = ANY ($2::text[])', p);
  const gone = await tx.query<{ id: string }>('DELETE FROM responses WHERE workspace_id = $1 AND id = ANY ($2::text[]) RETURNING id', p);
  return gone.length;
}
