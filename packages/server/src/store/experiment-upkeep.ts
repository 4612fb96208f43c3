/**
 * Keeps experiment_variant_totals equal to the sum of experiment_response_facts, inside the
 * rescore's transaction: each rescored response that carries an experiment and a variant gets
 * its new facts, and its variant's totals move by new − previous facts.
 *
 * Two rescores of one response may run at once (dirty marks are read without a lock), so the
 * previous facts are read `FOR UPDATE`, after a placeholder row (zero facts) is made for a
 * response seen for the first time: the second transaction waits for the first and then sees its
 * facts as the previous ones, and never counts a response twice. Rows are locked and written in
 * key order, as the rest of the pipeline does, so concurrent runs do not deadlock.
 */
import { addFacts, emptyFactTotals, NO_EXPERIMENT_FACTS, type FactTotals, type ExperimentFacts } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';

/** A rescored response and its new facts. */
export interface RescoredFacts {
  ws: string;
  rid: string;
  facts: ExperimentFacts;
}

interface FactsRow {
  ws: string;
  rid: string;
  experiment_id: string;
  variant: string;
  rated: boolean;
  positive: boolean;
  corrected: boolean;
  edits: number;
  edit_distance_sum: number;
  score: number | null;
}

/**
 * The batch is joined to the tables row by row (LATERAL, fenced with OFFSET 0), as the writer
 * does: json_to_recordset is always guessed at 100 rows, and a plain join may scan a whole table
 * per run (see ingest/feedback-writer.ts). Writes are upserts, probes by primary key.
 */
const PROBE = 'OFFSET 0';

const key = (...parts: string[]): string => parts.join('\u0000');
const byKey = <T extends { ws: string; rid: string }>(a: T, b: T): number => (a.ws === b.ws ? (a.rid < b.rid ? -1 : a.rid > b.rid ? 1 : 0) : a.ws < b.ws ? -1 : 1);

/**
 * Updates the facts and variant totals of the rescored responses that belong to an experiment.
 *
 * @example
 * await db.transaction((tx) => updateExperimentTotals(tx, [{ ws, rid: 'r1', facts }]));
 */
