/**
 * The stages between claim and write, composed: dedup → enrich → classify → weigh → learning
 * signal, and what the apply and emit stages need from them (counter fields, document tallies,
 * outbound messages, days to roll up, responses to rescore). Pure: the processing transaction
 * loads its input and writes its output.
 */
import {
  addCounterDeltas,
  classify,
  dedupStage,
  documentTallies,
  enrich,
  isUserSource,
  sourceOfEvent,
  learningSignal,
  liveCounterFields,
  outboundMessageId,
  ratedCounterFields,
  utcDay,
  storedSignalWeight,
  type Classification,
  type CounterDeltas,
  type DocumentTally,
  type LearningSignal,
  type OutboundMessage,
} from '@feedloop/core';
import { FeedloopError, storedFailure } from '../errors.js';
import type { StoredCorrectionClass } from '../store/correction-class.js';
import type { SignalRow } from '../store/feedback-signals.js';
import { compactLearningSignal } from '../store/stored-learning-signal.js';
import type { HourlyDelta } from '../store/hourly-metrics.js';
import { addHourlyDelta } from './hourly-counts.js';
import type { ClaimedEvent } from '../store/claimed-events.js';

/** Everything a batch's processing transaction writes. */
export interface StageOutput {
  signals: SignalRow[];
  counters: CounterDeltas;
  /** Per workspace, sorted by document id. */
  documents: Array<{ workspaceId: string; tallies: DocumentTally[] }>;
  messages: OutboundMessage[];
  dirtyDays: Array<{ workspaceId: string; day: string }>;
  /** Responses whose composite score changes. */
  responses: Array<{ workspaceId: string; responseId: string }>;
  /** What counted events add to their workspace-hours (quality alerts' windows). */
  hourly: HourlyDelta[];
}

/**
 * Runs the stages over a batch. An event whose stages throw is marked `failed` with the error's
 * code and message ({@link storedFailure}) and never stops the others.
 *
 * @example
 * const out = runStages(claimed, new Date());
 * out.signals.length === claimed.length // one row per event, whatever became of it
 */
export function runStages(claimed: readonly ClaimedEvent[], asOf: Date): StageOutput {
  const out: StageOutput = { signals: [], counters: {}, documents: [], messages: [], dirtyDays: [], responses: [], hourly: [] };
  const hourly = new Map<string, HourlyDelta>();
  const docItems = new Map<string, Parameters<typeof documentTallies>[0][number][]>();
  const dirty = new Set<string>();
  const rescore = new Set<string>();

  for (const c of claimed) {
    const { event } = c;
    const base = baseRow(c);
    // Live counters count under the event's own day (occurredAt, which ingest defaults to receipt),
    // the rollups' day rule, so an import or a late flush never lands on today's card.
    const counterDay = utcDay(event.occurredAt ?? event.receivedAt);
    const dedup = dedupStage(event);
    if (!dedup.keep) {
      out.signals.push({ ...base, status: 'dropped', drop_reason: dedup.reason });
      addCounterDeltas(out.counters, event.workspaceId, counterDay, liveCounterFields({ type: event.type, polarity: 'neutral', severity: 'none', status: 'dropped' }));
      continue;
    }
    let classification: Classification;
    let signal: LearningSignal;
    let weight: number;
    let sessionId: string | null;
    let userId: string | null;
    try {
      if (!c.response) throw new FeedloopError('FEEDLOOP_ERR_RESPONSE_NOT_FOUND', `response ${JSON.stringify(event.responseId)} not found in workspace ${event.workspaceId}`);
      const enriched = enrich(event, c.response);
      classification = classify(enriched, c.settings);
      // A sampled implicit signal stands for 1 / rate of its kind (ingest/privacy-screen.ts); a
      // judge's weighs by its evaluator's current factor, the composite score's rule (core).
      weight = storedSignalWeight(
        { signalClass: classification.signalClass, polarity: classification.polarity, source: sourceOfEvent(event), ...(c.judgeWeightFactor === undefined ? {} : { judgeWeightFactor: c.judgeWeightFactor }) },
        c.sampleWeight,
        c.settings,
      );
      signal = learningSignal(enriched, classification);
      ({ sessionId, userId } = enriched);
    } catch (err) {
      // A code and one short line: `GET /v1/pipeline` serves it, and a stack names our files.
      out.signals.push({ ...base, status: 'failed', error: storedFailure(err) });
      continue;
    }
    out.signals.push({
      ...base,
      user_id: userId,
      session_id: sessionId,
      status: 'counted',
      polarity: classification.polarity,
      severity: classification.severity,
      categories: classification.categories,
      signal_class: classification.signalClass,
      value: classification.value,
      weight,
      first_pass: classification.firstPass,
      learning_signal: compactLearningSignal(signal, c.response.answer),
    });
    addCounterDeltas(
      out.counters,
      event.workspaceId,
      counterDay,
      liveCounterFields({ type: event.type, polarity: classification.polarity, severity: classification.severity, status: 'counted', source: sourceOfEvent(event) }),
    );
    // The hourly counts (alerts) and document effectiveness are what users said: a reviewer's or
    // a judge's verdict is counted by source (live counters, rollup) and weighed in the score only.
    const byUser = isUserSource(sourceOfEvent(event));
    if (byUser) addHourlyDelta(hourly, event.workspaceId, { type: event.type, polarity: classification.polarity, categories: classification.categories, occurredAt: event.occurredAt });
    // A label action names a part of the response (a fragment, an edge, a page): it says nothing
    // about the response's other documents, so it is not spread over them (docs/documents.md).
    if (byUser && c.documentIds.length > 0 && event.targetId === null) {
      const items = docItems.get(event.workspaceId) ?? [];
      items.push({ documentIds: c.documentIds, polarity: classification.polarity, value: classification.value, weight, categories: classification.categories });
      docItems.set(event.workspaceId, items);
    }
    out.messages.push(...messagesOf(c, classification, signal, weight, asOf));
    // The event's day; for a correction or an escalation also its response's registration day,
    // whose correction and escalation rates it changes.
    const days = [utcDay(event.occurredAt)];
    if ((event.type === 'correction' || event.type === 'escalation') && c.response) days.push(utcDay(c.response.createdAt));
    for (const day of days) {
      if (!dirty.has(`${event.workspaceId}\u0000${day}`)) {
        dirty.add(`${event.workspaceId}\u0000${day}`);
        out.dirtyDays.push({ workspaceId: event.workspaceId, day });
      }
    }
    addCounterDeltas(out.counters, event.workspaceId, days[0] ?? counterDay, ratedCounterFields(event.type, classification.polarity, event.source));
    if (!rescore.has(`${event.workspaceId}\u0000${event.responseId}`)) {
      rescore.add(`${event.workspaceId}\u0000${event.responseId}`);
      out.responses.push({ workspaceId: event.workspaceId, responseId: event.responseId });
    }
  }
  for (const [workspaceId, items] of docItems) out.documents.push({ workspaceId, tallies: documentTallies(items) });
  out.hourly = [...hourly.values()];
  return out;
}

