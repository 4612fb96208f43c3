/**
 * Learning signals are stored without what the response and the signal's own row already hold:
 * `input` is always the response's query and `actual_output` usually its answer; the context's ids,
 * type, user, session, polarity, severity and categories are columns of the same `feedback_signals`
 * row, and its other keys are left out while they hold their default (null, or an empty list).
 * Repeating them on every row doubled the cost of writing signals (34 µs of 53 µs a row at
 * 400-character answers), and the context's copies of the row were another quarter of the insert
 * on PGlite (docs/benchmarks.md, "Eighth session"). Readers get the whole signal back: from the row
 * ({@link withWholeContext}) and against the response ({@link expandLearningSignal}).
 */
import type { LearningSignal } from '@feedloop/core';

/** A learning signal as stored: `input` left out, `actual_output` only when it is not the answer, `context` only what the row lacks. */
export type StoredLearningSignal = Omit<LearningSignal, 'input' | 'actual_output' | 'context'> & { actual_output?: string; context?: Record<string, unknown> };

/** Context keys that are columns of the `feedback_signals` row (`event_type` is its `type`). */
const ROW_CONTEXT = new Set(['workspace_id', 'response_id', 'event_id', 'event_type', 'session_id', 'user_id', 'polarity', 'severity', 'categories']);

/** The other context keys, with the value a stored context leaves out (new lists on every call). */
const contextDefaults = (): Record<string, null | never[]> => ({
  model: null,
  agent: null,
  query_type: null,
  experiment_id: null,
  variant: null,
  context_document_ids: [],
  schema_tables: [],
  tenant_id: null,
});
const DEFAULT_KEYS = new Set(Object.keys(contextDefaults()));

const isDefault = (key: string, value: unknown): boolean => DEFAULT_KEYS.has(key) && (value === null || (Array.isArray(value) && value.length === 0));

/**
 * Drops what the response and the signal's row hold, and the context's default values.
 *
 * @example
 * compactLearningSignal(signal, response.answer) // { signal_type, expected_output, reward, context: { model: 'gpt-4o' } }
 */
export function compactLearningSignal(signal: LearningSignal, answer: string): StoredLearningSignal {
  const { input: _input, actual_output, context, ...rest } = signal;
  const kept = Object.fromEntries(Object.entries(context).filter(([key, value]) => !ROW_CONTEXT.has(key) && !isDefault(key, value)));
  return {
    ...rest,
    ...(actual_output === answer ? {} : { actual_output }),
    ...(Object.keys(kept).length > 0 ? { context: kept } : {}),
  };
}

/** Which event a signal is of: the ids and type a stored context leaves out. */
export interface SignalEvent {
  workspaceId: string;
  responseId: string;
  eventId: string;
  type: string;
}

/** The signal row's own columns a stored context leaves out (beyond its {@link SignalEvent}), as `s_*` columns of `feedback_signals` row `alias`. */
export const signalFactColumns = (alias: string): string =>
  `${alias}.session_id AS s_session_id, ${alias}.user_id AS s_user_id, ${alias}.polarity AS s_polarity, ${alias}.severity AS s_severity, ${alias}.categories AS s_categories`;

/** The names {@link signalFactColumns} gives its columns, as columns of `alias` (an outer query's). */
export const signalFactNames = (alias: string): string =>
  `${alias}.s_session_id, ${alias}.s_user_id, ${alias}.s_polarity, ${alias}.s_severity, ${alias}.s_categories`;

/** The columns {@link signalFactColumns} selects. */
export interface SignalFactRow {
  s_session_id: string | null;
  s_user_id: string | null;
  s_polarity: string | null;
  s_severity: string | null;
  s_categories: string[] | null;
}

/**
 * A stored learning signal with its whole context back: its event, the signal row's columns and the defaults,
 * under what the stored context holds (a signal stored before the compact form keeps its own).
 *
 * @example
 * withWholeContext(row.learning_signal, { workspaceId, responseId, eventId: row.id, type: row.type }, row).context.user_id
 */
export function withWholeContext(stored: StoredLearningSignal, event: SignalEvent, signal: SignalFactRow): ReadLearningSignal {
  const context: Record<string, unknown> = {
    workspace_id: event.workspaceId,
    response_id: event.responseId,
    event_id: event.eventId,
    event_type: event.type,
    session_id: signal.s_session_id,
    user_id: signal.s_user_id,
    polarity: signal.s_polarity,
    severity: signal.s_severity,
    categories: signal.s_categories ?? [],
    ...contextDefaults(),
    ...stored.context,
  };
  return { ...stored, context };
}

/** A learning signal with its whole context ({@link withWholeContext}). */
export type ReadLearningSignal = StoredLearningSignal & { context: Record<string, unknown> };

/**
 * Puts back what the response holds (`input`, `actual_output`) into a signal with its whole context.
 *
 * @example
 * expandLearningSignal(stored, response) // the signal as emitted
 */
export function expandLearningSignal(stored: ReadLearningSignal, response: { query: string; answer: string }): LearningSignal {
  // Built field by field: jsonb keeps keys in its own order, the seed's order reads better.
  return {
    signal_type: stored.signal_type,
    input: response.query,
    expected_output: stored.expected_output,
    actual_output: stored.actual_output ?? response.answer,
    reward: stored.reward,
    context: stored.context,
  };
}
