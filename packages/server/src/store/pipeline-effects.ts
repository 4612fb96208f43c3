/**
 * `pipeline_effects`: the outbox of what a processing transaction did outside the database (live
 * counters for Redis, messages for the stream), written in that transaction and applied after
 * its commit by pipeline/effects.ts. A row is leased while an applier works on it (an unexpired
 * lease and SKIP LOCKED keep two appliers off it), then deleted, or released with the parts done.
 */
import type { CounterDeltas } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';

/** An outbox row as an applier takes it. `messages` are the stream's messages as written (emit's `OutboundMessage`). */
export interface EffectRow {
  id: number;
  counters: CounterDeltas | null;
  messages: unknown[] | null;
  counters_done: boolean;
  messages_done: boolean;
  created_at: Date;
}

/** Which effects to take: these ids, or the oldest ones at least `olderThanMs` old. */
export type EffectSelection = { ids: readonly number[] } | { olderThanMs: number; limit: number };

/**
 * Writes one outbox row; a part that is null counts as done.
 *
 * @returns the row's id.
 * @example
 * await insertEffect(tx, { counters: { 'ws_1|2026-11-22|positive': 3 }, messages: null }) // 17
 */
export async function insertEffect(tx: SqlExecutor, effect: { counters: CounterDeltas | null; messages: readonly unknown[] | null }): Promise<number> {
  const [row] = await tx.query<{ id: number }>(
    `INSERT INTO pipeline_effects (counters, messages, counters_done, messages_done) VALUES ($1::jsonb, $2::jsonb, $3, $4) RETURNING id`,
    [JSON.stringify(effect.counters), JSON.stringify(effect.messages), effect.counters === null, effect.messages === null],
    { prepare: true },
  );
  if (!row) throw new Error('pipeline_effects: the insert returned no id');
  return Number(row.id);
}

/** Leases the selected rows that are free (unlocked, and not leased or their lease ended). */
export async function takeEffects(db: SqlExecutor, selection: EffectSelection, leaseMs: number): Promise<EffectRow[]> {
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
export async function recordEffects(db: SqlExecutor, done: number[], left: Array<{ id: number; counters_done: boolean; messages_done: boolean }>): Promise<void> {
  if (done.length > 0) await db.query('DELETE FROM pipeline_effects WHERE id = ANY($1::bigint[])', [done]);
  if (left.length > 0)
    await db.query(
      `UPDATE pipeline_effects AS p SET counters_done = x.counters_done, messages_done = x.messages_done, lease_until = NULL
         FROM json_to_recordset($1::json) AS x(id bigint, counters_done boolean, messages_done boolean) WHERE p.id = x.id`,
      [JSON.stringify(left)],
      { prepare: true },
    );
}
