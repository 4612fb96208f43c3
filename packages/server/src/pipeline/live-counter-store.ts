/**
 * Live counters: today's numbers per workspace without a scan. Two stores behind one reading
 * interface (`LiveCounterReader`):
 * - embedded: the `live_counters` table (store/live-counters.ts), added to inside the processing
 *   transaction (exactly once for free, and kept across restarts);
 * - production: Redis hashes `<prefix>:live:<workspace>:<day>` (no hot rows in Postgres with many
 *   workers), applied after commit from the outbox by one Lua script that also sets the effect's
 *   applied-marker, so a replayed effect never counts twice.
 */
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { CounterDeltas } from '@feedloop/core';
import type { LiveCounterReader } from '../store/live-counters.js';

/**
 * ioredis is loaded on first use, not at import: the embedded profile never connects to Redis,
 * and loading it at start cost ~20 MB resident (docs/benchmarks.md, "Embedded memory").
 */
const ioredis = (): typeof import('ioredis') => createRequire(import.meta.url)('ioredis') as typeof import('ioredis');

/** Counter hashes outlive their day by this much, so yesterday can still be read. */
const COUNTER_TTL_SECONDS = 3 * 86_400;
/** An effect's applied-marker lives as long as a lost effect could still be re-applied. */
const APPLIED_TTL_SECONDS = 3 * 86_400;
const COMMAND_TIMEOUT_MS = 2_000;

// KEYS[1]: the applied-marker; KEYS[2..]: counter hashes. ARGV[1]: marker TTL; ARGV[2]: hash TTL;
// then per hash: the number of fields, followed by field/count pairs.
const APPLY = `
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then return 0 end
local a = 3
for k = 2, #KEYS do
  local n = tonumber(ARGV[a]); a = a + 1
  for i = 1, n do
    redis.call('HINCRBY', KEYS[k], ARGV[a], ARGV[a + 1]); a = a + 2
  end
  redis.call('EXPIRE', KEYS[k], ARGV[2])
end
return 1`;

/** Applies an outbox effect's counter deltas to a store outside the database, once per effect key. */
export interface CounterApplier {
  /** @returns whether this call applied them (false: this effect key was applied before). */
  applyOnce(effectKey: string, deltas: CounterDeltas): Promise<boolean>;
}

/**
 * The production store: Redis hashes. A server passes its process's connection
 * (`redis-connections.ts`, which fails fast), borrowed and never closed; given a URL, the store
 * makes and closes its own (tests, benchmarks).
 */
export class RedisLiveCounters implements LiveCounterReader, CounterApplier {
  readonly #redis: Redis;
  readonly #owned: boolean;

  constructor(
    redis: Redis | string,
    private readonly prefix: string,
  ) {
    this.#owned = typeof redis === 'string';
    if (typeof redis === 'string') {
      // Fail fast when Redis is away (a command waits at most COMMAND_TIMEOUT_MS): the outbox keeps
      // the effect and the sweep applies it later.
      this.#redis = new (ioredis().Redis)(redis, { maxRetriesPerRequest: 1, commandTimeout: COMMAND_TIMEOUT_MS });
      this.#redis.on('error', () => undefined);
    } else this.#redis = redis;
  }

  /**
   * Applies an effect's deltas once: a second call with the same effect key does nothing.
   *
   * @returns whether this call applied them.
   */
  async applyOnce(effectKey: string, deltas: CounterDeltas): Promise<boolean> {
    const keys = [`${this.prefix}:applied:${effectKey}`];
    const args: Array<string | number> = [APPLIED_TTL_SECONDS, COUNTER_TTL_SECONDS];
    for (const [ws, days] of Object.entries(deltas)) {
      for (const [day, fields] of Object.entries(days)) {
        const entries = Object.entries(fields);
        keys.push(this.hashKey(ws, day));
        args.push(entries.length);
        for (const [field, n] of entries) args.push(field, n);
      }
    }
    const applied = await this.#redis.eval(APPLY, keys.length, ...keys, ...args);
    return applied === 1;
  }

  async read(workspaceId: string, day: string): Promise<Record<string, number>> {
    const hash = await this.#redis.hgetall(this.hashKey(workspaceId, day));
    return Object.fromEntries(Object.entries(hash).map(([k, v]) => [k, Number(v)]));
  }

  /** Closes the connection if the store made it (a borrowed one is its owner's to close). */
  async close(): Promise<void> {
    if (this.#owned) this.#redis.disconnect();
  }

  private hashKey(workspaceId: string, day: string): string {
    return `${this.prefix}:live:${workspaceId}:${day}`;
  }
}