export async function updateExperimentTotals(tx: SqlExecutor, rescored: readonly RescoredFacts[]): Promise<void> {
  if (rescored.length === 0) return;
  const batch = JSON.stringify([...rescored].sort(byKey).map((r) => ({ ws: r.ws, rid: r.rid })));
  const tagged = await tx.query<{ ws: string; rid: string; experiment_id: string; variant: string }>(
    `SELECT x.ws, x.rid, r.experiment_id, r.variant
       FROM json_to_recordset($1::json) AS x(ws text, rid text)
       CROSS JOIN LATERAL (SELECT experiment_id, variant FROM responses
                            WHERE workspace_id = x.ws AND id = x.rid AND experiment_id IS NOT NULL AND variant IS NOT NULL ${PROBE}) AS r`,
    [batch],
  );
  if (tagged.length === 0) return;
  const taggedJson = JSON.stringify(tagged.sort(byKey));
  await tx.query(
    `INSERT INTO experiment_response_facts (workspace_id, response_id, experiment_id, variant, rated, positive, corrected, edits, edit_distance_sum)
     SELECT ws, rid, experiment_id, variant, false, false, false, 0, 0
       FROM json_to_recordset($1::json) AS x(ws text, rid text, experiment_id text, variant text)
     ON CONFLICT (workspace_id, response_id) DO NOTHING`,
    [taggedJson],
  );
  const previous = await tx.query<FactsRow>(
    `SELECT x.ws, x.rid, f.experiment_id, f.variant, f.rated, f.positive, f.corrected, f.edits, f.edit_distance_sum, f.score
       FROM json_to_recordset($1::json) AS x(ws text, rid text)
       CROSS JOIN LATERAL (SELECT * FROM experiment_response_facts
                            WHERE workspace_id = x.ws AND response_id = x.rid FOR UPDATE) AS f`,
    [taggedJson],
  );
  const newFacts = new Map(rescored.map((r) => [key(r.ws, r.rid), r.facts]));
  const deltas = new Map<string, { ws: string; experimentId: string; variant: string; totals: FactTotals }>();
  const deltaOf = (ws: string, experimentId: string, variant: string): FactTotals => {
    const k = key(ws, experimentId, variant);
    let d = deltas.get(k);
    if (!d) deltas.set(k, (d = { ws, experimentId, variant, totals: emptyFactTotals() }));
    return d.totals;
  };
  const written: Array<{ ws: string; rid: string; experiment_id: string; variant: string } & ExperimentFacts> = [];
  for (const old of previous) {
    const facts = newFacts.get(key(old.ws, old.rid)) ?? NO_EXPERIMENT_FACTS;
    const before: ExperimentFacts = {
      rated: old.rated,
      positive: old.positive,
      corrected: old.corrected,
      edits: old.edits,
      editDistanceSum: old.edit_distance_sum,
      score: old.score,
    };
    // A response's tags never change once set, so old and new facts belong to the same variant.
    addFacts(deltaOf(old.ws, old.experiment_id, old.variant), before, -1);
    addFacts(deltaOf(old.ws, old.experiment_id, old.variant), facts, 1);
    written.push({ ws: old.ws, rid: old.rid, experiment_id: old.experiment_id, variant: old.variant, ...facts });
  }
  await tx.query(
    `INSERT INTO experiment_response_facts (workspace_id, response_id, experiment_id, variant, rated, positive, corrected, edits,
                                            edit_distance_sum, score)
     SELECT ws, rid, experiment_id, variant, rated, positive, corrected, edits, "editDistanceSum", score
       FROM json_to_recordset($1::json) AS x(ws text, rid text, experiment_id text, variant text, rated boolean, positive boolean,
                                            corrected boolean, edits int, "editDistanceSum" double precision, score double precision)
     ON CONFLICT (workspace_id, response_id) DO UPDATE
       SET rated = EXCLUDED.rated, positive = EXCLUDED.positive, corrected = EXCLUDED.corrected, edits = EXCLUDED.edits,
           edit_distance_sum = EXCLUDED.edit_distance_sum, score = EXCLUDED.score`,
    [JSON.stringify(written)],
  );
  const rows = [...deltas.values()]
    .sort((a, b) => (key(a.ws, a.experimentId, a.variant) < key(b.ws, b.experimentId, b.variant) ? -1 : 1))
    .map((d) => ({ ws: d.ws, experimentId: d.experimentId, variant: d.variant, ...d.totals }));
  await tx.query(
    `INSERT INTO experiment_variant_totals AS t (workspace_id, experiment_id, variant, rated, positive, corrected, edits, edit_distance_sum,
                                                 scored, score_sum, score_sum_squares)
     SELECT ws, "experimentId", variant, rated, positive, corrected, edits, "editDistanceSum", scored, "scoreSum", "scoreSumSquares"
       FROM json_to_recordset($1::json) AS x(ws text, "experimentId" text, variant text, rated bigint, positive bigint, corrected bigint,
                                            edits bigint, "editDistanceSum" double precision, scored bigint, "scoreSum" double precision,
                                            "scoreSumSquares" double precision)
     ON CONFLICT (workspace_id, experiment_id, variant) DO UPDATE
       SET rated = t.rated + EXCLUDED.rated, positive = t.positive + EXCLUDED.positive, corrected = t.corrected + EXCLUDED.corrected,
           edits = t.edits + EXCLUDED.edits, edit_distance_sum = t.edit_distance_sum + EXCLUDED.edit_distance_sum,
           scored = t.scored + EXCLUDED.scored, score_sum = t.score_sum + EXCLUDED.score_sum,
           score_sum_squares = t.score_sum_squares + EXCLUDED.score_sum_squares`,
    [JSON.stringify(rows)],
  );
}

/**
 * Takes responses out of their experiments: their facts are subtracted from their variants'
 * totals, then deleted (retention and erasure remove responses this way).
 *
 * @returns how many fact rows went.
 * @example
 * await removeExperimentFacts(tx, 'ws_1', ['r-1', 'r-2']) // 2
 */
export async function removeExperimentFacts(tx: SqlExecutor, workspaceId: string, responseIds: readonly string[]): Promise<number> {
  const p = [workspaceId, [...responseIds]];
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
  const gone = await tx.query('DELETE FROM experiment_response_facts WHERE workspace_id = $1 AND response_id = ANY ($2::text[]) RETURNING 1', p);
  return gone.length;
}