function baseRow(c: ClaimedEvent): SignalRow {
  const { event } = c;
  return {
    workspace_id: event.workspaceId,
    event_id: event.id,
    response_id: event.responseId,
    user_id: event.userId,
    session_id: event.sessionId,
    type: event.type,
    status: 'failed',
    drop_reason: null,
    error: null,
    polarity: null,
    severity: null,
    categories: [],
    signal_class: null,
    value: null,
    weight: null,
    first_pass: null,
    learning_signal: null,
    correction: null,
    occurred_at: event.occurredAt.toISOString(),
    sample_weight: c.sampleWeight === 1 ? null : c.sampleWeight,
  };
}

/** The label actions that change a target's state and so send `target.corrected`. */
const TARGET_CORRECTIONS: ReadonlySet<string> = new Set(['correct_label', 'correct_citation', 'flag_irrelevant', 'flag_missing']);

/** The `feedback.submitted` event (the ADR-016 event, with what the pipeline made of it) and the learning signal. */
function messagesOf(c: ClaimedEvent, cls: Classification, signal: LearningSignal, weight: number, asOf: Date): OutboundMessage[] {
  const { event } = c;
  const createdAt = asOf.toISOString();
  // ADR-0012: a correction of a target lets its owner recompute what depends on it (a claim's confidence).
  const corrected: OutboundMessage[] =
    event.targetId !== null && TARGET_CORRECTIONS.has(event.type)
      ? [
          {
            id: outboundMessageId('target.corrected', event.id),
            type: 'target.corrected',
            workspaceId: event.workspaceId,
            createdAt,
            data: { eventId: event.id, targetId: event.targetId, action: event.type, payload: event.payload, responseId: event.responseId, userId: event.userId, occurredAt: event.occurredAt.toISOString() },
          },
        ]
      : [];
  return [
    ...corrected,
    {
      id: outboundMessageId('feedback.submitted', event.id),
      type: 'feedback.submitted',
      workspaceId: event.workspaceId,
      createdAt,
      data: {
        eventId: event.id,
        responseId: event.responseId,
        type: event.type,
        source: event.source,
        userId: event.userId,
        sessionId: event.sessionId ?? c.response?.sessionId ?? null,
        targetId: event.targetId,
        payload: event.payload,
        editDistance: event.editDistance,
        occurredAt: event.occurredAt.toISOString(),
        polarity: cls.polarity,
        severity: cls.severity,
        categories: cls.categories,
        value: cls.value,
        weight,
      },
    },
    {
      id: outboundMessageId('learning.signal', event.id),
      type: 'learning.signal',
      workspaceId: event.workspaceId,
      createdAt,
      data: { eventId: event.id, responseId: event.responseId, ...signal },
    },
  ];
}
