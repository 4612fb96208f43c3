/**
 * One job-queue interface for background work, with two implementations that behave the same:
 * `MemoryQueue` (one process, no Redis: the embedded profile and tests) and `BullmqQueue` (Redis,
 * any number of producer and worker processes: the production profile). A conformance suite
 * (`test/queue-conformance.test.ts`) runs the same tests against both; `docs/queue.md` describes
 * the semantics and the few places where the two differ.
 */

/** Per-job options of `add`. */
export interface JobOptions {
  /**
   * Deduplication key: adding a job whose id is already waiting, delayed, active or failed is a
   * no-op; once the job completed the id is free again. Must not be an integer nor contain `:`
   * (BullMQ reserves both).
   */
  jobId?: string;
  /** Runs the job no sooner than this many ms from now. */
  delayMs?: number;
}

/** What a handler learns about the job it runs. */
export interface JobContext {
  jobId: string;
  name: string;
  /** 1 on the first run, 2 on the first retry, and so on. */
  attempt: number;
}

/**
 * Runs one job. Resolving completes it; throwing retries it with backoff until the attempts are
 * used up; throwing {@link UnrecoverableJobError} fails it at once. `data` is plain JSON: what the
 * producer passed after a `JSON.stringify`/`JSON.parse` round trip (a `Date` arrives as a string).
 */
export type JobHandler<D> = (data: D, ctx: JobContext) => Promise<void>;

/** One handler per job name of the queue's map `M` (job name → data type). */
export type JobHandlers<M> = { [N in keyof M & string]: JobHandler<M[N]> };

/** A job that used up its attempts (or failed unrecoverably), kept aside for inspection and retry. */
export interface FailedJob {
  id: string;
  name: string;
  data: unknown;
  /** The message of the last error. */
  error: string;
  /** Attempts made, the failing one included. */
  attempts: number;
  failedAt: Date;
}

/** How many jobs are in each state. `delayed` includes retries waiting out their backoff and each schedule's next run. */
export interface QueueCounts {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
}

/** Tuning shared by both implementations. */
export interface QueueOptions {
  /** Runs in all (the first one included) before a job fails for good. */
  attempts: number;
  /** Backoff before the first retry; it doubles on each further retry. */
  backoffMs: number;
  /** Ceiling of the backoff. */
  maxBackoffMs: number;
  /** Jobs one process runs at the same time. */
  concurrency: number;
  /** Failed jobs kept (the newest); older ones are dropped. */
  keepFailed: number;
}

/**
 * Defaults: 5 attempts over about 15 s (1 + 2 + 4 + 8 s of backoff), 4 jobs at a time, the last
 * 1000 failures kept.
 */
export const DEFAULT_QUEUE_OPTIONS: QueueOptions = Object.freeze({
  attempts: 5,
  backoffMs: 1_000,
  maxBackoffMs: 60_000,
  concurrency: 4,
  keepFailed: 1_000,
});

/** How many failed jobs `failed()` returns when no limit is given. */
export const DEFAULT_FAILED_LIMIT = 100;

/**
 * A queue of named jobs, typed by a map from job name to data.
 *
 * @example
 * type Jobs = { 'send-webhook': { url: string; body: string }; 'rollup': { day: string } };
 * const queue: JobQueue<Jobs> = createJobQueue<Jobs>(config, 'feedloop-effects');
 * queue.work({
 *   'send-webhook': async (data, ctx) => { await post(data.url, data.body); },
 *   'rollup': async (data) => { await rollUp(data.day); },
 * });
 * await queue.add('rollup', { day: '2024-05-01' }, { jobId: 'rollup-2024-05-01' });
 * await queue.schedule('rollup', 60_000, { day: 'today' });
 * // on shutdown
 * await queue.close();
 */
