/**
 * Evaluators in SQL (issue 28; docs/evaluators.md): the CRUD behind `/v1/evaluators`. A row is
 * soft-deleted so its calls and its judge events stay readable; its secret is stored as given,
 * as a webhook's is, because every call is signed with it.
 */
import { versionChanges, type EvaluatorKind, type EvaluatorOutput } from '@feedloop/core';
import { v7 as uuidv7 } from 'uuid';
import type { SqlExecutor } from '../db/sql-client.js';

/** Evaluator ids: `ev_` and a uuid v7 without dashes (they sort by creation). */
export const EVALUATOR_ID_PREFIX = 'ev_';

/** An evaluator as the API shows it: its settable fields and state, never its secret. */
export interface EvaluatorInfo extends EvaluatorFields {
  id: string;
  /** Bumped by a change of url, kind, output, scoreConfigId or filter: an item is judged once per version. */
  version: number;
  /** The weight rule's state: the factor its events weigh with (0 or 0.3 × human), from kappa and n over the last 30 days. */
  weight: { factor: number; kappa: number | null; n: number; checkedAt: Date | null };
  createdAt: Date;
  updatedAt: Date;
}

/** An evaluator with its secret: what the dispatcher signs with. */
export interface EvaluatorWithSecret extends EvaluatorInfo {
  workspaceId: string;
  secret: string;
  /** Pairwise: the review items up to this id were considered for new calls. */
  pairwiseCursor: string;
}

/** The settable fields of an evaluator. */
export interface EvaluatorFields {
  name: string;
  url: string;
  kind: EvaluatorKind;
  output: EvaluatorOutput;
  scoreConfigId: string | null;
  sample: number;
  filter: Record<string, unknown>;
  timeoutMs: number;
  ratePerMinute: number;
  enabled: boolean;
}

