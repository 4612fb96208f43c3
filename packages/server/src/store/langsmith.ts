/**
 * The LangSmith drop-in's own tables (migration 0033): child runs' traces, and each LangSmith
 * feedback with the feedloop events that carry it now.
 */
import type { LangSmithFeedbackState } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';

/**
 * Records the trace of child runs (a run already recorded keeps its first trace).
 *
 * @example
 * await recordChildRuns(db, ws, [{ runId: 'llm-1', traceId: 'chain-1' }]);
 */
export async function recordChildRuns(db: SqlExecutor, workspaceId: string, runs: { runId: string; traceId: string }[]): Promise<void> {
  if (runs.length === 0) return;
  await db.query(
    `INSERT INTO langsmith_runs (workspace_id, run_id, trace_id)
     SELECT $1, r, t FROM unnest($2::text[], $3::text[]) AS x (r, t)
     ON CONFLICT (workspace_id, run_id) DO NOTHING`,
    [workspaceId, runs.map((r) => r.runId), runs.map((r) => r.traceId)],
  );
}

/**
 * The traces of runs recorded as child runs; a run not in the map is absent (a root run, or one
 * not seen yet).
 *
 * @example
 * await traceOfRuns(db, ws, ['llm-1', 'chain-1']) // Map { 'llm-1' => 'chain-1' }
 */
export async function traceOfRuns(db: SqlExecutor, workspaceId: string, runIds: string[]): Promise<Map<string, string>> {
  if (runIds.length === 0) return new Map();
  const rows = await db.query<{ run_id: string; trace_id: string }>(
    'SELECT run_id, trace_id FROM langsmith_runs WHERE workspace_id = $1 AND run_id = ANY ($2::text[])',
    [workspaceId, [...new Set(runIds)]],
  );
  return new Map(rows.map((r) => [r.run_id, r.trace_id]));
}

/**
 * The model of each response that exists among `ids` (null when it has none); a response not
 * stored yet is absent.
 *
 * @example
 * await modelsOfResponses(db, ws, ['chain-1']) // Map { 'chain-1' => null }
 */
export async function modelsOfResponses(db: SqlExecutor, workspaceId: string, ids: string[]): Promise<Map<string, string | null>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<{ id: string; model: string | null }>('SELECT id, model FROM responses WHERE workspace_id = $1 AND id = ANY ($2::text[])', [workspaceId, [...new Set(ids)]]);
  return new Map(rows.map((r) => [r.id, r.model]));
}

/** What creating a feedback needs to know first, read in one statement. */
export interface FeedbackContext {
  /** A feedback of this id is stored already (a retry). */
  stored: boolean;
  /** The response the run's feedback goes to: a child run's trace, else `fallbackTraceId`, else the run. */
  responseId: string;
  /** Whether that response exists. */
  responseExists: boolean;
}

/**
 * Reads, in one round trip, whether a feedback id is taken, the trace of its run (a recorded
 * child run's, else `fallbackTraceId`, else the run itself) and whether that response exists.
 *
 * @example
 * await feedbackContext(db, ws, feedbackId, 'llm-1') // { stored: false, responseId: 'chain-1', responseExists: true }
 */
export async function feedbackContext(db: SqlExecutor, workspaceId: string, feedbackId: string, runId: string, fallbackTraceId?: string | null): Promise<FeedbackContext> {
  const [row] = await db.query<{ stored: boolean; response_id: string; response_exists: boolean }>(
    `WITH target AS (
       SELECT COALESCE((SELECT trace_id FROM langsmith_runs WHERE workspace_id = $1 AND run_id = $3), $4, $3) AS id
     )
     SELECT EXISTS (SELECT 1 FROM langsmith_feedback WHERE workspace_id = $1 AND feedback_id = $2) AS stored,
            target.id AS response_id,
            EXISTS (SELECT 1 FROM responses WHERE workspace_id = $1 AND id = target.id) AS response_exists
       FROM target`,
    [workspaceId, feedbackId, runId, fallbackTraceId ?? null],
  );
  if (!row) throw new Error('the feedback context query returned no row');
  return { stored: row.stored, responseId: row.response_id, responseExists: row.response_exists };
}

/** A stored LangSmith feedback. */
export interface StoredLangSmithFeedback {
  feedbackId: string;
  runId: string;
  responseId: string;
  state: LangSmithFeedbackState;
  eventIds: string[];
  revision: number;
  createdAt: string;
  modifiedAt: string;
  deleted: boolean;
}

interface Row {
  feedback_id: string;
  run_id: string;
  response_id: string;
  state: LangSmithFeedbackState;
  event_ids: string[];
  revision: number;
  created_at: Date;
  modified_at: Date;
  deleted_at: Date | null;
}

