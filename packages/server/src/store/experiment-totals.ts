/**
 * The sufficient statistics of experiments per variant: the responses registered per variant,
 * counted from the index responses_experiment (an index-only scan of the experiment's entries),
 * beside the variant's totals that the pipeline keeps (experiment_variant_totals, see
 * store/experiment-upkeep.ts). Nothing here reads signals or events, so a read costs a count
 * and a few rows however much feedback the experiment has.
 */
import type { VariantTotals } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';

interface TotalsRow {
  experiment_id: string;
  variant: string;
  responses: string;
  rated: string | null;
  positive: string | null;
  corrected: string | null;
  edits: string | null;
  edit_distance_sum: number | null;
  scored: string | null;
  score_sum: number | null;
  score_sum_squares: number | null;
}

/**
 * Totals per experiment and variant of a workspace (one experiment when `experimentId` is given).
 * A response counts when it carries both an experiment and a variant; its feedback counts once
 * the pipeline has rescored it (moments after processing). Per response: rated when it has a
 * counted rating, positive when its positive ratings outnumber its negative ones, corrected when
 * it has a counted correction; edit distances are those of its corrections and edits; replaced
 * votes are left out, as in the rollup.
 *
 * @example
 * await experimentTotals(db, ws, 'exp-1') // Map { 'exp-1' => [{ variant: 'control', responses: 812, ... }] }
 */
export async function experimentTotals(db: SqlExecutor, workspaceId: string, experimentId?: string): Promise<Map<string, VariantTotals[]>> {
  const rows = await db.query<TotalsRow>(
    `SELECT c.experiment_id, c.variant, c.responses, t.rated, t.positive, t.corrected, t.edits, t.edit_distance_sum, t.scored,
            t.score_sum, t.score_sum_squares
       FROM (SELECT experiment_id, variant, count(*) AS responses FROM responses
              WHERE workspace_id = $1 AND experiment_id IS NOT NULL AND ($2::text IS NULL OR experiment_id = $2) AND variant IS NOT NULL
              GROUP BY experiment_id, variant) AS c
       LEFT JOIN experiment_variant_totals t ON t.workspace_id = $1 AND t.experiment_id = c.experiment_id AND t.variant = c.variant`,
    [workspaceId, experimentId ?? null],
  );
  const out = new Map<string, VariantTotals[]>();
  for (const r of rows) {
    const list = out.get(r.experiment_id) ?? [];
    list.push({
      variant: r.variant,
      responses: Number(r.responses),
      rated: Number(r.rated ?? 0),
      positive: Number(r.positive ?? 0),
      corrected: Number(r.corrected ?? 0),
      edits: Number(r.edits ?? 0),
      editDistanceSum: r.edit_distance_sum ?? 0,
      scored: Number(r.scored ?? 0),
      scoreSum: r.score_sum ?? 0,
      scoreSumSquares: r.score_sum_squares ?? 0,
    });
    out.set(r.experiment_id, list);
  }
  return out;
}
