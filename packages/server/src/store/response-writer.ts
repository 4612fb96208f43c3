/**
 * Writes a batch of response registrations in one statement, idempotently: registering the same
 * id with the same query and answer again is a no-op, with other content a conflict.
 * This is the group committer's flush function for responses.
 */
import type { ErrorBody, ResponseRegistration } from '@feedloop/core';
import type { SqlClient } from '../db/sql-client.js';
import { firstIndexOf } from './first-index.js';

/** One response on its way to the database, its id already assigned. */
export interface ResponseSubmission {
  workspaceId: string;
  response: ResponseRegistration & { id: string };
}

/** What became of one registration. */
export type ResponseOutcome =
  | { id: string; status: 'created' | 'duplicate' }
  | { id: string; status: 'rejected'; error: ErrorBody };

const COLUMNS =
  'ws text, id text, session_id text, user_id text, query text, answer text, sources jsonb, context_document_ids jsonb, context_token_count integer, model text, agent text, query_type text, experiment_id text, variant text, trace_id text, metadata jsonb, created_at timestamptz, received_at timestamptz';

const key = (ws: string, id: string): string => `${ws}\u0000${id}`;

/**
 * Writes a batch; returns one outcome per submission, in order.
 *
 * @example
 * await writeResponseBatch(db, [{ workspaceId, response: { id: 'r1', query: 'q', answer: 'a' } }])
 * // [{ id: 'r1', status: 'created' }]
 */
export async function writeResponseBatch(db: SqlClient, items: ResponseSubmission[], now = new Date()): Promise<ResponseOutcome[]> {
  const first = firstIndexOf(items.map((s) => key(s.workspaceId, s.response.id)));
  const rows = items
    .filter((_, i) => first[i] === i)
    .map(({ workspaceId, response: r }) => ({
      ws: workspaceId,
      id: r.id,
      session_id: r.sessionId ?? null,
      user_id: r.userId ?? null,
      query: r.query,
      answer: r.answer,
      sources: r.sources ?? [],
      context_document_ids: r.contextDocumentIds ?? [],
      context_token_count: r.contextTokenCount ?? null,
      model: r.model ?? null,
      agent: r.agent ?? null,
      query_type: r.queryType ?? null,
      experiment_id: r.experimentId ?? null,
      variant: r.variant ?? null,
      trace_id: r.traceId ?? null,
      metadata: r.metadata ?? {},
      created_at: r.createdAt ?? now.toISOString(),
      received_at: now.toISOString(),
    }))
    .sort((a, b) => (a.ws === b.ws ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.ws < b.ws ? -1 : 1));
  // A new response joins its day's correction and escalation populations, so the same statement
  // marks that day dirty for the rollup (bumping the version, as processing does), and is tagged
  // unrated for the response list.
  const inserted = await db.query<{ ws: string; id: string }>(
    `WITH inserted AS (
       INSERT INTO responses (workspace_id, id, session_id, user_id, query, answer, sources, context_document_ids, context_token_count,
                              model, agent, query_type, experiment_id, variant, trace_id, metadata, created_at, received_at)
       SELECT ws, id, session_id, user_id, query, answer, sources, context_document_ids, context_token_count,
              model, agent, query_type, experiment_id, variant, trace_id, metadata, created_at, received_at
         FROM json_to_recordset($1::json) AS x(${COLUMNS})
       ON CONFLICT (workspace_id, id) DO NOTHING
       RETURNING workspace_id AS ws, id, created_at, context_document_ids AS docs, sources AS srcs
     ), used AS (
       -- ADR-016 uses per document, in document order so concurrent batches lock rows alike.
       INSERT INTO document_uses AS u (workspace_id, document_id, uses)
       SELECT ws, d.id, count(DISTINCT i.id) FROM inserted i
        CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN jsonb_array_length(i.docs) > 0 THEN i.docs ELSE i.srcs END) AS d(id)
        GROUP BY 1, 2 ORDER BY 1, 2
       ON CONFLICT (workspace_id, document_id) DO UPDATE SET uses = u.uses + excluded.uses
     ), marked AS (
       INSERT INTO rollup_dirty AS d (workspace_id, day)
       SELECT DISTINCT ws, (created_at AT TIME ZONE 'UTC')::date FROM inserted ORDER BY 1, 2
       ON CONFLICT (workspace_id, day) DO UPDATE SET version = d.version + 1
     ), tagged AS (
       -- A new response has no counted feedback yet: the response list's 'unrated' (migration 0019).
       INSERT INTO response_list_tags (workspace_id, tag, created_at, response_id)
       SELECT ws, 'unrated', created_at, id FROM inserted
     )
     SELECT ws, id FROM inserted`,
    [JSON.stringify(rows)],
    { prepare: true },
  );
  const created = new Set(inserted.map((r) => key(r.ws, r.id)));
  const existing = rows.filter((r) => !created.has(key(r.ws, r.id)));
  const same = new Set<string>();
  if (existing.length > 0) {
    const found = await db.query<{ ws: string; id: string }>(
      `SELECT r.workspace_id AS ws, r.id FROM json_to_recordset($1::json) AS k(ws text, id text, query text, answer text)
         JOIN responses r ON r.workspace_id = k.ws AND r.id = k.id AND r.query = k.query AND r.answer = k.answer`,
      [JSON.stringify(existing.map((r) => ({ ws: r.ws, id: r.id, query: r.query, answer: r.answer })))],
      { prepare: true },
    );
    for (const r of found) same.add(key(r.ws, r.id));
  }
  return items.map((item, i): ResponseOutcome => {
    const id = item.response.id;
    const k = key(item.workspaceId, id);
    const primary = items[first[i] ?? i]?.response;
    const samePrimary = primary?.query === item.response.query && primary.answer === item.response.answer;
    if (first[i] === i && created.has(k)) return { id, status: 'created' };
    if (samePrimary && (created.has(k) || same.has(k))) return { id, status: 'duplicate' };
    return {
      id,
      status: 'rejected',
      error: {
        code: 'FEEDLOOP_ERR_RESPONSE_CONFLICT',
        field: 'id',
        message: `id: a response ${JSON.stringify(id)} exists with another query or answer`,
      },
    };
  });
}
