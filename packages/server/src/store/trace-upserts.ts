/**
 * Writes pieces of traces as responses (issue 26, docs/compat.md): a piece whose response does
 * not exist yet creates it (bare, query and answer '', while neither is known), a later one
 * updates it, last write wins per field. The shared write of the Langfuse, LangSmith and
 * OpenTelemetry drop-ins, called by `IngestService.upsertTraces` through its group committer.
 */
import { TRACE_METADATA_KEYS, mergeTraceUpdates, type ErrorBody, type TraceUpdate } from '@feedloop/core';
import type { SqlClient, SqlExecutor } from '../db/sql-client.js';

/** One trace piece on its way to the database, already under the workspace's privacy settings. */
export interface TraceSubmission {
  workspaceId: string;
  update: TraceUpdate;
}

/** What became of one piece: it created its response, or updated an existing one. */
export type TraceOutcome = { id: string; status: 'created' | 'updated' } | { id: string; status: 'rejected'; error: ErrorBody };

const key = (ws: string, id: string): string => `${ws}\u0000${id}`;

const COLUMNS =
  'ws text, id text, query text, answer text, model text, user_id text, session_id text, experiment_id text, variant text, metadata jsonb, created_at timestamptz';

/** The metadata a piece writes: its own, then its trace fields under their keys. */
function metadataOf(u: TraceUpdate): Record<string, unknown> {
  const m: Record<string, unknown> = { ...u.metadata };
  for (const k of TRACE_METADATA_KEYS) if (u[k] !== undefined) m[k] = u[k];
  return m;
}

/** A folded piece as the statement's JSON row. */
function rowOf(workspaceId: string, u: TraceUpdate): Record<string, unknown> {
  return {
    ws: workspaceId,
    id: u.id,
    query: u.query === '' ? null : (u.query ?? null),
    answer: u.answer === '' ? null : (u.answer ?? null),
    model: u.model ?? null,
    user_id: u.userId ?? null,
    session_id: u.sessionId ?? null,
    experiment_id: u.experimentId ?? null,
    variant: u.variant ?? null,
    metadata: metadataOf(u),
    created_at: u.createdAt ?? null,
  };
}

/** Folds pieces of the same response (`mergeTraceUpdates`) into rows in key order, so concurrent batches lock alike. */
function foldedRows(items: readonly TraceSubmission[]): Array<Record<string, unknown>> {
  const folded = new Map<string, TraceSubmission>();
  for (const item of items) {
    const k = key(item.workspaceId, item.update.id);
    const seen = folded.get(k);
    folded.set(k, seen === undefined ? item : { workspaceId: item.workspaceId, update: mergeTraceUpdates(seen.update, item.update) });
  }
  return [...folded.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, s]) => rowOf(s.workspaceId, s.update));
}

/** How an existing response takes a piece: given fields replace (normal) or fill blanks only (fill-only). */
const SET_NORMAL = `
         query = CASE WHEN excluded.query <> '' THEN excluded.query ELSE r.query END,
         answer = CASE WHEN excluded.answer <> '' THEN excluded.answer ELSE r.answer END,
         model = coalesce(excluded.model, r.model),
         user_id = coalesce(excluded.user_id, r.user_id),
         session_id = coalesce(excluded.session_id, r.session_id),
         experiment_id = coalesce(excluded.experiment_id, r.experiment_id),
         variant = coalesce(excluded.variant, r.variant),
         metadata = r.metadata || excluded.metadata,
         bare = r.bare AND excluded.bare`;
const SET_FILL = `
         query = CASE WHEN r.query = '' THEN excluded.query ELSE r.query END,
         answer = CASE WHEN r.answer = '' THEN excluded.answer ELSE r.answer END,
         model = coalesce(r.model, excluded.model),
         user_id = coalesce(r.user_id, excluded.user_id),
         session_id = coalesce(r.session_id, excluded.session_id),
         experiment_id = coalesce(r.experiment_id, excluded.experiment_id),
         variant = coalesce(r.variant, excluded.variant),
         metadata = excluded.metadata || r.metadata,
         bare = r.bare AND excluded.bare`;

