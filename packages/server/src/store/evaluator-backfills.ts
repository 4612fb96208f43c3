/**
 * Evaluator backfills in SQL (issue 28): judge what already exists. A backfill walks its range a
 * page at a time in (created_at, id) order and stores its cursor and counts after each page, in
 * the transaction that queues the page's calls, so a restarted server resumes where it stopped
 * and no page is counted twice. Also the pairwise items a pairwise evaluator has not yet seen.
 */
import { v7 as uuidv7 } from 'uuid';
import type { SqlExecutor } from '../db/sql-client.js';
import type { EvaluatorCallStatus } from './evaluator-calls.js';

/** Backfill ids: `bf_` and a uuid v7 without dashes. */
export const BACKFILL_ID_PREFIX = 'bf_';

/** A backfill and how far it got. */
export interface BackfillInfo {
  id: string;
  evaluatorId: string;
  evaluatorVersion: number;
  since: Date;
  until: Date;
  limit: number;
  status: 'running' | 'done';
  /** Items walked so far. */
  considered: number;
  /** Calls it queued (items sampled out, filtered out or judged already under this version queue none). */
  queued: number;
  /** Its calls by status. */
  calls: Record<EvaluatorCallStatus, number>;
  createdAt: Date;
  finishedAt: Date | null;
}

/** A running backfill as the tick walks it. */
export interface RunningBackfill {
  id: string;
  workspaceId: string;
  evaluatorId: string;
  evaluatorVersion: number;
  since: Date;
  until: Date;
  maxItems: number;
  cursorAt: Date | null;
  cursorId: string | null;
  queued: number;
}

/** One item a backfill page walks: a response, or a pairwise review item with its two responses. */
export interface BackfillItem {
  itemKey: string;
  responseId: string;
  responseBId: string | null;
  createdAt: Date;
}

interface BackfillRow {
  id: string;
  workspace_id: string;
  evaluator_id: string;
  evaluator_version: number;
  since: Date;
  until: Date;
  max_items: number;
  cursor_at: Date | null;
  cursor_id: string | null;
  considered: number;
  queued: number;
  status: 'running' | 'done';
  created_at: Date;
  finished_at: Date | null;
  calls: Partial<Record<EvaluatorCallStatus, number>> | null;
}

const toInfo = (r: BackfillRow): BackfillInfo => ({
  id: r.id,
  evaluatorId: r.evaluator_id,
  evaluatorVersion: r.evaluator_version,
  since: r.since,
  until: r.until,
  limit: r.max_items,
  status: r.status,
  considered: r.considered,
  queued: r.queued,
  calls: { pending: r.calls?.pending ?? 0, done: r.calls?.done ?? 0, dead: r.calls?.dead ?? 0 },
  createdAt: r.created_at,
  finishedAt: r.finished_at,
});

const INFO_SELECT = `SELECT b.*, (SELECT json_object_agg(s.status, s.n) FROM (SELECT status, count(*)::int AS n FROM evaluator_calls c
                                      WHERE c.evaluator_id = b.evaluator_id AND c.backfill_id = b.id GROUP BY status) s) AS calls
                       FROM evaluator_backfills b`;

/**
 * Starts a backfill of an evaluator's current version over [since, until), judging at most `limit` items.
 *
 * @example
 * await createBackfill(db, 'ws_1', { id: 'ev_…', version: 2 }, { since, until, limit: 1000 })
 */
