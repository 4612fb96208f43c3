/**
 * Evaluator calls in SQL (issue 28): the outbox of calls to judges, their log and dead letters.
 * One row per (evaluator, version, item), so an item is judged once per evaluator version however
 * often it is queued (a new response, a backfill, another backfill). Claims take leases with
 * SKIP LOCKED, as webhook deliveries do, so any number of workers share the calls.
 */
import type { EvaluatorKind, EvaluatorOutput } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';

/** Where a call stands: waiting for an attempt, answered (its event written), or dead-lettered. */
export const EVALUATOR_CALL_STATUSES = ['pending', 'done', 'dead'] as const;
/** One of {@link EVALUATOR_CALL_STATUSES}. */
export type EvaluatorCallStatus = (typeof EVALUATOR_CALL_STATUSES)[number];

/** A call to queue. */
export interface NewEvaluatorCall {
  workspaceId: string;
  evaluatorId: string;
  version: number;
  /** The response id (pointwise) or the review item id (pairwise). */
  itemKey: string;
  responseId: string;
  responseBId: string | null;
  origin: 'new' | 'backfill';
  backfillId: string | null;
}

/** One call in an evaluator's log. */
export interface EvaluatorCallInfo {
  id: number;
  evaluatorVersion: number;
  itemKey: string;
  responseId: string;
  responseBId: string | null;
  origin: 'new' | 'backfill';
  backfillId: string | null;
  status: EvaluatorCallStatus;
  attempts: number;
  lastStatusCode: number | null;
  /** A coded reason (`timeout`, `http_status`, `invalid_answer`, `event_rejected:<code>`, …), never a connection error's text. */
  lastError: string | null;
  latencyMs: number | null;
  eventId: string | null;
  createdAt: Date;
  completedAt: Date | null;
  /** When the next attempt is due; null unless pending. */
  nextAttemptAt: Date | null;
}

/** A claimed call with what its POST needs of its evaluator. */
export interface DueEvaluatorCall {
  id: number;
  workspace_id: string;
  evaluator_id: string;
  evaluator_version: number;
  item_key: string;
  response_id: string;
  response_b_id: string | null;
  attempts: number;
  name: string;
  url: string;
  secret: string;
  kind: EvaluatorKind;
  output: EvaluatorOutput;
  score_config_id: string | null;
  timeout_ms: number;
}

interface CallRow {
  id: number;
  evaluator_version: number;
  item_key: string;
  response_id: string;
  response_b_id: string | null;
  origin: 'new' | 'backfill';
  backfill_id: string | null;
  status: EvaluatorCallStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  latency_ms: number | null;
  event_id: string | null;
  created_at: Date;
  completed_at: Date | null;
  next_attempt_at: Date;
}

const toInfo = (r: CallRow): EvaluatorCallInfo => ({
  id: Number(r.id),
  evaluatorVersion: r.evaluator_version,
  itemKey: r.item_key,
  responseId: r.response_id,
  responseBId: r.response_b_id,
  origin: r.origin,
  backfillId: r.backfill_id,
  status: r.status,
  attempts: r.attempts,
  lastStatusCode: r.last_status_code,
  lastError: r.last_error,
  latencyMs: r.latency_ms,
  eventId: r.event_id,
  createdAt: r.created_at,
  completedAt: r.completed_at,
  nextAttemptAt: r.status === 'pending' ? r.next_attempt_at : null,
});

/**
 * Queues calls; one already queued for its (evaluator, version, item) is left as it is. Returns
 * the ids of the new calls, to hand to the dispatcher.
 *
 * @example
 * await queueEvaluatorCalls(tx, [{ workspaceId, evaluatorId, version: 1, itemKey: 'r1', responseId: 'r1', responseBId: null, origin: 'new', backfillId: null }]) // [17]
 */
export async function queueEvaluatorCalls(db: SqlExecutor, calls: readonly NewEvaluatorCall[]): Promise<number[]> {
  if (calls.length === 0) return [];
  const rows = await db.query<{ id: number }>(
    `INSERT INTO evaluator_calls (workspace_id, evaluator_id, evaluator_version, item_key, response_id, response_b_id, origin, backfill_id)
     SELECT c.workspace_id, c.evaluator_id, c.version, c.item_key, c.response_id, c.response_b_id, c.origin, c.backfill_id
       FROM json_to_recordset($1::json) AS c (workspace_id text, evaluator_id text, version int, item_key text, response_id text,
                                              response_b_id text, origin text, backfill_id text)
     ON CONFLICT (evaluator_id, evaluator_version, item_key) DO NOTHING
     RETURNING id`,
    [
      JSON.stringify(
        calls.map((c) => ({
          workspace_id: c.workspaceId,
          evaluator_id: c.evaluatorId,
          version: c.version,
          item_key: c.itemKey,
          response_id: c.responseId,
          response_b_id: c.responseBId,
          origin: c.origin,
          backfill_id: c.backfillId,
        })),
      ),
    ],
  );
  return rows.map((r) => Number(r.id));
}

