/**
 * The processing transaction: claim events from the outbox, run the stages (and classify the
 * corrections for the insights report), and write every database effect in the same transaction
 * (signals, the response list's tags, document tallies, hourly alert counts, rollup and rescore marks,
 * webhook deliveries, embedded live counters, review queue items their rules now match, and the
 * outbox row of effects outside the database). The claim and the signal rows make it exactly once: a replayed job finds nothing
 * left to claim.
 */
import { isUserSource, mergeCounterDeltas, sourceOfEvent } from '@feedloop/core';
import type { SqlClient } from '../db/sql-client.js';
import { createDeliveries } from '../store/webhooks.js';
import { markDaysDirty } from '../store/day-rollups.js';
import { addDocumentTallies } from '../store/document-effectiveness.js';
import { insertSignals, markSignalsRetracted } from '../store/feedback-signals.js';
import { insertEffect } from '../store/pipeline-effects.js';
import { addCountedTags, recomputeTags, responseKey, type KnownResponseTags, type KnownTags } from '../store/response-list-tags.js';
import { markResponsesDirty } from '../store/response-scores.js';
import { addClaimConfidence } from './claim-confidence-messages.js';
import { classifyClaimedCorrections } from './classify-corrections.js';
import { addHourlyCounts } from '../store/hourly-metrics.js';
import { claimEvents, type ClaimedEvent } from '../store/claimed-events.js';
import { SqlLiveCounters } from '../store/live-counters.js';
import type { EventKey } from './pipeline-jobs.js';
import { reverseRetracted } from './retraction.js';
import { addRuleMatches } from './review-rules.js';
import { runStages } from './run-stages.js';
import { addSchemaTables } from './signal-schema-tables.js';

/** Where live counters go: in the transaction (embedded) or through the outbox (Redis). */
export type CounterTarget = { kind: 'sql'; store: SqlLiveCounters } | { kind: 'outbox' };

/** How a batch is processed. */
export interface ProcessOptions {
  counters: CounterTarget;
  /** Whether messages go to a stream (they are then kept in the outbox until published). */
  stream: boolean;
  now?: Date;
}

/** What one processing transaction did. */
export interface ProcessReport {
  claimed: number;
  counted: number;
  dropped: number;
  failed: number;
  /** Counted events retracted since, whose counting this transaction took back (retraction.ts). */
  retracted: number;
  /** The outbox row of effects outside the database, to apply after commit. */
  effectId: number | null;
  /** Webhook deliveries made, to deliver after commit. */
  deliveryIds: number[];
  /** How long the transaction held the database, from its first statement to its last (ms). */
  heldMs: number;
}

/** This module's URL: the embedded database's thread imports it to run {@link processEventsHere}. */
export const PROCESS_EVENTS_MODULE = import.meta.url;

/**
 * {@link processEvents} with its options as plain data, for `SqlClient.runInThread`: the embedded
 * pipeline's transaction runs in the database's thread, its statements never waiting between one
 * another for the requests' event loop (under load, a quarter of the transaction's time).
 *
 * @example
 * await db.runInThread(PROCESS_EVENTS_MODULE, 'processEventsHere', [keys, { counters: 'sql', stream: false }]);
 */
export function processEventsHere(db: SqlClient, keys: readonly EventKey[], options: { counters: CounterTarget['kind']; stream: boolean }): Promise<ProcessReport> {
  const counters: CounterTarget = options.counters === 'sql' ? { kind: 'sql', store: new SqlLiveCounters(db) } : { kind: 'outbox' };
  return processEvents(db, keys, { counters, stream: options.stream });
}

/**
 * Processes the given events, those not yet processed, in one transaction.
 *
 * @example
 * const report = await processEvents(db, [['ws_1', '0190…']], { counters: { kind: 'outbox' }, stream: false });
 */