/** Writes folded rows in one statement; returns the keys of the responses it created. */
async function writeRows(db: SqlClient, rows: Array<Record<string, unknown>>, fillOnly: boolean, now: Date): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const written = await db.query<{ ws: string; id: string; created: boolean }>(
    `WITH x AS (SELECT * FROM json_to_recordset($1::json) AS x(${COLUMNS})),
     before AS (
       -- The stored dimensions, read in the statement's snapshot (before its own write).
       SELECT r.workspace_id AS ws, r.id, r.model, r.experiment_id, r.variant FROM x JOIN responses r ON r.workspace_id = x.ws AND r.id = x.id
     ), up AS (
       INSERT INTO responses AS r (workspace_id, id, session_id, user_id, query, answer, model, experiment_id, variant, metadata, created_at, received_at, bare)
       SELECT ws, id, session_id, user_id, coalesce(query, ''), coalesce(answer, ''), model, experiment_id, variant, metadata,
              coalesce(created_at, $2::timestamptz), $2::timestamptz, query IS NULL AND answer IS NULL
         FROM x ORDER BY ws, id
       ON CONFLICT (workspace_id, id) DO UPDATE SET ${fillOnly ? SET_FILL : SET_NORMAL}
       RETURNING r.workspace_id AS ws, r.id, r.created_at, r.model, r.experiment_id, r.variant, (r.xmax = 0) AS created
     ), moved AS (
       SELECT u.ws, u.id, u.created_at FROM up u JOIN before b ON b.ws = u.ws AND b.id = u.id
        WHERE NOT u.created AND (u.model IS DISTINCT FROM b.model OR u.experiment_id IS DISTINCT FROM b.experiment_id OR u.variant IS DISTINCT FROM b.variant)
     ), rescore AS (
       INSERT INTO score_dirty AS d (workspace_id, response_id) SELECT ws, id FROM moved ORDER BY 1, 2
       ON CONFLICT (workspace_id, response_id) DO UPDATE SET version = d.version + 1
     ), days AS (
       SELECT ws, (created_at AT TIME ZONE 'UTC')::date AS day FROM up WHERE created
       UNION
       SELECT ws, (created_at AT TIME ZONE 'UTC')::date FROM moved
       UNION
       SELECT m.ws, (s.occurred_at AT TIME ZONE 'UTC')::date FROM moved m
         JOIN feedback_signals s ON s.workspace_id = m.ws AND s.response_id = m.id AND s.status = 'counted'
     ), marked AS (
       INSERT INTO rollup_dirty AS d (workspace_id, day) SELECT ws, day FROM days ORDER BY 1, 2
       ON CONFLICT (workspace_id, day) DO UPDATE SET version = d.version + 1
     ), tagged AS (
       -- A new response has no counted feedback yet: the response list's 'unrated' (migration 0019).
       INSERT INTO response_list_tags (workspace_id, tag, created_at, response_id)
       SELECT ws, 'unrated', created_at, id FROM up WHERE created
     )
     SELECT ws, id, created FROM up`,
    [JSON.stringify(rows), now.toISOString()],
    { prepare: true },
  );
  return new Set(written.filter((r) => r.created).map((r) => key(r.ws, r.id)));
}

/**
 * Writes a batch of trace pieces; returns one outcome per piece, in order. Pieces of the same
 * response are folded first (`mergeTraceUpdates`), the normal ones and the fill-only ones apart,
 * and each kind is written in one statement, normal first: a fill-only piece then fills only what
 * the normal ones left blank. The first piece of a new response reads `created`, every other
 * `updated`.
 *
 * A new response is tagged unrated for the list and marks its day for the rollup, as a
 * registration does. An update that changes the model, the experiment or the variant (rollup
 * dimensions and variant totals) marks the response for the rescore and its days, the
 * registration's and its feedback's, for the rollup.
 *
 * @example
 * await upsertTraceBatch(db, [{ workspaceId, update: { id: 't1' } }, { workspaceId, update: { id: 't1', query: 'q' } }])
 * // [{ id: 't1', status: 'created' }, { id: 't1', status: 'updated' }]
 */
export async function upsertTraceBatch(db: SqlClient, items: TraceSubmission[], now = new Date()): Promise<TraceOutcome[]> {
  const created = await writeRows(db, foldedRows(items.filter((i) => i.update.fillOnly !== true)), false, now);
  for (const k of await writeRows(db, foldedRows(items.filter((i) => i.update.fillOnly === true)), true, now)) created.add(k);
  const firstSeen = new Set<string>();
  return items.map((item): TraceOutcome => {
    const k = key(item.workspaceId, item.update.id);
    const first = !firstSeen.has(k);
    firstSeen.add(k);
    return { id: item.update.id, status: first && created.has(k) ? 'created' : 'updated' };
  });
}

/**
 * The ids among `ids` that name no response of the workspace: a drop-in asks before it attaches
 * a score to a trace, to create the missing ones bare or refuse them (setting
 * `compat.unknownTraces`).
 *
 * @example
 * await missingResponseIds(db, ws, ['t1', 't2']) // Set { 't2' } when only t1 exists
 */
export async function missingResponseIds(db: SqlExecutor, workspaceId: string, ids: readonly string[]): Promise<Set<string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Set();
  const found = await db.query<{ id: string }>('SELECT id FROM responses WHERE workspace_id = $1 AND id = ANY($2::text[])', [workspaceId, unique]);
  const known = new Set(found.map((r) => r.id));
  return new Set(unique.filter((id) => !known.has(id)));
}
