/**
 * The reversal of retracted events (issue 26): a retracted event that the pipeline had counted
 * comes back through the outbox, and this stage computes what takes its counting back out: its
 * live counter fields (moved from its polarity to `dropped`), its hourly alert counts, its
 * documents' tallies, and the days and responses to roll up and rescore again (the rollups and
 * scores then leave it out, as they leave out replaced votes). Pure; the processing transaction
 * (process-events.ts) writes the result with the fresh events' own.
 */
import {
  addCounterDeltas,
  documentTallies,
  isUserSource,
  sourceOfEvent,
  mergeCounterDeltas,
  ratedCounterFields,
  utcDay,
  type CounterDeltas,
  type DocumentTally,
  type Polarity,
} from '@feedloop/core';
import type { ClaimedEvent } from '../store/claimed-events.js';
import type { HourlyDelta } from '../store/hourly-metrics.js';
import { addHourlyDelta } from './hourly-counts.js';

/** What reversing a batch's retracted events writes. */
export interface RetractionOutput {
  /** Events whose counted signal becomes `dropped` (reason `retracted`). */
  signals: Array<{ workspaceId: string; eventId: string }>;
  counters: CounterDeltas;
  hourly: HourlyDelta[];
  documents: Array<{ workspaceId: string; tallies: DocumentTally[] }>;
  dirtyDays: Array<{ workspaceId: string; day: string }>;
  responses: Array<{ workspaceId: string; responseId: string }>;
}

const POLARITIES: ReadonlySet<string> = new Set(['positive', 'negative', 'neutral']);

/** The same counts with every number's sign turned (what was added, taken back). */
function negated<T extends object>(counts: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(counts)) {
    if (typeof v === 'number') out[k] = v === 0 ? 0 : -v;
    else if (v !== null && typeof v === 'object' && !Array.isArray(v)) out[k] = negated(v as object);
    else out[k] = v;
  }
  return out as T;
}

/**
 * Reverses the counted ones among claimed events that were processed before and are now
 * retracted; events that never counted (dropped, failed) need nothing.
 *
 * @example
 * const undo = reverseRetracted(claimed.filter((c) => c.prior !== null && c.event.retracted));
 * undo.signals // [{ workspaceId: 'ws_1', eventId: 'evt-1' }]
 */
export function reverseRetracted(claimed: readonly ClaimedEvent[]): RetractionOutput {
  const out: RetractionOutput = { signals: [], counters: {}, hourly: [], documents: [], dirtyDays: [], responses: [] };
  const taken: CounterDeltas = {};
  const dropped: CounterDeltas = {};
  const hourly = new Map<string, HourlyDelta>();
  const docItems = new Map<string, Parameters<typeof documentTallies>[0][number][]>();
  const days = new Set<string>();
  const rescore = new Set<string>();
  for (const c of claimed) {
    const { event, prior } = c;
    if (prior?.status !== 'counted' || prior.polarity === null || !POLARITIES.has(prior.polarity)) continue;
    const polarity = prior.polarity as Polarity;
    const ws = event.workspaceId;
    out.signals.push({ workspaceId: ws, eventId: event.id });
    const day = utcDay(event.occurredAt);
    // What liveCounterFields and ratedCounterFields gave it when it counted, taken back; it now counts as dropped.
    // Mirrors run-stages: a reviewer's or a judge's event counted by source only, not by polarity, hour or document.
    const byUser = isUserSource(sourceOfEvent(event));
    const fields = byUser
      ? [`polarity:${polarity}`, ...(prior.severity && prior.severity !== 'none' ? [`severity:${prior.severity}`] : []), ...ratedCounterFields(event.type, polarity)]
      : [`source:${sourceOfEvent(event)}`];
    if (byUser) fields.push(`source:${sourceOfEvent(event)}`);
    addCounterDeltas(taken, ws, day, fields);
    addCounterDeltas(dropped, ws, day, ['dropped']);
    if (byUser) addHourlyDelta(hourly, ws, { type: event.type, polarity, categories: prior.categories, occurredAt: event.occurredAt });
    if (byUser && c.documentIds.length > 0 && event.targetId === null) {
      const items = docItems.get(ws) ?? [];
      items.push({ documentIds: c.documentIds, polarity, value: prior.value ?? 0, weight: prior.weight ?? 0, categories: prior.categories });
      docItems.set(ws, items);
    }
    const touched = [day];
    if ((event.type === 'correction' || event.type === 'escalation') && c.response) touched.push(utcDay(c.response.createdAt));
    for (const d of touched) {
      if (days.has(`${ws}\u0000${d}`)) continue;
      days.add(`${ws}\u0000${d}`);
      out.dirtyDays.push({ workspaceId: ws, day: d });
    }
    if (!rescore.has(`${ws}\u0000${event.responseId}`)) {
      rescore.add(`${ws}\u0000${event.responseId}`);
      out.responses.push({ workspaceId: ws, responseId: event.responseId });
    }
  }
  out.counters = mergeCounterDeltas(negated(taken), dropped);
  out.hourly = [...hourly.values()].map(negated);
  for (const [workspaceId, items] of docItems) out.documents.push({ workspaceId, tallies: documentTallies(items).map(negated) });
  return out;
}