export async function processEvents(db: SqlClient, keys: readonly EventKey[], options: ProcessOptions): Promise<ProcessReport> {
  const now = options.now ?? new Date();
  return db.transaction(async (tx) => {
    const started = performance.now();
    const claimed = await claimEvents(tx, keys, db.dialect === 'pglite');
    const report: ProcessReport = { ...emptyReport(), claimed: claimed.length };
    if (claimed.length === 0) return report;
    // A retracted event processed before comes back to be reversed; the others are processed.
    const undo = reverseRetracted(claimed.filter((c) => c.prior !== null && c.event.retracted === true));
    const out = runStages(
      claimed.filter((c) => c.prior === null),
      now,
    );
    report.retracted = undo.signals.length;
    await markSignalsRetracted(tx, undo.signals);
    await recomputeTags(tx, undo.responses);
    await classifyClaimedCorrections(claimed, out.signals);
    await addSchemaTables(claimed, out.signals, out.messages);
    for (const s of out.signals) report[s.status === 'counted' ? 'counted' : s.status === 'dropped' ? 'dropped' : 'failed']++;
    await insertSignals(tx, out.signals);
    // The list's rating, category and correction tags are what users said: a reviewer's or a judge's signal
    // tags nothing (the list counts it apart), though it does make its response no longer unrated.
    const attributed = new Set(claimed.filter((c) => !isUserSource(sourceOfEvent(c.event))).map((c) => `${c.event.workspaceId}\u0000${c.event.id}`));
    await addCountedTags(
      tx,
      out.signals
        .filter((s) => s.status === 'counted')
        .map((s) =>
          attributed.has(`${s.workspace_id}\u0000${s.event_id}`)
            ? { workspaceId: s.workspace_id, responseId: s.response_id, polarity: null, categories: [] }
            : { workspaceId: s.workspace_id, responseId: s.response_id, polarity: s.polarity, categories: s.categories, correction: s.type === 'correction' },
        ),
      knownTags(claimed, undo.responses),
    );
    // Review queue rules see the response as the list now shows it (its new tags included).
    await addRuleMatches(
      tx,
      out.signals.filter((s) => s.status === 'counted').map((s) => ({ workspaceId: s.workspace_id, responseId: s.response_id })),
    );
    out.counters = mergeCounterDeltas(out.counters, undo.counters);
    await addClaimConfidence(tx, out.messages);
    report.deliveryIds = out.messages.length > 0 ? await createDeliveries(tx, out.messages) : [];
    const counters = options.counters.kind === 'outbox' && Object.keys(out.counters).length > 0 ? out.counters : null;
    const messages = options.stream && out.messages.length > 0 ? out.messages : null;
    report.effectId = counters === null && messages === null ? null : await insertEffect(tx, { counters, messages });
    // Last, the rows that concurrent processing transactions share (today's dirty mark and hour
    // counts of a workspace, its documents' tallies, its busy responses' marks): a row written here
    // stays locked until the commit, and written earlier it made the other transactions wait for
    // the whole rest of this one (docs/benchmarks.md, "Fifth session"). Score marks before day
    // marks, as every other writer of both takes them, so that no two writers deadlock.
    await markResponsesDirty(tx, [...out.responses, ...undo.responses]);
    await addDocumentTallies(tx, [...out.documents, ...undo.documents]);
    await addHourlyCounts(tx, [...out.hourly, ...undo.hourly]);
    if (options.counters.kind === 'sql') await options.counters.store.add(tx, out.counters);
    await markDaysDirty(tx, [...out.dirtyDays, ...undo.dirtyDays]);
    report.heldMs = performance.now() - started;
    return report;
  }, { background: true, processing: true });
}

/**
 * The responses' tags as an exclusive claim read them; undefined (every tag written as on
 * Postgres) when the claim did not read them, or when this transaction recomputed some of those
 * responses' tags since (a retraction's reversal), so that what the claim read is no longer so.
 */
function knownTags(claimed: readonly ClaimedEvent[], recomputed: ReadonlyArray<{ workspaceId: string; responseId: string }>): KnownTags | undefined {
  const known = new Map<string, KnownResponseTags>();
  for (const c of claimed) {
    // Not read (a shared claim), or the response is gone (its events fail; nothing counted to tag).
    if (c.listTags === null) {
      if (c.response !== null) return undefined;
      continue;
    }
    known.set(responseKey(c.event.workspaceId, c.event.responseId), c.listTags);
  }
  if (recomputed.some((r) => known.has(responseKey(r.workspaceId, r.responseId)))) return undefined;
  return known;
}

/** A report of nothing processed yet, to add others to. */
export function emptyReport(): ProcessReport {
  return { claimed: 0, counted: 0, dropped: 0, failed: 0, retracted: 0, effectId: null, deliveryIds: [], heldMs: 0 };
}

/** Adds `one`'s counts and deliveries to `total` (effects are applied by the caller, one by one). */
export function addReport(total: ProcessReport, one: ProcessReport): void {
  total.claimed += one.claimed;
  total.counted += one.counted;
  total.dropped += one.dropped;
  total.failed += one.failed;
  total.retracted += one.retracted;
  total.heldMs += one.heldMs;
  total.deliveryIds.push(...one.deliveryIds);
}
