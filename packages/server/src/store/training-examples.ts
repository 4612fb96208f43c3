/**
 * Training examples: a workspace's events that count, are verified for their user and are in no
 * batch of a kind yet (`training_applied_events`, migration 0017), claimed by the batch that takes
 * them, and the workspaces whose unused examples reached their threshold (pipeline/training-batch-maker.ts).
 */
import type { SqlExecutor } from '../db/sql-client.js';
import { TRAINING_BATCH_KINDS, type TrainingBatchKindName } from './training-batch-lines.js';

/** Events of a workspace that are examples (counted, neither a duplicate nor a replaced vote), as `e` with their signal `s`. */
const COUNTED_EVENTS = `feedback_events e
  JOIN feedback_signals s ON s.workspace_id = e.workspace_id AND s.event_id = e.id AND s.status = 'counted'`;
/**
 * Examples are events that count and are verified for their user (secret key, or a feedback token
 * naming them): a public key's feedback is anyone's, and a batch trains the next model (issue 22).
 */
const NOT_DUPLICATE = 'e.duplicate_of IS NULL AND e.superseded_by IS NULL AND e.retracted_at IS NULL AND e.verified';

/**
 * Claims up to `limit` unused examples of the kind for the batch `batchId`, oldest first, and
 * returns how many. Claims of one workspace and kind wait for each other (advisory lock for the transaction):
 * under Postgres's read committed, the claim's statement starts after the previous claim
 * committed and so never picks its events; `ON CONFLICT DO NOTHING` on the primary key is the
 * last word in any case. A corrections claim also sets `applied_to_training` (ADR-0012's column).
 *
 * @example
 * await db.transaction((tx) => claimTrainingExamples(tx, 'ws_1', 'kto', 'tb_0190…', 10_000)) // 312
 */
export async function claimTrainingExamples(tx: SqlExecutor, workspaceId: string, kindName: TrainingBatchKindName, batchId: string, limit: number): Promise<number> {
  const kind = TRAINING_BATCH_KINDS[kindName];
  await tx.query("SELECT pg_advisory_xact_lock(hashtext('feedloop.training'), hashtext($1 || '/' || $2))", [workspaceId, kindName]);
  const rows = await tx.query<{ event_id: string }>(
    `WITH picked AS (
       SELECT e.id, e.seq FROM ${COUNTED_EVENTS}
        WHERE e.workspace_id = $1 AND ${NOT_DUPLICATE} AND (${kind.examples})
          AND NOT EXISTS (SELECT 1 FROM training_applied_events a WHERE a.workspace_id = $1 AND a.kind = $2 AND a.event_id = e.id)
        ORDER BY e.seq LIMIT $4)
     INSERT INTO training_applied_events (workspace_id, kind, event_id, seq, batch_id)
     SELECT $1, $2, p.id, p.seq, $3 FROM picked p
     ON CONFLICT DO NOTHING
     RETURNING event_id`,
    [workspaceId, kindName, batchId, limit],
  );
  if (kindName === 'corrections' && rows.length > 0) {
    await tx.query(`UPDATE feedback_events SET applied_to_training = $3 WHERE workspace_id = $1 AND id = ANY ($2::text[]) AND applied_to_training IS NULL`, [
      workspaceId,
      rows.map((r) => r.event_id),
      batchId,
    ]);
  }
  return rows.length;
}

/** A workspace whose unused examples of a kind reached its threshold. */
export interface DueWorkspace {
  workspaceId: string;
  /** The workspace's threshold for the kind (its `trainingBatchThresholds`, else the default). */
  threshold: number;
}

/**
 * The workspaces with at least their threshold of unused examples of the kind (the workspace's
 * `trainingBatchThresholds[kind]`, else `defaultThreshold`): the scheduled job's candidates.
 *
 * @example
 * await workspacesDueForBatch(db, 'kto', 50) // [{ workspaceId: 'ws_1', threshold: 200 }]
 */
export async function workspacesDueForBatch(db: SqlExecutor, kind: TrainingBatchKindName, defaultThreshold: number): Promise<DueWorkspace[]> {
  const rows = await db.query<{ workspace_id: string; threshold: number }>(
    `WITH limits AS (
       SELECT w.id, CASE WHEN jsonb_typeof(w.settings->'trainingBatchThresholds'->$1::text) = 'number'
                         THEN (w.settings->'trainingBatchThresholds'->>$1::text)::numeric::int ELSE $2::int END AS threshold
         FROM workspaces w)
     SELECT e.workspace_id, l.threshold FROM ${COUNTED_EVENTS}
       JOIN limits l ON l.id = e.workspace_id
      WHERE ${NOT_DUPLICATE} AND (${TRAINING_BATCH_KINDS[kind].examples})
        AND NOT EXISTS (SELECT 1 FROM training_applied_events a WHERE a.workspace_id = e.workspace_id AND a.kind = $1::text AND a.event_id = e.id)
      GROUP BY e.workspace_id, l.threshold HAVING count(*) >= l.threshold`,
    [kind, defaultThreshold],
  );
  return rows.map((r) => ({ workspaceId: r.workspace_id, threshold: Number(r.threshold) }));
}