/**
 * Claims due pending calls of enabled live evaluators (these `ids` only, when given), each
 * evaluator within what is left of its per-minute budget (attempts started in the last minute,
 * the claimed ones included: the claim stamps `last_attempt_at`), leased for `leaseTimeouts` times
 * the longest timeout among the evaluators claimed from (a crashed worker's calls come back that much later).
 *
 * @example
 * const due = await claimDueEvaluatorCalls(db, { ids: undefined, limit: 100, leaseTimeouts: 14 });
 */
export async function claimDueEvaluatorCalls(db: SqlExecutor, options: { ids: readonly number[] | undefined; limit: number; leaseTimeouts: number }): Promise<DueEvaluatorCall[]> {
  const budgets = await db.query<{ id: string; left: number; timeout_ms: number }>(
    `SELECT e.id, e.timeout_ms, e.rate_per_minute - (SELECT count(*)::int FROM evaluator_calls r
                                          WHERE r.evaluator_id = e.id AND r.last_attempt_at > now() - interval '1 minute') AS left
       FROM evaluators e
      WHERE e.deleted_at IS NULL AND e.enabled
        AND e.id IN (SELECT DISTINCT c.evaluator_id FROM evaluator_calls c
                      WHERE c.status = 'pending' AND c.next_attempt_at <= now()
                        AND ($1::bigint[] IS NULL OR c.id = ANY ($1::bigint[])))`,
    [options.ids ?? null],
  );
  const claimed: DueEvaluatorCall[] = [];
  // One lease length for the whole claim: its calls share lanes, so any may wait behind the slowest evaluator's.
  const leaseMs = options.leaseTimeouts * Math.max(0, ...budgets.map((b) => b.timeout_ms));
  for (const budget of budgets) {
    const take = Math.min(budget.left, options.limit - claimed.length);
    if (take <= 0) continue;
    const rows = await db.query<DueEvaluatorCall>(
      `WITH due AS (
         SELECT c.id FROM evaluator_calls c
          WHERE c.evaluator_id = $1 AND c.status = 'pending' AND c.next_attempt_at <= now()
            AND (c.lease_until IS NULL OR c.lease_until < now())
            AND ($2::bigint[] IS NULL OR c.id = ANY ($2::bigint[]))
          ORDER BY c.next_attempt_at, c.id
          LIMIT $3
          FOR UPDATE SKIP LOCKED
       )
       UPDATE evaluator_calls c
          SET lease_until = now() + $4::double precision * interval '1 millisecond', last_attempt_at = now()
         FROM due, evaluators e
        WHERE c.id = due.id AND e.id = c.evaluator_id
       RETURNING c.id, c.workspace_id, c.evaluator_id, c.evaluator_version, c.item_key, c.response_id, c.response_b_id, c.attempts,
                 e.name, e.url, e.secret, e.kind, e.output, e.score_config_id, e.timeout_ms`,
      [budget.id, options.ids ?? null, take, leaseMs],
    );
    claimed.push(...rows.map((r) => ({ ...r, id: Number(r.id) })));
  }
  return claimed;
}

/** An answered call to record: its event written (or a duplicate of one written before). */
export interface CallDone {
  id: number;
  status: number;
  latencyMs: number;
  eventId: string;
}

/** A failed attempt to record: retried in `retryInMs`, or dead-lettered (`dead`). */
export interface CallFailure {
  id: number;
  dead: boolean;
  status: number | null;
  error: string;
  latencyMs: number | null;
  retryInMs: number;
}

/**
 * Records a dispatch round's answered calls in one statement. A call no longer pending (another
 * worker finished it after its lease ran out) is left as it is.
 *
 * @example
 * await markCallsDone(db, [{ id: 17, status: 200, latencyMs: 41, eventId: 'judge-…' }]);
 */
export async function markCallsDone(db: SqlExecutor, calls: readonly CallDone[]): Promise<void> {
  if (calls.length === 0) return;
  await db.query(
    `UPDATE evaluator_calls c
        SET status = 'done', attempts = c.attempts + 1, last_status_code = x.status, last_error = NULL, latency_ms = x."latencyMs",
            event_id = x."eventId", completed_at = now(), lease_until = NULL
       FROM json_to_recordset($1::json) AS x(id bigint, status int, "latencyMs" int, "eventId" text)
      WHERE c.id = x.id AND c.status = 'pending'`,
    [JSON.stringify(calls)],
    { prepare: true },
  );
}

/**
 * Records a dispatch round's failed attempts in one statement: each retried after its own delay,
 * or dead-lettered. A call no longer pending is left as it is.
 *
 * @example
 * await recordCallFailures(db, [{ id: 17, dead: false, status: 503, error: 'http_status', latencyMs: 12, retryInMs: 10_000 }]);
 */
