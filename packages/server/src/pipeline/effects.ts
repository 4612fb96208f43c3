/**
 * Applies the outbox's effects outside the database: live counters to Redis (idempotent on the
 * effect) and messages to the stream (idempotent through JetStream's message-id dedup). Rows are
 * locked while applied (SKIP LOCKED, so two appliers never take the same row), deleted once
 * everything is applied, and left for the sweep when Redis or the stream is away.
 */
import type { SqlClient } from '../db/sql-client.js';
import type { OutboundMessage } from '../emit/outbound-message.js';
import type { StreamSink } from '../emit/stream-sink.js';
import type { CounterDeltas } from '@feedloop/core';
import type { RedisLiveCounters } from './live-counter-store.js';

/** Where effects go. */
export interface EffectTargets {
  counters?: RedisLiveCounters;
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
 * Applies the selected effects.
 *
 * @example
 * await applyEffects(db, { ids: [report.effectId] }, { counters, sink });
 */
export async function applyEffects(db: SqlClient, selection: EffectSelection, targets: EffectTargets): Promise<EffectsReport> {
  return db.transaction(async (tx) => {
    const rows =
      'ids' in selection
        ? await tx.query<EffectRow>('SELECT * FROM pipeline_effects WHERE id = ANY($1::bigint[]) FOR UPDATE SKIP LOCKED', [selection.ids])
        : await tx.query<EffectRow>(
            `SELECT * FROM pipeline_effects WHERE created_at < now() - $1 * interval '1 millisecond'
              ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED`,
            [selection.olderThanMs, selection.limit],
          );
    const report: EffectsReport = { applied: 0, pending: 0, errors: [] };
    const done: number[] = [];
    const partial: Array<{ id: number; counters_done: boolean; messages_done: boolean }> = [];
    for (const row of rows) {
      let countersDone = row.counters_done;
      let messagesDone = row.messages_done;
      if (!countersDone) {
        try {
          // Without a Redis store (the deployment changed profile) the counts have nowhere to go.
          if (targets.counters && row.counters) await targets.counters.applyOnce(`${row.id}-${row.created_at.getTime()}`, row.counters);
          countersDone = true;
        } catch (err) {
          report.errors.push(`counters: ${(err as Error).message}`);
        }
      }
      if (!messagesDone) {
        try {
          if (targets.sink && row.messages) await targets.sink.publish(row.messages);
          messagesDone = true;
        } catch (err) {
          report.errors.push(`stream: ${(err as Error).message}`);
        }
      }
      if (countersDone && messagesDone) {
        done.push(Number(row.id));
        report.applied++;
      } else {
        report.pending++;
        if (countersDone !== row.counters_done || messagesDone !== row.messages_done)
          partial.push({ id: Number(row.id), counters_done: countersDone, messages_done: messagesDone });
      }
    }
    if (done.length > 0) await tx.query('DELETE FROM pipeline_effects WHERE id = ANY($1::bigint[])', [done]);
    if (partial.length > 0)
      await tx.query(
        `UPDATE pipeline_effects AS p SET counters_done = x.counters_done, messages_done = x.messages_done
           FROM json_to_recordset($1::json) AS x(id bigint, counters_done boolean, messages_done boolean) WHERE p.id = x.id`,
        [JSON.stringify(partial)],
      );
    return report;
  });
}
