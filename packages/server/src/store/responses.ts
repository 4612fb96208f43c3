/**
 * Reads of registered responses.
 */
import type { SqlExecutor } from '../db/sql-client.js';

/** A registered response as the API shows it. */
export interface ResponseView {
  id: string;
  sessionId: string | null;
  userId: string | null;
  query: string;
  answer: string;
  sources: string[];
  contextDocumentIds: string[];
  contextTokenCount: number | null;
  model: string | null;
  agent: string | null;
  queryType: string | null;
  experimentId: string | null;
  variant: string | null;
  traceId: string | null;
  metadata: Record<string, unknown>;
  createdAt: string;
  receivedAt: string;
}

interface ResponseRow {
  id: string;
  session_id: string | null;
  user_id: string | null;
  query: string;
  answer: string;
  sources: string[];
  context_document_ids: string[];
  context_token_count: number | null;
  model: string | null;
  agent: string | null;
  query_type: string | null;
  experiment_id: string | null;
  variant: string | null;
  trace_id: string | null;
  metadata: Record<string, unknown>;
  created_at: Date;
  received_at: Date;
}

/**
 * Finds one response of a workspace.
 *
 * @example
 * await getResponse(db, ws, 'resp-001') // ResponseView | undefined
 */
export async function getResponse(db: SqlExecutor, workspaceId: string, id: string): Promise<ResponseView | undefined> {
  const rows = await db.query<ResponseRow>('SELECT * FROM responses WHERE workspace_id = $1 AND id = $2', [workspaceId, id]);
  const r = rows[0];
  if (!r) return undefined;
  return {
    id: r.id,
    sessionId: r.session_id,
    userId: r.user_id,
    query: r.query,
    answer: r.answer,
    sources: r.sources,
    contextDocumentIds: r.context_document_ids,
    contextTokenCount: r.context_token_count,
    model: r.model,
    agent: r.agent,
    queryType: r.query_type,
    experimentId: r.experiment_id,
    variant: r.variant,
    traceId: r.trace_id,
    metadata: r.metadata,
    createdAt: r.created_at.toISOString(),
    receivedAt: r.received_at.toISOString(),
  };
}
