/**
 * The insights stage of processing: each counted correction is classified once, here, and the
 * result is stored on its signal row (`feedback_signals.correction`, migration 0021), so the
 * insights report reads it instead of parsing SQL on every request (store/correction-class.ts).
 * Not in runStages: that is pure and synchronous, and the SQL grammars load asynchronously (and
 * only when a batch has an SQL correction).
 */
import { correctedPair } from '@feedloop/core';
import { classifyCorrections, cutText, toStoredClass } from '../store/correction-class.js';
import type { ClaimedEvent } from '../store/claimed-events.js';
import type { SignalRow } from '../store/feedback-signals.js';

/**
 * Sets `correction` on the counted corrections' signal rows, from the texts the report would
 * read: `original` (else the response's answer) and `corrected`, cut to the report's length. A
 * correction whose classification fails keeps null (the report then classifies it itself): it
 * never fails the event.
 *
 * @example
 * const out = runStages(claimed, now);
 * await classifyClaimedCorrections(claimed, out.signals);
 */
export async function classifyClaimedCorrections(claimed: readonly ClaimedEvent[], signals: readonly SignalRow[]): Promise<void> {
  const rows = signals.filter((s) => s.status === 'counted' && s.type === 'correction');
  if (rows.length === 0) return;
  const byKey = new Map(claimed.map((c) => [`${c.event.workspaceId}\u0000${c.event.id}`, c]));
  const todo: Array<{ row: SignalRow; original: string; corrected: string; format: string | null }> = [];
  for (const row of rows) {
    const c = byKey.get(`${row.workspace_id}\u0000${row.event_id}`);
    if (!c || c.event.type !== 'correction') continue;
    const pair = correctedPair(c.event, c.response?.answer);
    if (pair === undefined) continue;
    todo.push({ row, original: cutText(pair.original), corrected: cutText(pair.corrected), format: c.event.payload.format ?? null });
  }
  let classified: Awaited<ReturnType<typeof classifyCorrections>>;
  try {
    classified = await classifyCorrections(todo.map((t) => ({ eventId: t.row.event_id, original: t.original, corrected: t.corrected, format: t.format })));
  } catch {
    // The grammars did not load (a broken install): the events still count, the report classifies them.
    return;
  }
  for (const [i, cls] of classified.entries()) {
    const t = todo[i];
    if (t && cls) t.row.correction = toStoredClass(cls);
  }
}
