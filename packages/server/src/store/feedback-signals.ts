/**
 * `feedback_signals`: one row per processed event, whatever became of it (counted, dropped as a
 * duplicate or by consent, failed), written by the processing transaction; the claim and this
 * row make processing exactly once.
 */
import type { SqlClient, SqlExecutor } from '../db/sql-client.js';
import type { StoredCorrectionClass } from './correction-class.js';
import type { StoredLearningSignal } from './stored-learning-signal.js';

/** Errors are kept this long at most in feedback_signals. */
export const MAX_ERROR_LENGTH = 2_000;

/** A row of feedback_signals, as processing writes it. */
export interface SignalRow {
  workspace_id: string;
  event_id: string;
  response_id: string;
  user_id: string | null;
  session_id: string | null;
  type: string;
  status: 'counted' | 'dropped' | 'failed';
  drop_reason: string | null;
  error: string | null;
  polarity: string | null;
  severity: string | null;
  categories: string[];
  signal_class: string | null;
  value: number | null;
  weight: number | null;
  first_pass: boolean | null;
  learning_signal: StoredLearningSignal | null;
  /** A counted correction's classification (set after the stages, by classifyClaimedCorrections). */
  correction: StoredCorrectionClass | null;
  occurred_at: string;
  /** 1 / the implicit sample rate the event was kept at; null: not sampled. */
  sample_weight: number | null;
}

/**
 * Inserts a batch's signal rows.
 *
 * @example
 * await insertSignals(tx, out.signals);
 */
export async function insertSignals(tx: SqlExecutor, signals: readonly SignalRow[]): Promise<void> {
  await tx.query(
    `INSERT INTO feedback_signals (workspace_id, event_id, response_id, user_id, session_id, type, status, drop_reason, error,
                                   polarity, severity, categories, signal_class, value, weight, first_pass, learning_signal, correction, occurred_at, sample_weight)
     SELECT workspace_id, event_id, response_id, user_id, session_id, type, status, drop_reason, error, polarity, severity,
            categories, signal_class, value, weight, first_pass, learning_signal, correction, occurred_at, sample_weight
       FROM json_to_recordset($1::json) AS x(workspace_id text, event_id text, response_id text, user_id text, session_id text,
            type text, status text, drop_reason text, error text, polarity text, severity text, categories text[], signal_class text,
            value double precision, weight double precision, first_pass boolean, learning_signal jsonb, correction jsonb, occurred_at timestamptz,
            sample_weight real)`,
    [JSON.stringify(signals)],
    { prepare: true },
  );
}

/**
 * Sets the stored weight of these signals (a judge's, when its evaluator's weight factor changed
 * since processing: the rescore keeps the stored weight and the composite score's in step).
 *
 * @example
 * await setSignalWeights(tx, [{ workspaceId: 'ws_1', eventId: 'judge-…', weight: 0.3 }]);
 */
export async function setSignalWeights(tx: SqlExecutor, signals: ReadonlyArray<{ workspaceId: string; eventId: string; weight: number }>): Promise<void> {
  if (signals.length === 0) return;
  await tx.query(
    `UPDATE feedback_signals s SET weight = x.weight
       FROM json_to_recordset($1::json) AS x("workspaceId" text, "eventId" text, weight double precision)
      WHERE s.workspace_id = x."workspaceId" AND s.event_id = x."eventId"`,
    [JSON.stringify(signals)],
  );
}

/**
 * Turns retracted events' counted signals into dropped ones (reason `retracted`), in the
 * processing transaction that reverses them: every read of counted signals then leaves them out.
 *
 * @example
 * await markSignalsRetracted(tx, [{ workspaceId: 'ws_1', eventId: 'evt-1' }]);
 */
export async function markSignalsRetracted(tx: SqlExecutor, events: ReadonlyArray<{ workspaceId: string; eventId: string }>): Promise<void> {
  if (events.length === 0) return;
  await tx.query(
    `UPDATE feedback_signals s SET status = 'dropped', drop_reason = 'retracted'
       FROM json_to_recordset($1::json) AS x("workspaceId" text, "eventId" text)
      WHERE s.workspace_id = x."workspaceId" AND s.event_id = x."eventId" AND s.status = 'counted'`,
    [JSON.stringify(events)],
  );
}

/**
 * Moves one pending event aside as failed, with its error, when its processing transaction fails
 * for a reason of its own (a poison event): it leaves the outbox and never blocks the rest.
 *
 * @returns whether the event was still pending.
 * @example
 * await failPendingEvent(db, 'ws_1', '0190…', 'FEEDLOOP_ERR_…: …') // true
 */
export async function failPendingEvent(db: SqlClient, workspaceId: string, eventId: string, error: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const rows = await tx.query(
      `WITH claimed AS (DELETE FROM pipeline_pending WHERE workspace_id = $1 AND event_id = $2 RETURNING workspace_id, event_id)
       INSERT INTO feedback_signals (workspace_id, event_id, response_id, user_id, session_id, type, status, error, occurred_at)
       SELECT e.workspace_id, e.id, e.response_id, e.user_id, e.session_id, e.type, 'failed', $3, e.occurred_at
         FROM claimed c
         JOIN feedback_event_ids k ON k.workspace_id = c.workspace_id AND k.id = c.event_id
         JOIN feedback_events e ON e.workspace_id = k.workspace_id AND e.seq = k.seq AND e.received_at = k.received_at
       ON CONFLICT DO NOTHING RETURNING event_id`,
      [workspaceId, eventId, error.slice(0, MAX_ERROR_LENGTH)],
    );
    return rows.length > 0;
  });
}