interface EvaluatorRow {
  id: string;
  workspace_id: string;
  name: string;
  url: string;
  secret: string;
  kind: EvaluatorKind;
  output: EvaluatorOutput;
  score_config_id: string | null;
  sample: number;
  filter: Record<string, unknown>;
  timeout_ms: number;
  rate_per_minute: number;
  enabled: boolean;
  version: number;
  pairwise_cursor: string;
  weight_factor: number;
  weight_kappa: number | null;
  weight_n: number;
  weight_checked_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, workspace_id, name, url, secret, kind, output, score_config_id, sample, filter, timeout_ms, rate_per_minute, enabled,
  version, pairwise_cursor, weight_factor, weight_kappa, weight_n, weight_checked_at, created_at, updated_at`;

const toInfo = (r: EvaluatorRow): EvaluatorInfo => ({
  id: r.id,
  name: r.name,
  url: r.url,
  kind: r.kind,
  output: r.output,
  scoreConfigId: r.score_config_id,
  sample: r.sample,
  filter: r.filter,
  timeoutMs: r.timeout_ms,
  ratePerMinute: r.rate_per_minute,
  enabled: r.enabled,
  version: r.version,
  weight: { factor: r.weight_factor, kappa: r.weight_kappa, n: r.weight_n, checkedAt: r.weight_checked_at },
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toWithSecret = (r: EvaluatorRow): EvaluatorWithSecret => ({ ...toInfo(r), workspaceId: r.workspace_id, secret: r.secret, pairwiseCursor: r.pairwise_cursor });

/** The settable fields of an evaluator. */
export function fieldsOf(e: EvaluatorInfo): EvaluatorFields {
  const { name, url, kind, output, scoreConfigId, sample, filter, timeoutMs, ratePerMinute, enabled } = e;
  return { name, url, kind, output, scoreConfigId, sample, filter, timeoutMs, ratePerMinute, enabled };
}

/** Strips the secret and the dispatcher's bookkeeping off an evaluator. */
export function evaluatorInfo(e: EvaluatorWithSecret): EvaluatorInfo {
  const { workspaceId: _w, secret: _s, pairwiseCursor: _c, ...info } = e;
  return info;
}

/**
 * Creates an evaluator. A pairwise one starts after the newest pairwise item that exists now:
 * what existed before it is a backfill's to judge, not the dispatch's.
 *
 * @example
 * await createEvaluator(db, 'ws_1', { name: 'groundedness', url: 'https://judge.example/', kind: 'pointwise', output: 'thumbs', … }, 'whsec_…')
 */
export async function createEvaluator(db: SqlExecutor, workspaceId: string, fields: EvaluatorFields, secret: string): Promise<EvaluatorWithSecret> {
  const [row] = await db.query<EvaluatorRow>(
    `INSERT INTO evaluators (id, workspace_id, name, url, secret, kind, output, score_config_id, sample, filter, timeout_ms, rate_per_minute, enabled, pairwise_cursor)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12, $13,
             COALESCE((SELECT max(id) FROM review_items WHERE workspace_id = $2 AND response_b_id IS NOT NULL), ''))
     RETURNING ${COLUMNS}`,
    [
      EVALUATOR_ID_PREFIX + uuidv7().replaceAll('-', ''),
      workspaceId,
      fields.name,
      fields.url,
      secret,
      fields.kind,
      fields.output,
      fields.scoreConfigId,
      fields.sample,
      JSON.stringify(fields.filter),
      fields.timeoutMs,
      fields.ratePerMinute,
      fields.enabled,
    ],
  );
  if (!row) throw new Error('INSERT … RETURNING gave no row');
  return toWithSecret(row);
}

/**
 * The live evaluators of a workspace, oldest first.
 *
 * @example
 * await listEvaluators(db, 'ws_1') // [{ id: 'ev_…', name, … }]
 */
export async function listEvaluators(db: SqlExecutor, workspaceId: string): Promise<EvaluatorWithSecret[]> {
  const rows = await db.query<EvaluatorRow>(`SELECT ${COLUMNS} FROM evaluators WHERE workspace_id = $1 AND deleted_at IS NULL ORDER BY id`, [workspaceId]);
  return rows.map(toWithSecret);
}

/**
 * The enabled live evaluators of the given workspaces (the dispatch's look-up; one indexed probe).
 *
 * @example
 * await enabledEvaluatorsIn(db, ['ws_1']) // [{ id: 'ev_…', kind: 'pointwise', … }]
 */
export async function enabledEvaluatorsIn(db: SqlExecutor, workspaceIds: readonly string[]): Promise<EvaluatorWithSecret[]> {
  if (workspaceIds.length === 0) return [];
  const rows = await db.query<EvaluatorRow>(
    `SELECT ${COLUMNS} FROM evaluators WHERE workspace_id = ANY($1::text[]) AND deleted_at IS NULL AND enabled ORDER BY id`,
    [[...workspaceIds]],
  );
  return rows.map(toWithSecret);
}

/**
 * Every enabled live pairwise evaluator (the scheduled tick looks for new pairwise items for them).
 *
 * @example
 * await enabledPairwiseEvaluators(db) // [{ id: 'ev_…', kind: 'pairwise', pairwiseCursor: 'ri_…' }]
 */
export async function enabledPairwiseEvaluators(db: SqlExecutor): Promise<EvaluatorWithSecret[]> {
  const rows = await db.query<EvaluatorRow>(`SELECT ${COLUMNS} FROM evaluators WHERE kind = 'pairwise' AND deleted_at IS NULL AND enabled ORDER BY id`);
  return rows.map(toWithSecret);
}

/**
 * One live evaluator of a workspace; `undefined` when unknown, deleted, or another workspace's.
 *
 * @example
 * await findEvaluator(db, 'ws_1', 'ev_0190…')
 */
export async function findEvaluator(db: SqlExecutor, workspaceId: string, id: string): Promise<EvaluatorWithSecret | undefined> {
  const [row] = await db.query<EvaluatorRow>(`SELECT ${COLUMNS} FROM evaluators WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL`, [workspaceId, id]);
  return row ? toWithSecret(row) : undefined;
}

/**
 * Changes an evaluator's settings (and its secret, when given); the version goes up when the
 * change is one that changes answers (core's `versionChanges`). `undefined` when there is no such
 * live evaluator. Call it in a transaction: the read locks the row, so two concurrent patches bump once each.
 *
 * @example
 * await updateEvaluator(db, 'ws_1', 'ev_…', (current) => ({ ...current, url: 'https://judge.example/v2' }))
 */
export async function updateEvaluator(
  db: SqlExecutor,
  workspaceId: string,
  id: string,
  change: (current: EvaluatorFields) => EvaluatorFields,
  secret?: string,
): Promise<EvaluatorWithSecret | undefined> {
  const [current] = await db.query<EvaluatorRow>(`SELECT ${COLUMNS} FROM evaluators WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE`, [workspaceId, id]);
  if (!current) return undefined;
  const before = toInfo(current);
  const next = change(fieldsOf(before));
  const bump = versionChanges(before, next) ? 1 : 0;
  const [row] = await db.query<EvaluatorRow>(
    `UPDATE evaluators SET name = $3, url = $4, kind = $5, output = $6, score_config_id = $7, sample = $8, filter = $9::jsonb, timeout_ms = $10,
            rate_per_minute = $11, enabled = $12, version = version + $13, secret = COALESCE($14, secret), updated_at = now()
      WHERE workspace_id = $1 AND id = $2
     RETURNING ${COLUMNS}`,
    [
      workspaceId,
      id,
      next.name,
      next.url,
      next.kind,
      next.output,
      next.scoreConfigId,
      next.sample,
      JSON.stringify(next.filter),
      next.timeoutMs,
      next.ratePerMinute,
      next.enabled,
      bump,
      secret ?? null,
    ],
  );
  return row ? toWithSecret(row) : undefined;
}

/**
 * Deletes an evaluator: it makes no new calls, and its pending calls are dead-lettered in the same
 * statement. The row, its calls and its events are kept. False when there was no such live evaluator.
 *
 * @example
 * await deleteEvaluator(db, 'ws_1', 'ev_…') // true
 */
export async function deleteEvaluator(db: SqlExecutor, workspaceId: string, id: string): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    `WITH gone AS (
       UPDATE evaluators SET deleted_at = now(), enabled = false WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING id
     ), unsent AS (
       UPDATE evaluator_calls c SET status = 'dead', last_error = 'evaluator_deleted', lease_until = NULL
         FROM gone WHERE c.evaluator_id = gone.id AND c.status = 'pending'
     )
     SELECT id FROM gone`,
    [workspaceId, id],
  );
  return rows.length > 0;
}

/**
 * Moves a pairwise evaluator's cursor forward (never back: a concurrent tick may have moved it further).
 *
 * @example
 * await advancePairwiseCursor(db, 'ev_…', 'ri_0190…')
 */
export async function advancePairwiseCursor(db: SqlExecutor, id: string, cursor: string): Promise<void> {
  await db.query('UPDATE evaluators SET pairwise_cursor = $2 WHERE id = $1 AND pairwise_cursor < $2', [id, cursor]);
}

/**
 * Live evaluators whose weight was last checked before `checkedBefore` (or never), oldest check first.
 *
 * @example
 * await evaluatorsDueForWeight(db, new Date(Date.now() - 3_600_000), 20)
 */
export async function evaluatorsDueForWeight(db: SqlExecutor, checkedBefore: Date, limit: number): Promise<EvaluatorWithSecret[]> {
  const rows = await db.query<EvaluatorRow>(
    `SELECT ${COLUMNS} FROM evaluators WHERE deleted_at IS NULL AND (weight_checked_at IS NULL OR weight_checked_at < $1)
      ORDER BY weight_checked_at NULLS FIRST, id LIMIT $2`,
    [checkedBefore, limit],
  );
  return rows.map(toWithSecret);
}

/**
 * Records an evaluator's weight check; answers the factor it had before.
 *
 * @example
 * await recordJudgeWeight(db, 'ev_…', { factor: 0.3, kappa: 0.71, n: 84, checkedAt: now }) // 0
 */
export async function recordJudgeWeight(db: SqlExecutor, id: string, weight: { factor: number; kappa: number | null; n: number; checkedAt: Date }): Promise<number> {
  // The check's own instant (not the transaction's): it is the end of the window kappa and n are over.
  const [row] = await db.query<{ before: number }>(
    `UPDATE evaluators e SET weight_factor = $2, weight_kappa = $3, weight_n = $4, weight_checked_at = $5
       FROM (SELECT id, weight_factor AS before FROM evaluators WHERE id = $1 FOR UPDATE) old
      WHERE e.id = old.id
     RETURNING old.before`,
    [id, weight.factor, weight.kappa, weight.n, weight.checkedAt],
  );
  return row?.before ?? 0;
}
