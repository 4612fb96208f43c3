/**
 * Composite scores' tables: `score_dirty`, the marks processing leaves on the responses to
 * rescore (a version bumped on each, so a rescore deletes only marks unchanged since it read
 * them), and `response_scores`. The rescore's loop and arithmetic are pipeline/rescore.ts.
 */
import type { ScoreDataType } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';

/** A response marked for rescoring, with its mark's version when read. */
export interface ScoreMark {
  ws: string;
  rid: string;
  version: number;
}

/** One signal of a claimed response as the JSON document carries it (`event_id` null: the response has none). */
export interface ScoreInputRow {
  claimed_ws: string;
  claimed_rid: string;
  event_id: string | null;
  type: string;
  user_id: string | null;
  signal_class: string;
  polarity: string;
  value: number;
  occurred_at: string;
  edit_distance: number | null;
  verified: boolean | null;
  /** The event's source, and a judge's evaluator (`metadata.evaluatorId`). */
  source?: string | null;
  evaluator_id?: string | null;
  /** A judge's evaluator's current weight factor (evaluators.weight_factor); null for other events. */
  judge_factor?: number | null;
  /** The weight processing stored (a judge's is set again when its evaluator's factor changed) and the sample weight it includes. */
  weight?: number | null;
  sample_weight?: number | null;
  /** A `score` event's numeric value, and its config of that name (null: none); issue 26 §1. */
  score_value?: number | null;
  score_config?: { weight: number; dataType: ScoreDataType; min: number | null; max: number | null; categories: Array<{ value: number; label: string }> | null } | null;
}

/** A response's composite score as written (core's `compositeScore` with its keys). */
export interface ScoreRow {
  ws: string;
  rid: string;
  score: number | null;
  confidence: number;
  weightSum: number;
  signalCount: number;
  conflicts: unknown;
}

/**
 * Marks responses to rescore, bumping the version of a mark already there (the rescore then
 * knows it changed under it). A response named twice (a batch that counts new events and reverses
 * retracted ones of it) is marked once: an upsert may not touch a row twice.
 *
 * @example
 * await markResponsesDirty(tx, [{ workspaceId: 'ws_1', responseId: 'r-1' }]);
 */
export async function markResponsesDirty(tx: SqlExecutor, responses: ReadonlyArray<{ workspaceId: string; responseId: string }>): Promise<void> {
  if (responses.length === 0) return;
  await tx.query(
    `INSERT INTO score_dirty AS d (workspace_id, response_id)
     SELECT DISTINCT ws, rid FROM json_to_recordset($1::json) AS x(ws text, rid text) ORDER BY ws, rid
     ON CONFLICT (workspace_id, response_id) DO UPDATE SET version = d.version + 1`,
    [JSON.stringify(responses.map((r) => ({ ws: r.workspaceId, rid: r.responseId })))],
    { prepare: true },
  );
}

/** Up to `limit` marks, read without locking them. */
export function readScoreMarks(tx: SqlExecutor, limit: number): Promise<ScoreMark[]> {
  return tx.query<ScoreMark>('SELECT workspace_id AS ws, response_id AS rid, version FROM score_dirty LIMIT $1', [limit], { prepare: true });
}

/**
 * The marked responses' counted, current signals (a row with `event_id` null for a response that
 * has none left) and their workspaces' stored settings, as one JSON document: PGlite decodes each
 * row's columns slowly (see claimed-events.ts).
 */
