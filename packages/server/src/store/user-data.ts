/**
 * Transparency (`GET /v1/users/:userId/data`, GDPR art. 15): everything stored about one end
 * user in a workspace, as a readable JSON document.
 */
import { expandSums, type StatsSums } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import { readConsent, type ConsentView } from './consent.js';
import { signalFactColumns, withWholeContext, type SignalFactRow, type StoredLearningSignal } from './stored-learning-signal.js';

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
 * Speed (docs/dashboard.md, 10 M events): responses have no index by user, so the user's response
 * ids are read in one scan and every other read goes by key: their responses by primary key, the
 * events by the user index and the response index (two index reads, not a walk of the workspace's
 * whole log filtered by `user_id = … OR response_id IN …`), the scores by primary key, the signals
 * through their events. A signal's user is its event's, else (counted) its response's, so the
 * user's signals are those of their own events and the counted ones on their responses.
 *
 * @example
 * const doc = await readUserData(db, ws, 'u1'); // doc.events.length
 */
export async function readUserData(db: SqlExecutor, workspaceId: string, userId: string): Promise<UserDataDocument> {
  const limit = USER_DATA_ROW_LIMIT + 1;
  const p = [workspaceId, userId, limit];
  const [owned] = await db.query<{ ids: string[] | null }>('SELECT array_agg(id) AS ids FROM responses WHERE workspace_id = $1 AND user_id = $2', [
    workspaceId,
    userId,
  ]);
  const ids = owned?.ids ?? [];
  const responses = await db.query(
    `SELECT id, session_id AS "sessionId", query, answer, sources, context_document_ids AS "contextDocumentIds", model, agent,
            query_type AS "queryType", experiment_id AS "experimentId", variant, trace_id AS "traceId", metadata,
            created_at AS "createdAt", received_at AS "receivedAt"
       FROM responses WHERE workspace_id = $1 AND id = ANY($2::text[]) ORDER BY created_at, id LIMIT $3`,
    [workspaceId, ids, limit],
  );
  const events = await db.query(
    `SELECT e.id, e.response_id AS "responseId", e.type, e.source, e.user_id AS "userId", e.session_id AS "sessionId", e.target_id AS "targetId",
            e.payload, e.metadata, e.edit_distance AS "editDistance", e.occurred_at AS "occurredAt", e.received_at AS "receivedAt"
       FROM (SELECT * FROM feedback_events WHERE workspace_id = $1 AND user_id = $2
             UNION ALL
             SELECT * FROM feedback_events WHERE workspace_id = $1 AND response_id = ANY($4::text[]) AND user_id IS DISTINCT FROM $2) e
      ORDER BY e.seq LIMIT $3`,
    [...p, ids],
  );
  const storedSignals = await db.query<{ eventId: string; responseId: string; type: string; learningSignal: StoredLearningSignal | null } & SignalFactRow>(
    `SELECT event_id AS "eventId", response_id AS "responseId", type, status, polarity, severity, categories, signal_class AS "signalClass",
            value, weight, learning_signal AS "learningSignal", correction, occurred_at AS "occurredAt", processed_at AS "processedAt",
            ${signalFactColumns('feedback_signals')}
       FROM feedback_signals
      WHERE workspace_id = $1 AND user_id = $2
        AND event_id IN (SELECT id FROM feedback_events WHERE workspace_id = $1 AND user_id = $2
                         UNION ALL
                         SELECT event_id FROM feedback_signals WHERE workspace_id = $1 AND response_id = ANY($4::text[]) AND status = 'counted')
      ORDER BY occurred_at, event_id LIMIT $3`,
    [...p, ids],
  );
  // The learning signal's context whole, as it was emitted (stored without what the row holds).
  const signals = storedSignals.map(({ s_session_id, s_user_id, s_polarity, s_severity, s_categories, ...s }) => ({
    ...s,
    learningSignal: s.learningSignal && withWholeContext(s.learningSignal, { workspaceId, responseId: s.responseId, eventId: s.eventId, type: s.type }, { s_session_id, s_user_id, s_polarity, s_severity, s_categories }),
  }));
  const scores = await db.query(
    `SELECT response_id AS "responseId", score, confidence, signal_count AS "signalCount", computed_at AS "computedAt"
       FROM response_scores WHERE workspace_id = $1 AND response_id = ANY($2::text[]) ORDER BY response_id LIMIT $3`,
    [workspaceId, ids, limit],
  );
  // Stored compacted (core's compactSums): the document shows every measure.
  const dailyStats = (
    await db.query<{ day: string; sums: Partial<StatsSums> }>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, sums FROM feedback_user_stats_daily WHERE workspace_id = $1 AND user_id = $2 ORDER BY day LIMIT $3`,
      p,
    )
  ).map((r) => ({ day: r.day, sums: expandSums(r.sums) }));
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
