/**
 * What the pipeline learned about one response: its composite score with the conflicts found,
 * and the learning signals of its events.
 */
import type { LearningSignal, SignalConflict } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import { expandLearningSignal, signalFactColumns, withWholeContext, type SignalFactRow, type StoredLearningSignal } from './stored-learning-signal.js';

/** A response's composite quality as the API shows it. */
export interface ResponseQualityView {
  /** In [-1, 1]; null until a signal with weight arrives. */
  score: number | null;
  confidence: number;
  weightSum: number;
  signalCount: number;
  conflicts: SignalConflict[];
  computedAt: string;
}

/** A learning signal with the event it came from. */
export type LearningSignalView = LearningSignal & { eventId: string };

/** Learning signals shown with a response at most. */
const SIGNALS_WITH_RESPONSE = 1_000;

/**
 * The quality of a response, null when no event of it is processed yet, and its learning
 * signals, oldest first.
 *
 * @example
 * const { quality, learningSignals } = await getResponseQuality(db, ws, response);
 */
export async function getResponseQuality(
  db: SqlExecutor,
  workspaceId: string,
  response: { id: string; query: string; answer: string },
): Promise<{ quality: ResponseQualityView | null; learningSignals: LearningSignalView[] }> {
  const [scores, signals] = await Promise.all([
    db.query<{ score: number | null; confidence: number; weight_sum: number; signal_count: number; conflicts: SignalConflict[]; computed_at: Date }>(
      'SELECT score, confidence, weight_sum, signal_count, conflicts, computed_at FROM response_scores WHERE workspace_id = $1 AND response_id = $2',
      [workspaceId, response.id],
    ),
    db.query<{ event_id: string; type: string; learning_signal: StoredLearningSignal } & SignalFactRow>(
      `SELECT s.event_id, s.type, s.learning_signal, ${signalFactColumns('s')} FROM feedback_signals s
        WHERE workspace_id = $1 AND response_id = $2 AND status = 'counted' ORDER BY occurred_at, event_id LIMIT $3`,
      [workspaceId, response.id, SIGNALS_WITH_RESPONSE],
    ),
  ]);
  const s = scores[0];
  return {
    quality: s
      ? { score: s.score, confidence: s.confidence, weightSum: s.weight_sum, signalCount: s.signal_count, conflicts: s.conflicts, computedAt: s.computed_at.toISOString() }
      : null,
    learningSignals: signals.map((r) => ({
      eventId: r.event_id,
      ...expandLearningSignal(withWholeContext(r.learning_signal, { workspaceId, responseId: response.id, eventId: r.event_id, type: r.type }, r), response),
    })),
  };
}
