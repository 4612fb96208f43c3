/**
 * What the reviewing screen shows of an item (issue 27): each response's query, answer, context
 * documents and sources, and the feedback it has so far, in one read so `next` answers the page
 * in one call. The feedback shown leaves out this queue's own reviews: a reviewer judges before
 * seeing the others' verdicts, or agreement would measure copying.
 */
import type { SqlExecutor } from '../db/sql-client.js';

/** Feedback events shown per response at most (newest first). */
export const FEEDBACK_SHOWN = 50;

/** A response as the reviewing screen shows it. */
export interface ReviewedResponse {
  id: string;
  query: string;
  answer: string;
  sources: unknown[];
  contextDocumentIds: unknown[];
  model: string | null;
  agent: string | null;
  experimentId: string | null;
  variant: string | null;
  createdAt: string;
  /** Feedback so far, newest first (this queue's reviews left out). */
  feedback: Array<{ id: string; type: string; source: string; userId: string | null; payload: unknown; occurredAt: string }>;
}

/**
 * The responses of an item, in the order given (missing ones, e.g. erased since, left out).
 *
 * @example
 * await reviewedResponses(db, 'ws_1', 'rq_1', ['r2', 'r1'])
 */
export async function reviewedResponses(db: SqlExecutor, workspaceId: string, queueId: string, ids: readonly string[]): Promise<ReviewedResponse[]> {
  const rows = await db.query<{
    id: string;
    query: string;
    answer: string;
    sources: unknown[];
    context_document_ids: unknown[];
    model: string | null;
    agent: string | null;
    experiment_id: string | null;
    variant: string | null;
    created_at: Date;
    feedback: Array<{ id: string; type: string; source: string; userId: string | null; payload: unknown; occurredAt: string }> | null;
  }>(
    `SELECT r.id, r.query, r.answer, r.sources, r.context_document_ids, r.model, r.agent, r.experiment_id, r.variant, r.created_at, f.feedback
       FROM responses r
       LEFT JOIN LATERAL (
         SELECT json_agg(json_build_object('id', e.id, 'type', e.type, 'source', e.source, 'userId', e.user_id, 'payload', e.payload,
                                           'occurredAt', e.occurred_at) ORDER BY e.seq DESC) AS feedback
           FROM (SELECT * FROM feedback_events e WHERE e.workspace_id = r.workspace_id AND e.response_id = r.id AND e.duplicate_of IS NULL
                   AND e.retracted_at IS NULL AND e.superseded_by IS NULL AND e.metadata->>'reviewQueueId' IS DISTINCT FROM $3
                 ORDER BY e.seq DESC LIMIT ${FEEDBACK_SHOWN}) e
       ) f ON true
      WHERE r.workspace_id = $1 AND r.id = ANY($2::text[])`,
    [workspaceId, [...ids], queueId],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const r = byId.get(id);
    if (!r) return [];
    return [
      {
        id: r.id,
        query: r.query,
        answer: r.answer,
        sources: r.sources,
        contextDocumentIds: r.context_document_ids,
        model: r.model,
        agent: r.agent,
        experimentId: r.experiment_id,
        variant: r.variant,
        createdAt: r.created_at.toISOString(),
        feedback: (r.feedback ?? []).map((f) => ({ ...f, occurredAt: new Date(f.occurredAt).toISOString() })),
      },
    ];
  });
}
