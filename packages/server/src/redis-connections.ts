/**
 * The process's Redis connections (the production profile), made and closed in one place: the
 * composition root (`server.ts`) opens them once and passes them to the rate limiter, the live
 * counters and the job queue, which borrow them and never close them.
 *
 * Two connections, as BullMQ's guide on connections asks
 * (https://docs.bullmq.io/guide/connections): one for commands that must fail fast while Redis is
 * away, shared by the queue's producer side, the rate limiter and the live counters; and one for
 * the queue's worker with `maxRetriesPerRequest: null`, which BullMQ duplicates into the worker's
 * own connections (its blocking one included) and closes itself. A process that never works jobs
 * never connects the second.
 */
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';

/**
 * ioredis is loaded on first use, not at import: the embedded profile never connects to Redis, and
 * loading it at start cost ~20 MB resident (docs/benchmarks.md, "Embedded memory").
 */
const ioredis = (): typeof import('ioredis') => createRequire(import.meta.url)('ioredis') as typeof import('ioredis');

/** Attempts of one command after a dropped connection: one retry, then reject. */
const MAX_RETRIES_PER_REQUEST = 1;
/** A command waits at most this long for its answer (a hung Redis): the caller falls back (outbox, fail open). */
const COMMAND_TIMEOUT_MS = 2_000;
/**
 * How long ioredis lets a closing socket end gracefully before destroying it. Its default (2 s)
 * leaves a timer behind when the socket never connected, keeping a shut-down process alive.
 */
const DISCONNECT_TIMEOUT_MS = 200;

/** The connections of one process. */
export interface RedisConnections {
  /**
   * Commands that fail fast while Redis is away (no offline queue, one retry, a timeout): the
   * queue's producer side, the rate limiter, the live counters.
   */
  readonly commands: Redis;
  /** The BullMQ worker's connection (`maxRetriesPerRequest: null`, connected only when used). */
  readonly worker: Redis;
  /** Closes both (after everything that borrows them is closed). */
  close(): Promise<void>;
}

/**
 * Opens the process's Redis connections; `prefix` names them in `CLIENT LIST`.
 *
 * @example
 * const redis = openRedisConnections(config.redisUrl, config.redisPrefix);
 * const limiter = new RedisRateLimiter(redis.commands, `${config.redisPrefix}:rl:`);
 * // on shutdown, after the limiter, counters and queue
 * await redis.close();
 */
export function openRedisConnections(url: string, prefix: string): RedisConnections {
  const { Redis } = ioredis();
  const commands = new Redis(url, {
    connectionName: `${prefix}:commands`,
    disconnectTimeout: DISCONNECT_TIMEOUT_MS,
    enableOfflineQueue: false,
    maxRetriesPerRequest: MAX_RETRIES_PER_REQUEST,
    commandTimeout: COMMAND_TIMEOUT_MS,
  });
  const worker = new Redis(url, { connectionName: `${prefix}:worker`, disconnectTimeout: DISCONNECT_TIMEOUT_MS, maxRetriesPerRequest: null, lazyConnect: true });
  // Each command that needs Redis rejects on its own; the emitters must not crash the process meanwhile.
  commands.on('error', () => undefined);
  worker.on('error', () => undefined);
  return {
    commands,
    worker,
    async close() {
      await quitOrDisconnect(commands);
      worker.disconnect();
    },
  };
}

/**
 * Closes a client politely when it is connected (pending replies arrive), at once otherwise.
 *
 * @example
 * await quitOrDisconnect(redis);
 */
export async function quitOrDisconnect(redis: Redis): Promise<void> {
  if (redis.status === 'ready') {
    try {
      await redis.quit();
      return;
    } catch {
      // The connection dropped meanwhile; disconnect below.
    }
  }
  redis.disconnect();
}