export async function recordCallFailures(db: SqlExecutor, failures: readonly CallFailure[]): Promise<void> {
  if (failures.length === 0) return;
  await db.query(
    `UPDATE evaluator_calls c
        SET status = CASE WHEN x.dead THEN 'dead' ELSE 'pending' END, attempts = c.attempts + 1, last_status_code = x.status,
            last_error = x.error, latency_ms = x."latencyMs",
            next_attempt_at = now() + x."retryInMs" * interval '1 millisecond', lease_until = NULL,
            completed_at = CASE WHEN x.dead THEN now() ELSE NULL END
       FROM json_to_recordset($1::json) AS x(id bigint, dead boolean, status int, error text, "latencyMs" int, "retryInMs" double precision)
      WHERE c.id = x.id AND c.status = 'pending'`,
    [JSON.stringify(failures)],
    { prepare: true },
  );
}

/**
 * An evaluator's calls, newest first, `limit` at a time (`beforeId` from the last page goes on),
 * optionally of one status.
 *
 * @example
 * await listEvaluatorCalls(db, 'ws_1', 'ev_…', { status: 'dead', beforeId: undefined, limit: 50 })
 */
export async function listEvaluatorCalls(
  db: SqlExecutor,
  workspaceId: string,
  evaluatorId: string,
  options: { status: EvaluatorCallStatus | undefined; beforeId: number | undefined; limit: number },
): Promise<{ calls: EvaluatorCallInfo[]; nextBeforeId: number | null }> {
  const rows = await db.query<CallRow>(
    `SELECT id, evaluator_version, item_key, response_id, response_b_id, origin, backfill_id, status, attempts, last_status_code, last_error,
            latency_ms, event_id, created_at, completed_at, next_attempt_at
       FROM evaluator_calls
      WHERE workspace_id = $1 AND evaluator_id = $2 AND ($3::text IS NULL OR status = $3) AND ($4::bigint IS NULL OR id < $4::bigint)
      ORDER BY id DESC LIMIT $5`,
    [workspaceId, evaluatorId, options.status ?? null, options.beforeId ?? null, options.limit + 1],
  );
  const page = rows.slice(0, options.limit);
  const last = page[page.length - 1];
  return { calls: page.map(toInfo), nextBeforeId: rows.length > options.limit && last ? Number(last.id) : null };
}

/**
 * Puts a dead-lettered call back to pending, due now, with its attempts reset.
 *
 * @example
 * await retryDeadCall(db, 'ws_1', 'ev_…', 17) // 'retried'
 */
export async function retryDeadCall(db: SqlExecutor, workspaceId: string, evaluatorId: string, callId: number): Promise<'retried' | 'not_found' | 'not_dead'> {
  const [row] = await db.query<{ status: EvaluatorCallStatus; retried: boolean }>(
    `WITH found AS (
       SELECT id, status FROM evaluator_calls WHERE workspace_id = $1 AND evaluator_id = $2 AND id = $3
     ), retried AS (
       UPDATE evaluator_calls c SET status = 'pending', attempts = 0, next_attempt_at = now(), lease_until = NULL, completed_at = NULL
         FROM found WHERE c.id = found.id AND found.status = 'dead' RETURNING c.id
     )
     SELECT found.status, EXISTS (SELECT 1 FROM retried) AS retried FROM found`,
    [workspaceId, evaluatorId, callId],
  );
  if (!row) return 'not_found';
  return row.retried ? 'retried' : 'not_dead';
}

/** Counts of an evaluator's calls by status (shown on the evaluator). */
export async function evaluatorCallCounts(db: SqlExecutor, evaluatorId: string): Promise<Record<EvaluatorCallStatus, number>> {
  const rows = await db.query<{ status: EvaluatorCallStatus; n: number }>('SELECT status, count(*)::int AS n FROM evaluator_calls WHERE evaluator_id = $1 GROUP BY status', [
    evaluatorId,
  ]);
  const counts: Record<EvaluatorCallStatus, number> = { pending: 0, done: 0, dead: 0 };
  for (const r of rows) counts[r.status] = r.n;
  return counts;
}

/**
 * Marks every response an evaluator answered for a rescore (its weight factor changed, so their
 * composite scores do).
 *
 * @example
 * await markJudgedResponsesDirty(db, 'ev_…')
 */
export async function markJudgedResponsesDirty(db: SqlExecutor, evaluatorId: string): Promise<void> {
  await db.query(
    `INSERT INTO score_dirty AS d (workspace_id, response_id)
     SELECT DISTINCT workspace_id, response_id FROM evaluator_calls WHERE evaluator_id = $1 AND status = 'done' ORDER BY 1, 2
     ON CONFLICT (workspace_id, response_id) DO UPDATE SET version = d.version + 1`,
    [evaluatorId],
  );
}
