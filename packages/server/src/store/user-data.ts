/**
 * Transparency (`GET /v1/users/:userId/data`, GDPR art. 15): everything stored about one end
 * user in a workspace, as a readable JSON document.
 */
import type { SqlExecutor } from '../db/sql-client.js';
import { readConsent, type ConsentView } from './consent.js';

/** Rows of one kind a document holds at most; `truncated` says when there were more. */
export const USER_DATA_ROW_LIMIT = 10_000;

/** The document. */
export interface UserDataDocument {
  userId: string;
  generatedAt: string;
  consent: ConsentView;
  responses: unknown[];
  events: unknown[];
  signals: unknown[];
  scores: unknown[];
  dailyStats: unknown[];
  truncated: boolean;
}

/**
 * Reads what is stored about a user: their consent, their responses (query, answer, metadata),
 * their feedback events and those on their responses, what the pipeline derived from them
 * (signals, learning signals, composite scores of their responses) and their daily sums.
 *
 * @example
 * const doc = await readUserData(db, ws, 'u1'); // doc.events.length
 */
export async function readUserData(db: SqlExecutor, workspaceId: string, userId: string): Promise<UserDataDocument> {
  const limit = USER_DATA_ROW_LIMIT + 1;
  const p = [workspaceId, userId, limit];
  const responses = await db.query(
    `SELECT id, session_id AS "sessionId", query, answer, sources, context_document_ids AS "contextDocumentIds", model, agent,
            query_type AS "queryType", experiment_id AS "experimentId", variant, trace_id AS "traceId", metadata,
            created_at AS "createdAt", received_at AS "receivedAt"
       FROM responses WHERE workspace_id = $1 AND user_id = $2 ORDER BY created_at, id LIMIT $3`,
    p,
  );
  const events = await db.query(
    `SELECT e.id, e.response_id AS "responseId", e.type, e.source, e.user_id AS "userId", e.session_id AS "sessionId", e.target_id AS "targetId",
            e.payload, e.metadata, e.edit_distance AS "editDistance", e.occurred_at AS "occurredAt", e.received_at AS "receivedAt"
       FROM feedback_events e
      WHERE e.workspace_id = $1 AND (e.user_id = $2 OR e.response_id IN (SELECT id FROM responses WHERE workspace_id = $1 AND user_id = $2))
      ORDER BY e.seq LIMIT $3`,
    p,
  );
  const signals = await db.query(
    `SELECT event_id AS "eventId", response_id AS "responseId", type, status, polarity, severity, categories, signal_class AS "signalClass",
            value, weight, learning_signal AS "learningSignal", correction, occurred_at AS "occurredAt", processed_at AS "processedAt"
       FROM feedback_signals WHERE workspace_id = $1 AND user_id = $2 ORDER BY occurred_at, event_id LIMIT $3`,
    p,
  );
  const scores = await db.query(
    `SELECT s.response_id AS "responseId", s.score, s.confidence, s.signal_count AS "signalCount", s.computed_at AS "computedAt"
       FROM response_scores s JOIN responses r ON r.workspace_id = s.workspace_id AND r.id = s.response_id
      WHERE s.workspace_id = $1 AND r.user_id = $2 ORDER BY s.response_id LIMIT $3`,
    p,
  );
  const dailyStats = await db.query(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, sums FROM feedback_user_stats_daily WHERE workspace_id = $1 AND user_id = $2 ORDER BY day LIMIT $3`,
    p,
  );
  const lists = [responses, events, signals, scores, dailyStats];
  const truncated = lists.some((l) => l.length > USER_DATA_ROW_LIMIT);
  const cut = (l: unknown[]): unknown[] => l.slice(0, USER_DATA_ROW_LIMIT);
  return {
    userId,
    generatedAt: new Date().toISOString(),
    consent: await readConsent(db, workspaceId, userId),
    responses: cut(responses),
    events: cut(events),
    signals: cut(signals),
    scores: cut(scores),
    dailyStats: cut(dailyStats),
    truncated,
  };
}
