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
import type { CounterDeltas } from '@feedloop/core';
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

/** Which effects to apply: these ids, or the oldest ones at least `olderThanMs` old. */
export type EffectSelection = { ids: readonly number[] } | { olderThanMs: number; limit: number };

interface EffectRow {
  id: number;
  counters: CounterDeltas | null;
  messages: OutboundMessage[] | null;
  counters_done: boolean;
  messages_done: boolean;
  created_at: Date;
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
        if (targets.sink && row.messages) await targets.sink.publish(row.messages);
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

/** Leases the selected rows that are free (unlocked, and not leased or their lease ended). */
async function takeEffects(db: SqlClient, selection: EffectSelection, leaseMs: number): Promise<EffectRow[]> {
  if ('ids' in selection && selection.ids.length === 0) return [];
  const [which, params] =
    'ids' in selection
      ? ['id = ANY($2::bigint[])', [selection.ids]]
      : [`created_at < now() - $2 * interval '1 millisecond' ORDER BY id LIMIT $3`, [selection.olderThanMs, selection.limit]];
  // One statement, so its row locks last only while it runs; the lease is what keeps others off.
  return db.query<EffectRow>(
    `WITH free AS (
       SELECT id FROM pipeline_effects
        WHERE (lease_until IS NULL OR lease_until < now()) AND ${which}
        FOR UPDATE SKIP LOCKED
     )
     UPDATE pipeline_effects AS p SET lease_until = now() + $1 * interval '1 millisecond'
       FROM free WHERE p.id = free.id
     RETURNING p.id, p.counters, p.messages, p.counters_done, p.messages_done, p.created_at`,
    [leaseMs, ...params],
    { prepare: true },
  );
}

/** Deletes the rows applied whole; keeps what was applied of the others and releases them. */
async function recordEffects(db: SqlClient, done: number[], left: Array<{ id: number; counters_done: boolean; messages_done: boolean }>): Promise<void> {
  if (done.length > 0) await db.query('DELETE FROM pipeline_effects WHERE id = ANY($1::bigint[])', [done]);
  if (left.length > 0)
    await db.query(
      `UPDATE pipeline_effects AS p SET counters_done = x.counters_done, messages_done = x.messages_done, lease_until = NULL
         FROM json_to_recordset($1::json) AS x(id bigint, counters_done boolean, messages_done boolean) WHERE p.id = x.id`,
      [JSON.stringify(left)],
      { prepare: true },
    );
}