export interface JobQueue<M extends Record<string, unknown>> {
  readonly kind: 'memory' | 'bullmq';
  /** Adds one job; rejects when it cannot be stored (Redis down: within about a second). */
  add<N extends keyof M & string>(name: N, data: M[N], options?: JobOptions): Promise<void>;
  /** Adds several jobs in one round trip. */
  addBulk<N extends keyof M & string>(jobs: ReadonlyArray<{ name: N; data: M[N]; options?: JobOptions }>): Promise<void>;
  /** Starts consuming (a producer-only process never calls it). Call once. */
  work(handlers: JobHandlers<M>): void;
  /** Repeats job `name` every `everyMs`; however many processes call it, one job runs per tick. Idempotent (same name → replaced). */
  schedule<N extends keyof M & string>(name: N, everyMs: number, data: M[N]): Promise<void>;
  /** The newest failed jobs first. */
  failed(limit?: number): Promise<FailedJob[]>;
  /** Moves a failed job back to waiting; false when no such failed job. */
  retryFailed(id: string): Promise<boolean>;
  counts(): Promise<QueueCounts>;
  /**
   * Resolves when nothing is waiting, delayed or active (tests, drains). Optional timeout → rejects.
   * A schedule's next run is not work in progress: it does not keep the queue from being idle.
   */
  idle(timeoutMs?: number): Promise<void>;
  /** Stops taking jobs, waits for the active ones to finish (graceful shutdown), closes connections. */
  close(): Promise<void>;
}

/**
 * Thrown by a handler to fail its job at once, without the remaining retries (bad input that no
 * retry will fix).
 *
 * @example
 * if (!isValidUrl(data.url)) throw new UnrecoverableJobError(`bad webhook url ${data.url}`);
 */
export class UnrecoverableJobError extends Error {
  override readonly name = 'UnrecoverableJobError';
}

/**
 * Rejects `add`, `schedule` and `retryFailed` once `close()` was called: a closing process must
 * not take new work (memory would lose it; BullMQ would leave it for another process, which the
 * caller should do through its own producer).
 */
export class QueueClosedError extends Error {
  override readonly name = 'QueueClosedError';
  constructor() {
    super('The job queue is closed');
  }
}

/**
 * The backoff after failed attempt `attempt` (1-based): `min(backoffMs·2^(attempt−1), maxBackoffMs)`.
 *
 * @example
 * retryDelayMs(3, { backoffMs: 1000, maxBackoffMs: 60000 }) // 4000
 */
export function retryDelayMs(attempt: number, options: Pick<QueueOptions, 'backoffMs' | 'maxBackoffMs'>): number {
  return Math.min(options.backoffMs * 2 ** (attempt - 1), options.maxBackoffMs);
}

/**
 * Merges partial options over the defaults and checks them, so that both implementations refuse
 * the same nonsense (zero attempts, zero concurrency).
 *
 * @example
 * resolveQueueOptions({ backoffMs: 20 }) // { ...DEFAULT_QUEUE_OPTIONS, backoffMs: 20 }
 */
export function resolveQueueOptions(options: Partial<QueueOptions> = {}): QueueOptions {
  const resolved: QueueOptions = { ...DEFAULT_QUEUE_OPTIONS };
  for (const key of Object.keys(DEFAULT_QUEUE_OPTIONS) as Array<keyof QueueOptions>) {
    const value = options[key];
    if (value !== undefined) resolved[key] = value;
  }
  for (const key of ['attempts', 'concurrency'] as const) {
    if (!Number.isInteger(resolved[key]) || resolved[key] < 1) throw new RangeError(`queue option ${key} must be an integer ≥ 1`);
  }
  for (const key of ['backoffMs', 'maxBackoffMs', 'keepFailed'] as const) {
    if (!Number.isFinite(resolved[key]) || resolved[key] < 0) throw new RangeError(`queue option ${key} must be ≥ 0`);
  }
  return resolved;
}

/**
 * Refuses a custom job id that BullMQ would refuse (an integer would collide with generated ids;
 * `:` is its key separator), so that the memory queue fails the same way.
 *
 * @example
 * assertValidJobId('rollup-2024-05-01') // ok
 * assertValidJobId('42')                // throws
 */
export function assertValidJobId(jobId: string): void {
  if (jobId === '' || String(Number.parseInt(jobId, 10)) === jobId) throw new RangeError(`job id must not be empty or an integer: ${jobId}`);
  if (jobId.includes(':')) throw new RangeError(`job id must not contain ':': ${jobId}`);
}

/** The message of anything a handler threw. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** How often `idle()` looks at the counts. */
export const IDLE_POLL_MS = 20;

/**
 * Polls `isIdle` until it answers true; rejects after `timeoutMs` (no timeout: waits for ever).
 * Shared by both implementations so that `idle()` behaves the same.
 *
 * @example
 * await waitForIdle(async () => (await counts()).active === 0, 1000);
 */
export async function waitForIdle(isIdle: () => Promise<boolean>, timeoutMs: number | undefined): Promise<void> {
  const deadline = timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + timeoutMs;
  for (;;) {
    if (await isIdle()) return;
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`job queue not idle after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, Math.min(IDLE_POLL_MS, left)));
  }
}
