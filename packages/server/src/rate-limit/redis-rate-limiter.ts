/**
 * The shared limiter of the production profile: one Redis counter per key and window, updated by
 * a Lua script so that the check and the increment are one atomic step across API processes.
 */
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { RateDecision, RateLimiter } from './rate-limiter.js';

/**
 * ioredis is loaded on first use, not at import: the embedded profile never connects to Redis,
 * and loading it at start cost ~20 MB resident (docs/benchmarks.md, "Embedded memory").
 */
const ioredis = (): typeof import('ioredis') => createRequire(import.meta.url)('ioredis') as typeof import('ioredis');

// KEYS[1] counter; ARGV: cost, limit, window ms. Returns { allowed 0|1, count, pttl }.
const TAKE = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local cost = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
if count + cost > limit then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl < 0 then ttl = tonumber(ARGV[3]) end
  return { 0, count, ttl }
end
count = redis.call('INCRBY', KEYS[1], cost)
if count == cost then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
local ttl = redis.call('PTTL', KEYS[1])
return { 1, count, ttl }
`;

/**
 * A Redis-backed limiter. A server passes its process's connection (`redis-connections.ts`),
 * which the limiter borrows and never closes; given a URL, it makes and closes its own (tests).
 *
 * @example
 * const limiter = new RedisRateLimiter(redis.commands, 'feedloop:rl:');
 */
export class RedisRateLimiter implements RateLimiter {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #owned: boolean;

  constructor(redis: Redis | string, prefix = 'feedloop:rl:') {
    this.#owned = typeof redis === 'string';
    if (typeof redis === 'string') {
      this.#redis = new (ioredis().Redis)(redis, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
      // Connection errors surface on each `take`; the emitter must not crash the process meanwhile.
      this.#redis.on('error', () => undefined);
    } else this.#redis = redis;
    this.#prefix = prefix;
  }

  async take(key: string, cost: number, limit: number, windowMs: number): Promise<RateDecision> {
    const [allowed, count, ttl] = (await this.#redis.eval(TAKE, 1, this.#prefix + key, cost, limit, windowMs)) as [number, number, number];
    return { allowed: allowed === 1, remaining: Math.max(0, limit - count), resetMs: ttl };
  }

  /** Closes the connection if the limiter made it (a borrowed one is its owner's to close). */
  async close(): Promise<void> {
    if (this.#owned) this.#redis.disconnect();
  }
}
