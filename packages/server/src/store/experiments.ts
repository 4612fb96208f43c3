/**
 * Declared experiments (the `experiments` table) and the experiment tags of responses.
 */
import type { ExperimentDefinition, ExperimentMetric } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';

/** A declared experiment as stored. */
export interface StoredExperiment {
  id: string;
  definition: ExperimentDefinition;
  createdAt: string;
  updatedAt: string;
}

interface ExperimentRow {
  id: string;
  control: string;
  weights: Record<string, number> | null;
  metric: ExperimentMetric;
  min_sample: number;
  created_at: Date;
  updated_at: Date;
}

function toStored(r: ExperimentRow): StoredExperiment {
  const definition: ExperimentDefinition = { control: r.control, metric: r.metric, minSample: r.min_sample };
  if (r.weights !== null) definition.weights = r.weights;
  return { id: r.id, definition, createdAt: r.created_at.toISOString(), updatedAt: r.updated_at.toISOString() };
}

/**
 * Declares or redeclares an experiment of a workspace.
 *
 * @example
 * await putExperiment(db, ws, 'exp-1', { control: 'A', metric: 'satisfaction', minSample: 100 })
 */
export async function putExperiment(db: SqlExecutor, workspaceId: string, id: string, definition: ExperimentDefinition): Promise<StoredExperiment> {
  const [row] = await db.query<ExperimentRow>(
    `INSERT INTO experiments (workspace_id, id, control, weights, metric, min_sample)
     VALUES ($1, $2, $3, $4::jsonb, $5, $6)
     ON CONFLICT (workspace_id, id) DO UPDATE
       SET control = EXCLUDED.control, weights = EXCLUDED.weights, metric = EXCLUDED.metric,
           min_sample = EXCLUDED.min_sample, updated_at = now()
     RETURNING id, control, weights, metric, min_sample, created_at, updated_at`,
    [workspaceId, id, definition.control, definition.weights === undefined ? null : JSON.stringify(definition.weights), definition.metric, definition.minSample],
  );
  if (!row) throw new Error('the experiment upsert returned no row');
  return toStored(row);
}

/**
 * The declared experiments of a workspace, or the one named.
 *
 * @example
 * await listDeclaredExperiments(db, ws) // [{ id: 'exp-1', definition: {...}, ... }]
 */
export async function listDeclaredExperiments(db: SqlExecutor, workspaceId: string, id?: string): Promise<StoredExperiment[]> {
  const rows = await db.query<ExperimentRow>(
    `SELECT id, control, weights, metric, min_sample, created_at, updated_at FROM experiments
      WHERE workspace_id = $1 AND ($2::text IS NULL OR id = $2) ORDER BY id`,
    [workspaceId, id ?? null],
  );
  return rows.map(toStored);
}

/**
 * Tags a response with an experiment and variant when it carries neither (a Phase 4.1
 * FeedbackEntry names them; the registration may not have). A response already tagged keeps its
 * tags: the registration is the source of truth. A tagged response is marked for the rescore,
 * which adds its feedback to its variant's totals, and its registration day and the days of its
 * feedback are marked for the rollup, whose variant slices it now belongs to.
 *
 * @returns whether the response was tagged.
 * @example
 * await tagResponseExperiment(db, ws, 'q1', { experimentId: 'exp-1', variant: 'B' }) // true
 */
export async function tagResponseExperiment(
  db: SqlExecutor,
  workspaceId: string,
  responseId: string,
  tags: { experimentId?: string | undefined; variant?: string | undefined },
): Promise<boolean> {
  if (tags.experimentId === undefined && tags.variant === undefined) return false;
  const rows = await db.query<{ response_id: string }>(
    `WITH tagged AS (
       UPDATE responses SET experiment_id = $3, variant = $4
        WHERE workspace_id = $1 AND id = $2 AND experiment_id IS NULL AND variant IS NULL
        RETURNING workspace_id, id)
     , rescore AS (
       INSERT INTO score_dirty AS d (workspace_id, response_id) SELECT workspace_id, id FROM tagged
       ON CONFLICT (workspace_id, response_id) DO UPDATE SET version = d.version + 1
       RETURNING response_id),
     days AS (
       SELECT t.workspace_id, (r.created_at AT TIME ZONE 'UTC')::date AS day FROM tagged t
         JOIN responses r ON r.workspace_id = t.workspace_id AND r.id = t.id
       UNION
       SELECT s.workspace_id, (s.occurred_at AT TIME ZONE 'UTC')::date FROM tagged t
         JOIN feedback_signals s ON s.workspace_id = t.workspace_id AND s.response_id = t.id AND s.status = 'counted'),
     rollup AS (
       INSERT INTO rollup_dirty AS d (workspace_id, day) SELECT workspace_id, day FROM days ORDER BY workspace_id, day
       ON CONFLICT (workspace_id, day) DO UPDATE SET version = d.version + 1
       RETURNING 1)
     SELECT response_id FROM rescore`,
    [workspaceId, responseId, tags.experimentId ?? null, tags.variant ?? null],
  );
  return rows.length > 0;
}
