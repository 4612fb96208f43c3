/**
 * The RLHF seed's `context.schema_tables` of a learning signal: the tables its response's SQL
 * answer, or its SQL correction, touches (issue 24). Not in runStages: that is pure and
 * synchronous, while the SQL grammars (the ones correction insights use) load asynchronously,
 * and only when a batch holds SQL at all.
 */
import { correctedPair, loadSqlGrammars, looksLikeSql, sqlTables, type OutboundMessage, type SqlGrammars } from '@feedloop/core';
import { cutText } from '../store/correction-class.js';
import type { ClaimedEvent } from '../store/claimed-events.js';
import type { SignalRow } from '../store/feedback-signals.js';

/** The SQL texts of one event: its correction's original and corrected query, else its response's answer. */
function sqlTextsOf(c: ClaimedEvent): string[] {
  const answer = c.response?.answer;
  if (c.event.type === 'correction') {
    const { original, corrected } = correctedPair(c.event, answer) ?? { original: '', corrected: c.event.payload.corrected };
    const { format } = c.event.payload;
    if (format === 'sql' || (format === undefined && looksLikeSql(original) && looksLikeSql(corrected))) return [cutText(original), cutText(corrected)];
    return [];
  }
  return answer !== undefined && looksLikeSql(answer) ? [cutText(answer)] : [];
}

/**
 * Sets `context.schema_tables` (sorted, distinct) on the counted signals' learning signals and on
 * the `learning.signal` messages of the same events. Parses each distinct text once; loads the
 * grammars only when some text is SQL. A failure to load them leaves the lists empty: it never
 * fails the events.
 *
 * @example
 * const out = runStages(claimed, now);
 * await addSchemaTables(claimed, out.signals, out.messages);
 */
export async function addSchemaTables(claimed: readonly ClaimedEvent[], signals: readonly SignalRow[], messages: readonly OutboundMessage[]): Promise<void> {
  const byKey = new Map(claimed.map((c) => [`${c.event.workspaceId}\u0000${c.event.id}`, c]));
  const todo: Array<{ row: SignalRow; texts: string[] }> = [];
  for (const row of signals) {
    if (row.learning_signal === null) continue;
    const c = byKey.get(`${row.workspace_id}\u0000${row.event_id}`);
    const texts = c ? sqlTextsOf(c) : [];
    if (texts.length > 0) todo.push({ row, texts });
  }
  if (todo.length === 0) return;
  let grammars: SqlGrammars;
  try {
    grammars = await loadSqlGrammars();
  } catch {
    return;
  }
  const parsed = new Map<string, string[]>();
  const tablesOf = (text: string): string[] => {
    let tables = parsed.get(text);
    if (!tables) {
      try {
        tables = sqlTables(text, grammars);
      } catch {
        tables = [];
      }
      parsed.set(text, tables);
    }
    return tables;
  };
  const byEvent = new Map<string, string[]>();
  for (const { row, texts } of todo) {
    const tables = [...new Set(texts.flatMap(tablesOf))].sort();
    // An empty list is the stored context's default (store/stored-learning-signal.ts).
    if (row.learning_signal && tables.length > 0) row.learning_signal.context = { ...row.learning_signal.context, schema_tables: tables };
    byEvent.set(`${row.workspace_id}\u0000${row.event_id}`, tables);
  }
  for (const m of messages) {
    if (m.type !== 'learning.signal') continue;
    const tables = byEvent.get(`${m.workspaceId}\u0000${String(m.data.eventId)}`);
    if (tables && typeof m.data.context === 'object' && m.data.context !== null) m.data.context = { ...(m.data.context as Record<string, unknown>), schema_tables: tables };
  }
}