export async function readScoreInputs(tx: SqlExecutor, marks: readonly ScoreMark[]): Promise<{ rows: ScoreInputRow[]; settings: Record<string, unknown> }> {
  const [doc] = await tx.query<{ signals: string | null; settings: string | null }>(
    `WITH claimed AS (SELECT ws AS workspace_id, rid AS response_id FROM json_to_recordset($1::json) AS x(ws text, rid text)),
     found AS (
       SELECT c.workspace_id AS claimed_ws, c.response_id AS claimed_rid, s.event_id, s.type,
              s.user_id, s.signal_class, s.polarity, s.value, s.occurred_at, s.edit_distance, s.verified, s.score_value, s.score_config,
              s.source, s.evaluator_id, s.judge_factor, s.weight, s.sample_weight
         FROM claimed c
         JOIN workspaces w ON w.id = c.workspace_id
         LEFT JOIN LATERAL (
           SELECT s.*, e.edit_distance, e.verified, e.source, e.metadata->>'evaluatorId' AS evaluator_id, ev.weight_factor AS judge_factor,
                  CASE WHEN s.type = 'score' THEN (e.payload->>'value')::float8 END AS score_value,
                  CASE WHEN cfg.id IS NOT NULL THEN json_build_object('weight', cfg.weight, 'dataType', cfg.data_type, 'min', cfg.min, 'max', cfg.max,
                                                                      'categories', cfg.categories) END AS score_config
             FROM feedback_signals s
             JOIN feedback_event_ids k ON k.workspace_id = s.workspace_id AND k.id = s.event_id
             JOIN feedback_events e ON e.workspace_id = k.workspace_id AND e.seq = k.seq AND e.received_at = k.received_at
                                   AND e.superseded_by IS NULL AND e.retracted_at IS NULL
             LEFT JOIN evaluators ev ON e.source = 'judge' AND ev.workspace_id = e.workspace_id AND ev.id = e.metadata->>'evaluatorId'
             LEFT JOIN score_configs cfg ON s.type = 'score' AND cfg.workspace_id = e.workspace_id AND cfg.name = e.payload->>'name'
            WHERE s.workspace_id = c.workspace_id AND s.response_id = c.response_id AND s.status = 'counted' OFFSET 0) AS s ON true)
     SELECT (SELECT json_agg(f) FROM found f)::text AS signals,
            (SELECT json_object_agg(w.id, w.settings) FROM workspaces w WHERE w.id IN (SELECT claimed_ws FROM found))::text AS settings`,
    [JSON.stringify(marks)],
    { prepare: true },
  );
  return { rows: JSON.parse(doc?.signals ?? '[]') as ScoreInputRow[], settings: JSON.parse(doc?.settings ?? '{}') as Record<string, unknown> };
}

/** Upserts responses' scores, computed at `now`. */
export async function writeScores(tx: SqlExecutor, scores: readonly ScoreRow[], now: Date): Promise<void> {
  await tx.query(
    `INSERT INTO response_scores AS r (workspace_id, response_id, score, confidence, weight_sum, signal_count, conflicts, computed_at)
     SELECT ws, rid, score, confidence, "weightSum", "signalCount", conflicts, $2::timestamptz
       FROM json_to_recordset($1::json) AS x(ws text, rid text, score double precision, confidence double precision, "weightSum" double precision, "signalCount" int, conflicts jsonb)
     ON CONFLICT (workspace_id, response_id) DO UPDATE
       SET score = EXCLUDED.score, confidence = EXCLUDED.confidence, weight_sum = EXCLUDED.weight_sum,
           signal_count = EXCLUDED.signal_count, conflicts = EXCLUDED.conflicts, computed_at = EXCLUDED.computed_at`,
    [JSON.stringify(scores), now.toISOString()],
    { prepare: true },
  );
}

/**
 * Deletes the marks whose version is still the one read; a response marked again meanwhile stays
 * dirty. The marks are locked first in key order, the order processing's {@link markResponsesDirty}
 * takes them in: deleted in the plan's order, a rescore and a processing transaction deadlocked.
 */
export async function clearScoreMarks(tx: SqlExecutor, marks: readonly ScoreMark[]): Promise<void> {
  await tx.query(
    `SELECT 1 FROM score_dirty AS d JOIN json_to_recordset($1::json) AS x(ws text, rid text) ON d.workspace_id = x.ws AND d.response_id = x.rid
      ORDER BY d.workspace_id, d.response_id FOR UPDATE OF d`,
    [JSON.stringify(marks)],
    { prepare: true },
  );
  await tx.query(
    `DELETE FROM score_dirty AS d USING json_to_recordset($1::json) AS x(ws text, rid text, version bigint)
      WHERE d.workspace_id = x.ws AND d.response_id = x.rid AND d.version = x.version`,
    [JSON.stringify(marks)],
    { prepare: true },
  );
}
