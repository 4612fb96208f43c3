/**
 * What a judge is sent of a response (issue 28): its query, answer, context documents and
 * sources, model and agent. No feedback: a judge answers blind, as a reviewer does, or its
 * agreement with the humans would measure copying.
 */
import type { SqlExecutor } from '../db/sql-client.js';

/** A response as an evaluator call carries it. */
export interface JudgedResponse {
  id: string;
  query: string;
  answer: string;
  contextDocumentIds: unknown[];
  sources: unknown[];
  model: string | null;
  agent: string | null;
  createdAt: string;
}

/**
 * The responses of a workspace by id (missing ones, e.g. erased since, left out).
 *
 * @example
 * (await judgedResponses(db, 'ws_1', ['r1'])).get('r1')?.answer
 */
export async function judgedResponses(db: SqlExecutor, workspaceId: string, ids: readonly string[]): Promise<Map<string, JudgedResponse>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<{
    id: string;
    query: string;
    answer: string;
    context_document_ids: unknown[];
    sources: unknown[];
    model: string | null;
    agent: string | null;
    created_at: Date;
  }>(
    `SELECT id, query, answer, context_document_ids, sources, model, agent, created_at FROM responses WHERE workspace_id = $1 AND id = ANY($2::text[])`,
    [workspaceId, [...new Set(ids)]],
  );
  return new Map(
    rows.map((r) => [
      r.id,
      { id: r.id, query: r.query, answer: r.answer, contextDocumentIds: r.context_document_ids, sources: r.sources, model: r.model, agent: r.agent, createdAt: r.created_at.toISOString() },
    ]),
  );
}