export async function createBackfill(
  db: SqlExecutor,
  workspaceId: string,
  evaluator: { id: string; version: number },
  range: { since: Date; until: Date; limit: number },
): Promise<BackfillInfo> {
  const id = BACKFILL_ID_PREFIX + uuidv7().replaceAll('-', '');
  await db.query(
    `INSERT INTO evaluator_backfills (id, workspace_id, evaluator_id, evaluator_version, since, until, max_items) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [id, workspaceId, evaluator.id, evaluator.version, range.since, range.until, range.limit],
  );
  const found = await findBackfill(db, workspaceId, evaluator.id, id);
  if (!found) throw new Error('a backfill just inserted was not found');
  return found;
}

/** One backfill of an evaluator, with its progress; undefined when unknown. */
export async function findBackfill(db: SqlExecutor, workspaceId: string, evaluatorId: string, id: string): Promise<BackfillInfo | undefined> {
  const [row] = await db.query<BackfillRow>(`${INFO_SELECT} WHERE b.workspace_id = $1 AND b.evaluator_id = $2 AND b.id = $3`, [workspaceId, evaluatorId, id]);
  return row ? toInfo(row) : undefined;
}

/** An evaluator's backfills, newest first. */
export async function listBackfills(db: SqlExecutor, workspaceId: string, evaluatorId: string): Promise<BackfillInfo[]> {
  const rows = await db.query<BackfillRow>(`${INFO_SELECT} WHERE b.workspace_id = $1 AND b.evaluator_id = $2 ORDER BY b.id DESC LIMIT 100`, [workspaceId, evaluatorId]);
  return rows.map(toInfo);
}

/**
 * The running backfills of live evaluators, oldest first, locked for this caller (SKIP LOCKED: a
 * backfill is walked by one worker at a time). Call in a transaction.
 */
export async function takeRunningBackfill(tx: SqlExecutor): Promise<RunningBackfill | undefined> {
  const [row] = await tx.query<BackfillRow>(
    `SELECT b.*, NULL AS calls FROM evaluator_backfills b JOIN evaluators e ON e.id = b.evaluator_id AND e.deleted_at IS NULL
      WHERE b.status = 'running' ORDER BY b.created_at LIMIT 1 FOR UPDATE OF b SKIP LOCKED`,
  );
  if (!row) return undefined;
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    evaluatorId: row.evaluator_id,
    evaluatorVersion: row.evaluator_version,
    since: row.since,
    until: row.until,
    maxItems: row.max_items,
    cursorAt: row.cursor_at,
    cursorId: row.cursor_id,
    queued: row.queued,
  };
}

/**
 * The next page of a backfill's items after its cursor: responses created in [since, until)
 * (pointwise), or pairwise review items created then (pairwise), in (created_at, id) order.
 */
export async function backfillPage(db: SqlExecutor, b: RunningBackfill, kind: 'pointwise' | 'pairwise', pageSize: number): Promise<BackfillItem[]> {
  const params = [b.workspaceId, b.since, b.until, b.cursorAt, b.cursorId ?? '', pageSize];
  const after = `($4::timestamptz IS NULL OR (created_at, id) > ($4::timestamptz, $5::text))`;
  if (kind === 'pointwise') {
    const rows = await db.query<{ id: string; created_at: Date }>(
      `SELECT id, created_at FROM responses WHERE workspace_id = $1 AND created_at >= $2 AND created_at < $3 AND ${after}
        ORDER BY created_at, id LIMIT $6`,
      params,
    );
    return rows.map((r) => ({ itemKey: r.id, responseId: r.id, responseBId: null, createdAt: r.created_at }));
  }
  const rows = await db.query<{ id: string; response_id: string; response_b_id: string; created_at: Date }>(
    `SELECT id, response_id, response_b_id, created_at FROM review_items
      WHERE workspace_id = $1 AND response_b_id IS NOT NULL AND created_at >= $2 AND created_at < $3 AND ${after}
      ORDER BY created_at, id LIMIT $6`,
    params,
  );
  return rows.map((r) => ({ itemKey: r.id, responseId: r.response_id, responseBId: r.response_b_id, createdAt: r.created_at }));
}

/** Records a walked page: the cursor, the counts, and done when the walk ended. */
export async function recordBackfillPage(tx: SqlExecutor, id: string, page: { cursorAt: Date | null; cursorId: string | null; considered: number; queued: number; done: boolean }): Promise<void> {
  await tx.query(
    `UPDATE evaluator_backfills
        SET cursor_at = COALESCE($2, cursor_at), cursor_id = COALESCE($3, cursor_id), considered = considered + $4, queued = queued + $5,
            status = CASE WHEN $6 THEN 'done' ELSE status END, finished_at = CASE WHEN $6 THEN now() ELSE finished_at END
      WHERE id = $1`,
    [id, page.cursorAt, page.cursorId, page.considered, page.queued, page.done],
  );
}

/**
 * Pairwise review items of a workspace after `cursor` (item ids grow with time), oldest first:
 * what a pairwise evaluator has not seen yet.
 *
 * @example
 * await pairwiseItemsAfter(db, 'ws_1', 'ri_0190…', 500)
 */
export async function pairwiseItemsAfter(db: SqlExecutor, workspaceId: string, cursor: string, limit: number): Promise<BackfillItem[]> {
  const rows = await db.query<{ id: string; response_id: string; response_b_id: string; created_at: Date }>(
    `SELECT id, response_id, response_b_id, created_at FROM review_items WHERE workspace_id = $1 AND id > $2 AND response_b_id IS NOT NULL ORDER BY id LIMIT $3`,
    [workspaceId, cursor, limit],
  );
  return rows.map((r) => ({ itemKey: r.id, responseId: r.response_id, responseBId: r.response_b_id, createdAt: r.created_at }));
}
