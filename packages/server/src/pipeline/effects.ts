/**
 * Applies the outbox's effects outside the database: live counters to Redis (idempotent on the
 * effect) and messages to the stream (idempotent through JetStream's message-id dedup).
 *
 * No transaction is open while Redis or the stream is called: a slow or absent NATS must never
 * hold a database connection or a row lock. An applier takes its rows in one statement that
 * leases them (SKIP LOCKED and an unexpired lease keep two appliers off the same row), calls the
 * targets, then records the outcome in another statement: rows fully applied are deleted, the
 * others keep the parts that were applied and are released for the sweep.
 */
import type { SqlClient } from '../db/sql-client.js';
import type { OutboundMessage } from '../emit/outbound-message.js';
import type { StreamSink } from '../emit/stream-sink.js';
import { recordEffects, takeEffects, type EffectSelection } from '../store/pipeline-effects.js';
import type { CounterApplier } from './live-counter-store.js';

/**
 * How long a taken row stays leased. Longer than one run takes (a Redis command gives up after
 * 2 s, a publish after JetStream's timeout, and a target that fails is not called again in the
 * run), and shorter than JetStream's default duplicate window (2 min): were an applier to stall
 * past its lease, the next one's publish of the same messages is still deduplicated.
 */
export const EFFECT_LEASE_MS = 60_000;

/** Where effects go. */
export interface EffectTargets {
  counters?: CounterApplier;
  sink?: StreamSink;
}

/** What a run did. */
export interface EffectsReport {
  applied: number;
  /** Rows left for later (Redis or the stream failed). */
  pending: number;
  errors: string[];
}

/**
 * Applies the selected effects that no other applier holds.
 *
 * @example
 * await applyEffects(db, { ids: [report.effectId] }, { counters, sink }); // after the COMMIT
 */
export async function applyEffects(
  db: SqlClient,
  selection: EffectSelection,
  targets: EffectTargets,
  options: { leaseMs?: number } = {},
): Promise<EffectsReport> {
  const rows = await takeEffects(db, selection, options.leaseMs ?? EFFECT_LEASE_MS);
  const report: EffectsReport = { applied: 0, pending: 0, errors: [] };
  // A target that failed once is not called again in this run: when NATS is away, a sweep of a
  // thousand rows must not wait a thousand timeouts. The rows wait for the next run instead.
  let countersDown = false;
  let streamDown = false;
  const done: number[] = [];
  const left: Array<{ id: number; counters_done: boolean; messages_done: boolean }> = [];
  for (const row of rows) {
    let countersDone = row.counters_done;
    let messagesDone = row.messages_done;
    if (!countersDone && !countersDown) {
      try {
        // Without a Redis store (the deployment changed profile) the counts have nowhere to go.
        if (targets.counters && row.counters) await targets.counters.applyOnce(`${row.id}-${row.created_at.getTime()}`, row.counters);
        countersDone = true;
      } catch (err) {
        countersDown = true;
        report.errors.push(`counters: ${(err as Error).message}`);
      }
    }
    if (!messagesDone && !streamDown) {
      try {
        if (targets.sink && row.messages) await targets.sink.publish(row.messages as OutboundMessage[]);
        messagesDone = true;
      } catch (err) {
        streamDown = true;
        report.errors.push(`stream: ${(err as Error).message}`);
      }
    }
    if (countersDone && messagesDone) {
      done.push(Number(row.id));
      report.applied++;
    } else {
      report.pending++;
      left.push({ id: Number(row.id), counters_done: countersDone, messages_done: messagesDone });
    }
  }
  await recordEffects(db, done, left);
  return report;
}
