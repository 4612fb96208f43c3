/**
 * The processing transaction: claim events from the outbox, run the stages (and classify the
 * corrections for the insights report), and write every database effect in the same transaction
 * (signals, the response list's tags, document tallies, hourly alert counts, rollup and rescore marks,
 * webhook deliveries, embedded live counters, and the outbox row of effects outside the
 * database). The claim and the signal rows make it exactly once: a replayed job finds nothing
 * left to claim.
 */
import type { SqlClient, SqlExecutor } from '../db/sql-client.js';
import { sumJsonbCounts } from '../db/sum-jsonb-counts.js';
import { createDeliveries } from '../emit/webhook-store.js';
import { addCountedTags } from '../store/response-list-tags.js';
import { addClaimConfidence } from './claim-confidence-messages.js';
import { classifyClaimedCorrections } from './classify-corrections.js';
import { addHourlyCounts } from './hourly-counts.js';
import { claimEvents } from './load-claimed.js';
import { SqlLiveCounters } from './live-counter-store.js';
import type { EventKey } from './pipeline-jobs.js';
import { MAX_ERROR_LENGTH, runStages, type StageOutput } from './run-stages.js';
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
    const claimed = await claimEvents(tx, keys);
    const report: ProcessReport = { claimed: claimed.length, counted: 0, dropped: 0, failed: 0, effectId: null, deliveryIds: [], heldMs: 0 };
    if (claimed.length === 0) return report;
    const out = runStages(claimed, now);
    await classifyClaimedCorrections(claimed, out.signals);
    await addSchemaTables(claimed, out.signals, out.messages);
    for (const s of out.signals) report[s.status === 'counted' ? 'counted' : s.status === 'dropped' ? 'dropped' : 'failed']++;
    await insertSignals(tx, out);
    await addCountedTags(
      tx,
      out.signals.filter((s) => s.status === 'counted').map((s) => ({ workspaceId: s.workspace_id, responseId: s.response_id, polarity: s.polarity, categories: s.categories })),
    );
    await markDirty(tx, out);
    await addDocumentTallies(tx, out);
    await addHourlyCounts(tx, out.hourly);
    if (options.counters.kind === 'sql') await options.counters.store.add(tx, out.counters);
    await addClaimConfidence(tx, out.messages);
    report.deliveryIds = out.messages.length > 0 ? await createDeliveries(tx, out.messages) : [];
    report.effectId = await insertEffects(tx, out, options);
    report.heldMs = performance.now() - started;
    return report;
  }, { background: true });
}

async function insertSignals(tx: SqlExecutor, out: StageOutput): Promise<void> {
  await tx.query(
    `INSERT INTO feedback_signals (workspace_id, event_id, response_id, user_id, session_id, type, status, drop_reason, error,
                                   polarity, severity, categories, signal_class, value, weight, first_pass, learning_signal, correction, occurred_at, sample_weight)
     SELECT workspace_id, event_id, response_id, user_id, session_id, type, status, drop_reason, error, polarity, severity,
            categories, signal_class, value, weight, first_pass, learning_signal, correction, occurred_at, sample_weight
       FROM json_to_recordset($1::json) AS x(workspace_id text, event_id text, response_id text, user_id text, session_id text,
            type text, status text, drop_reason text, error text, polarity text, severity text, categories text[], signal_class text,
            value double precision, weight double precision, first_pass boolean, learning_signal jsonb, correction jsonb, occurred_at timestamptz,
            sample_weight real)`,
    [JSON.stringify(out.signals)],
    { prepare: true },
  );
}

async function addDocumentTallies(tx: SqlExecutor, out: StageOutput): Promise<void> {
  const rows = out.documents
    .flatMap(({ workspaceId, tallies }) => tallies.map((t) => ({ ws: workspaceId, ...t })))
    .sort((a, b) => (a.ws === b.ws ? (a.documentId < b.documentId ? -1 : 1) : a.ws < b.ws ? -1 : 1));
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO document_effectiveness AS d (workspace_id, document_id, positive, negative, neutral, weighted_value, weight, error_category_counts, updated_at)
     SELECT ws, "documentId", positive, negative, neutral, "weightedValue", weight, "errorCategoryCounts", now()
       FROM json_to_recordset($1::json) AS x(ws text, "documentId" text, positive int, negative int, neutral int,
            "weightedValue" double precision, weight double precision, "errorCategoryCounts" jsonb)
     ON CONFLICT (workspace_id, document_id) DO UPDATE
       SET positive = d.positive + EXCLUDED.positive, negative = d.negative + EXCLUDED.negative, neutral = d.neutral + EXCLUDED.neutral,
           weighted_value = d.weighted_value + EXCLUDED.weighted_value, weight = d.weight + EXCLUDED.weight,
           error_category_counts = ${sumJsonbCounts('d.error_category_counts', 'EXCLUDED.error_category_counts')},
           updated_at = now()`,
    [JSON.stringify(rows)],
    { prepare: true },
  );
}

/**
 * Marks the days to roll up and the responses to rescore, bumping the version of a mark that is
 * already there (see the migration): the rollup and the rescore then know it changed under them.
 */
async function markDirty(tx: SqlExecutor, out: StageOutput): Promise<void> {
  if (out.dirtyDays.length > 0) {
    await tx.query(
      `INSERT INTO rollup_dirty AS d (workspace_id, day)
       SELECT ws, day::date FROM json_to_recordset($1::json) AS x(ws text, day text) ORDER BY ws, day
       ON CONFLICT (workspace_id, day) DO UPDATE SET version = d.version + 1`,
      [JSON.stringify(out.dirtyDays.map((d) => ({ ws: d.workspaceId, day: d.day })))],
      { prepare: true },
    );
  }
  if (out.responses.length > 0) {
    await tx.query(
      `INSERT INTO score_dirty AS d (workspace_id, response_id)
       SELECT ws, rid FROM json_to_recordset($1::json) AS x(ws text, rid text) ORDER BY ws, rid
       ON CONFLICT (workspace_id, response_id) DO UPDATE SET version = d.version + 1`,
      [JSON.stringify(out.responses.map((r) => ({ ws: r.workspaceId, rid: r.responseId })))],
      { prepare: true },
    );
  }
}

async function insertEffects(tx: SqlExecutor, out: StageOutput, options: ProcessOptions): Promise<number | null> {
  const counters = options.counters.kind === 'outbox' && Object.keys(out.counters).length > 0 ? out.counters : null;
  const messages = options.stream && out.messages.length > 0 ? out.messages : null;
  if (counters === null && messages === null) return null;
  const [row] = await tx.query<{ id: number }>(
    `INSERT INTO pipeline_effects (counters, messages, counters_done, messages_done) VALUES ($1::jsonb, $2::jsonb, $3, $4) RETURNING id`,
    [JSON.stringify(counters), JSON.stringify(messages), counters === null, messages === null],
    { prepare: true },
  );
  return row ? Number(row.id) : null;
}

/**
 * Moves one event aside as failed, with its error, when its processing transaction fails for a
 * reason of its own (a poison event): it leaves the outbox and never blocks the rest.
 *
 * @returns whether the event was still pending.
 */
export async function markEventFailed(db: SqlClient, [workspaceId, eventId]: EventKey, error: string): Promise<boolean> {
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
