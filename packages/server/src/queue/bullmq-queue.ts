/**
 * The Redis job queue of the production profile, on BullMQ: as many producer and worker
 * processes share one queue by name; a job survives restarts and is handed to one worker at a
 * time. Semantics match `MemoryQueue` (see `docs/queue.md`).
 *
 * Connections: the producer side uses an ioredis client that never queues commands while Redis
 * is away (`enableOfflineQueue: false`), so `add` fails within about a second instead of hanging
 * or buffering; the worker side has BullMQ's required `maxRetriesPerRequest: null` and reconnects
 * by itself. We pass ioredis instances rather than options: BullMQ 6 only loads ioredis itself
 * through `require`, and passing instances keeps the connection settings ours. A server passes
 * its process's connections (`redis-connections.ts`), which the queue borrows and never closes;
 * given a URL, the queue makes and closes its own (tests).
 */
import { createRequire } from 'node:module';
import type { Job, JobsOptions, Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { quitOrDisconnect, type RedisConnections } from '../redis-connections.js';
import {
  assertValidJobId,
  DEFAULT_FAILED_LIMIT,
  errorMessage,
  QueueClosedError,
  resolveQueueOptions,
  retryDelayMs,
  UnrecoverableJobError,
  waitForIdle,
  type FailedJob,
  type JobHandler,
  type JobHandlers,
  type JobOptions,
  type JobQueue,
  type QueueCounts,
  type QueueOptions,
} from './job-queue.js';

/**
 * BullMQ and ioredis are loaded on first use, not at import: the embedded profile runs the
 * in-process queue, and loading both at start cost ~40 MB resident (docs/benchmarks.md,
 * "Embedded memory"). Both are CommonJS packages: `require` gives the instance `import` did.
 */
const bullmq = (): typeof import('bullmq') => createRequire(import.meta.url)('bullmq') as typeof import('bullmq');
const ioredis = (): typeof import('ioredis') => createRequire(import.meta.url)('ioredis') as typeof import('ioredis');

/** Options of a BullMQ queue beyond the shared ones. */
export interface BullmqQueueOptions extends Partial<QueueOptions> {
  /** Prefix of the queue's Redis keys (BullMQ's default is `bull`). */
  prefix?: string;
  /**
   * Told about errors that belong to no call: connection errors, a worker's failure to renew a
   * lock. Default: ignored (each call that needs Redis rejects on its own).
   */
  onError?: (err: Error) => void;
}

/** How long `add` and friends wait for a connection that is not up yet before rejecting. */
export const PRODUCER_READY_TIMEOUT_MS = 1_000;
/** Attempts of one producer command after a dropped connection: one retry, then reject. */
const PRODUCER_MAX_RETRIES_PER_REQUEST = 1;
/**
 * How long the worker waits before fetching again after a connection error. BullMQ's default is
 * 15 s, and its close() does not cancel that wait: the timer would keep a shut-down process alive
 * for up to 15 s. One second bounds both the linger and the pause after Redis comes back.
 */
const WORKER_RETRY_DELAY_MS = 1_000;
/**
 * How long ioredis lets a closing socket end gracefully before destroying it. Its default (2 s)
 * leaves a timer behind when the socket never connected, keeping a shut-down process alive.
 */
const DISCONNECT_TIMEOUT_MS = 200;
/** Our backoff strategy's name in BullMQ (its built-in exponential one has no ceiling). */
const CAPPED_EXPONENTIAL = 'feedloop-capped-exponential';

/**
 * A BullMQ-backed {@link JobQueue}.
 *
 * @example
 * const queue = new BullmqQueue<{ ping: { n: number } }>('feedloop-effects', redis, { prefix: 'feedloop' }); // redis: openRedisConnections(…)
 * queue.work({ ping: async (data) => { log(data.n); } });   // worker processes only
 * await queue.add('ping', { n: 1 }, { jobId: 'ping-1' });
 * await queue.close();
 */
export class BullmqQueue<M extends Record<string, unknown>> implements JobQueue<M> {
  readonly kind = 'bullmq' as const;
  readonly #name: string;
  /** The process's connections (borrowed), or the URL this queue makes its own from. */
  readonly #redis: Pick<RedisConnections, 'commands' | 'worker'> | string;
  readonly #prefix: string | undefined;
  readonly #options: QueueOptions;
  readonly #onError: (err: Error) => void;
  readonly #producerRedis: Redis;
  readonly #queue: Queue<unknown, void, string>;
  #worker: Worker<unknown, void, string> | undefined;
  #workerRedis: Redis | undefined;
  /** One shared wait for the producer connection, so that a burst of calls adds one listener. */
  #readyWait: Promise<void> | undefined;
  #closing: Promise<void> | undefined;

  constructor(name: string, redis: Pick<RedisConnections, 'commands' | 'worker'> | string, options: BullmqQueueOptions = {}) {
    const { prefix, onError, ...shared } = options;
    this.#name = name;
    this.#redis = redis;
    this.#prefix = prefix;
    this.#options = resolveQueueOptions(shared);
    this.#onError = onError ?? (() => undefined);
    if (typeof redis === 'string') {
      this.#producerRedis = new (ioredis().Redis)(redis, {
        connectionName: connectionName(prefix, name, 'producer'),
        disconnectTimeout: DISCONNECT_TIMEOUT_MS,
        enableOfflineQueue: false,
        maxRetriesPerRequest: PRODUCER_MAX_RETRIES_PER_REQUEST,
      });
      // Connection errors reach onError through BullMQ; this listener only keeps ioredis from
      // printing "Unhandled error event" before BullMQ attaches its own.
      this.#producerRedis.on('error', () => undefined);
    } else this.#producerRedis = redis.commands;
    this.#queue = new (bullmq().Queue)<unknown, void, string>(name, {
      connection: this.#producerRedis,
      ...(prefix === undefined ? {} : { prefix }),
      // BullMQ would otherwise wait for the first connection without a bound (add hangs while
      // Redis is down) and, when it cannot run INFO at once, stay broken for good; we bound the
      // wait ourselves in #ready(). The worker still checks the Redis version.
      skipWaitingForReady: true,
      skipVersionCheck: true,
      skipMetasUpdate: true,
      defaultJobOptions: {
        attempts: this.#options.attempts,
        backoff: { type: CAPPED_EXPONENTIAL, delay: this.#options.backoffMs },
        // Completed ids free up for deduplication; failed ones are kept, the newest keepFailed.
        removeOnComplete: true,
        removeOnFail: { count: this.#options.keepFailed },
      },
    });
    this.#queue.on('error', (err) => this.#onError(err));
  }

  async add<N extends keyof M & string>(name: N, data: M[N], options?: JobOptions): Promise<void> {
    const opts = this.#jobOptions(options);
    await this.#ready();
    await this.#queue.add(name, data, opts);
  }

  async addBulk<N extends keyof M & string>(jobs: ReadonlyArray<{ name: N; data: M[N]; options?: JobOptions }>): Promise<void> {
    const bulk = jobs.map((job) => ({ name: job.name as string, data: job.data as unknown, opts: this.#jobOptions(job.options) }));
    if (bulk.length === 0) return;
    await this.#ready();
    await this.#queue.addBulk(bulk);
  }

  work(handlers: JobHandlers<M>): void {
    if (this.#worker) throw new Error('work() was already called on this queue');
    this.#assertOpen();
    const lookup = handlers as unknown as Record<string, JobHandler<unknown> | undefined>;
    // A template only: BullMQ duplicates it into the worker's two connections (one of them
    // blocking), which it owns and closes; lazyConnect keeps the template itself unconnected.
    // BullMQ renames the blocking copy (`<prefix>:<base64 of the queue name>`); the other keeps this name.
    let template: Redis;
    if (typeof this.#redis === 'string') {
      template = this.#workerRedis = new (ioredis().Redis)(this.#redis, {
        connectionName: connectionName(this.#prefix, this.#name, 'worker'),
        disconnectTimeout: DISCONNECT_TIMEOUT_MS,
        maxRetriesPerRequest: null,
        lazyConnect: true,
      });
      this.#workerRedis.on('error', () => undefined);
    } else template = this.#redis.worker;
    const worker = new (bullmq().Worker)<unknown, void, string>(this.#name, (job) => this.#process(lookup, job), {
      connection: template,
      ...(this.#prefix === undefined ? {} : { prefix: this.#prefix }),
      concurrency: this.#options.concurrency,
      runRetryDelay: WORKER_RETRY_DELAY_MS,
      // The retry delay is decided where the job failed, by this process's options.
      settings: { backoffStrategy: (attemptsMade: number) => retryDelayMs(attemptsMade, this.#options) },
      // Also for jobs added by producers that did not set them.
      removeOnComplete: { count: 0 },
      removeOnFail: { count: this.#options.keepFailed },
    });
    worker.on('error', (err) => this.#onError(err));
    this.#worker = worker;
  }

  async schedule<N extends keyof M & string>(name: N, everyMs: number, data: M[N]): Promise<void> {
    this.#assertOpen();
    if (!Number.isFinite(everyMs) || everyMs <= 0) throw new RangeError(`schedule interval must be > 0 ms: ${everyMs}`);
    await this.#ready();
    // One scheduler per name in Redis: every process upserting it replaces the same record, so
    // the ticks are not multiplied by the number of processes.
    await this.#queue.upsertJobScheduler(name, { every: everyMs }, { name, data });
  }

  async failed(limit = DEFAULT_FAILED_LIMIT): Promise<FailedJob[]> {
    if (limit <= 0) return [];
    await this.#ready();
    const jobs = await this.#queue.getFailed(0, limit - 1);
    return jobs.map((job) => ({
      id: job.id ?? '',
      name: job.name,
      data: job.data,
      error: job.failedReason,
      attempts: job.attemptsMade,
      failedAt: new Date(job.finishedOn ?? job.processedOn ?? job.timestamp),
    }));
  }

  async retryFailed(id: string): Promise<boolean> {
    this.#assertOpen();
    await this.#ready();
    const job = await this.#queue.getJob(id);
    if (!job || (await job.getState()) !== 'failed') return false;
    try {
      // A fresh set of attempts, as in the memory queue.
      await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
      return true;
    } catch (err) {
      // Another process retried (or trimmed) it between our look and our move.
      if ((await job.getState()) !== 'failed') return false;
      throw err;
    }
  }

  async counts(): Promise<QueueCounts> {
    await this.#ready();
    const c = await this.#queue.getJobCounts('wait', 'prioritized', 'active', 'delayed', 'failed');
    return {
      waiting: (c.wait ?? 0) + (c.prioritized ?? 0),
      active: c.active ?? 0,
      delayed: c.delayed ?? 0,
      failed: c.failed ?? 0,
    };
  }

  idle(timeoutMs?: number): Promise<void> {
    return waitForIdle(async () => {
      const c = await this.counts();
      if (c.waiting > 0 || c.active > 0) return false;
      // Each scheduler keeps exactly one next iteration, delayed while nothing runs: not work.
      return c.delayed <= (await this.#queue.getJobSchedulersCount());
    }, timeoutMs);
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    // The worker first: it stops fetching and waits for the handlers that are running.
    if (this.#worker) await this.#worker.close();
    // The queue does not own the client we gave it: close ours (borrowed ones are their owner's).
    await this.#queue.close();
    if (typeof this.#redis === 'string') await quitOrDisconnect(this.#producerRedis);
    this.#workerRedis?.disconnect();
  }

  #assertOpen(): void {
    if (this.#closing) throw new QueueClosedError();
  }

  #jobOptions(options: JobOptions | undefined): JobsOptions {
    this.#assertOpen();
    const opts: JobsOptions = {};
    if (options?.jobId !== undefined) {
      assertValidJobId(options.jobId);
      opts.jobId = options.jobId;
    }
    const delay = options?.delayMs;
    if (delay !== undefined) {
      if (!Number.isFinite(delay) || delay < 0) throw new RangeError(`delayMs must be ≥ 0: ${delay}`);
      if (delay > 0) opts.delay = delay;
    }
    return opts;
  }

  /** Resolves when the producer connection is up; rejects after {@link PRODUCER_READY_TIMEOUT_MS}. */
  #ready(): Promise<void> {
    const redis = this.#producerRedis;
    if (redis.status === 'ready') return Promise.resolve();
    if (redis.status === 'end') return Promise.reject(new QueueClosedError());
    this.#readyWait ??= new Promise<void>((resolve, reject) => {
      const onReady = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        redis.off('ready', onReady);
        reject(new Error(`Redis did not answer within ${PRODUCER_READY_TIMEOUT_MS} ms (queue ${this.#name})`));
      }, PRODUCER_READY_TIMEOUT_MS);
      redis.once('ready', onReady);
    }).finally(() => {
      this.#readyWait = undefined;
    });
    return this.#readyWait;
  }

  async #process(handlers: Record<string, JobHandler<unknown> | undefined>, job: Job<unknown, void, string>): Promise<void> {
    const handler = handlers[job.name];
    if (!handler) throw new (bullmq().UnrecoverableError)(`no handler for job ${job.name}`);
    try {
      await handler(job.data, { jobId: job.id ?? '', name: job.name, attempt: job.attemptsMade + 1 });
    } catch (err) {
      if (err instanceof UnrecoverableJobError) throw new (bullmq().UnrecoverableError)(err.message);
      throw err instanceof Error ? err : new Error(errorMessage(err));
    }
  }
}

/** The CLIENT SETNAME of our connections, so that `CLIENT LIST` tells which queue and side they serve. */
function connectionName(prefix: string | undefined, queue: string, side: 'producer' | 'worker'): string {
  return `${prefix ?? 'bull'}:${queue}:${side}`;
}