const COLUMNS = 'feedback_id, run_id, response_id, state, event_ids, revision, created_at, modified_at, deleted_at';

function toFeedback(r: Row): StoredLangSmithFeedback {
  return {
    feedbackId: r.feedback_id,
    runId: r.run_id,
    responseId: r.response_id,
    state: r.state,
    eventIds: r.event_ids,
    revision: r.revision,
    createdAt: r.created_at.toISOString(),
    modifiedAt: r.modified_at.toISOString(),
    deleted: r.deleted_at !== null,
  };
}

/**
 * Stores a new feedback; false when its id is taken (a retry: the first one stands).
 *
 * @example
 * await insertLangSmithFeedback(db, ws, { feedbackId, runId, responseId, state, eventIds: [feedbackId] }) // true
 */
export async function insertLangSmithFeedback(
  db: SqlExecutor,
  workspaceId: string,
  f: Pick<StoredLangSmithFeedback, 'feedbackId' | 'runId' | 'responseId' | 'state' | 'eventIds'>,
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO langsmith_feedback (workspace_id, feedback_id, run_id, response_id, feedback_key, state, event_ids)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::text[])
     ON CONFLICT (workspace_id, feedback_id) DO NOTHING RETURNING 1`,
    [workspaceId, f.feedbackId, f.runId, f.responseId, f.state.key, JSON.stringify(f.state), f.eventIds],
  );
  return rows.length > 0;
}

/**
 * One feedback, deleted or not; undefined when there is none.
 *
 * @example
 * (await readLangSmithFeedback(db, ws, id))?.state.score // 1
 */
export async function readLangSmithFeedback(db: SqlExecutor, workspaceId: string, feedbackId: string): Promise<StoredLangSmithFeedback | undefined> {
  const [row] = await db.query<Row>(`SELECT ${COLUMNS} FROM langsmith_feedback WHERE workspace_id = $1 AND feedback_id = $2`, [workspaceId, feedbackId]);
  return row ? toFeedback(row) : undefined;
}

/**
 * Replaces a feedback's state and events with the next revision, if it is still at `revision`
 * and not deleted (two PATCHes at once: one wins, the other is told to retry). Returns whether it
 * was replaced.
 */
export async function reviseLangSmithFeedback(
  db: SqlExecutor,
  workspaceId: string,
  feedbackId: string,
  revision: number,
  next: { state: LangSmithFeedbackState; eventIds: string[] },
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE langsmith_feedback SET state = $4::jsonb, event_ids = $5::text[], revision = revision + 1, modified_at = now()
      WHERE workspace_id = $1 AND feedback_id = $2 AND revision = $3 AND deleted_at IS NULL RETURNING 1`,
    [workspaceId, feedbackId, revision, JSON.stringify(next.state), next.eventIds],
  );
  return rows.length > 0;
}

/** Marks a feedback deleted; false when it was deleted already (or is not there). */
export async function markLangSmithFeedbackDeleted(db: SqlExecutor, workspaceId: string, feedbackId: string): Promise<boolean> {
  const rows = await db.query(
    'UPDATE langsmith_feedback SET deleted_at = now(), modified_at = now() WHERE workspace_id = $1 AND feedback_id = $2 AND deleted_at IS NULL RETURNING 1',
    [workspaceId, feedbackId],
  );
  return rows.length > 0;
}

/** How `GET /langsmith/feedback` filters and pages. */
export interface LangSmithFeedbackQuery {
  runIds?: string[];
  keys?: string[];
  sourceTypes?: string[];
  limit: number;
  offset: number;
}

/**
 * The feedback not deleted, oldest first, filtered by run, key and source type.
 *
 * @example
 * await listLangSmithFeedback(db, ws, { runIds: [runId], limit: 100, offset: 0 })
 */
export async function listLangSmithFeedback(db: SqlExecutor, workspaceId: string, q: LangSmithFeedbackQuery): Promise<StoredLangSmithFeedback[]> {
  const rows = await db.query<Row>(
    `SELECT ${COLUMNS} FROM langsmith_feedback
      WHERE workspace_id = $1 AND deleted_at IS NULL
        AND ($2::text[] IS NULL OR run_id = ANY ($2::text[]))
        AND ($3::text[] IS NULL OR feedback_key = ANY ($3::text[]))
        AND ($4::text[] IS NULL OR state #>> '{feedback_source,type}' = ANY ($4::text[]))
      ORDER BY created_at, feedback_id LIMIT $5 OFFSET $6`,
    [workspaceId, q.runIds ?? null, q.keys ?? null, q.sourceTypes ?? null, q.limit, q.offset],
  );
  return rows.map(toFeedback);
}
