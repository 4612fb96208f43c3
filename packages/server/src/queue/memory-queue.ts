/**
 * The in-process job queue of the embedded profile: no Redis, one process, nothing survives a
 * restart. It mirrors BullMQ's semantics (see `docs/queue.md`) so that code written against
 * {@link JobQueue} behaves the same on both; the conformance suite holds it to that.
 */
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

/** A job that is waiting, delayed or active (completed jobs are forgotten, failed ones move aside). */
interface MemoryJob {
  id: string;
  name: string;
  data: unknown;
  /** Attempts that ran to the end (failed); the running attempt is `attemptsMade + 1`. */
  attemptsMade: number;
  state: 'waiting' | 'delayed' | 'active';
  timer?: NodeJS.Timeout;
  /** The schedule this job is an iteration of, if any. */
  scheduler?: string;
}

/** A repeating job; its next iteration always exists as a waiting or delayed job, as in BullMQ. */
interface Schedule {
  everyMs: number;
  data: unknown;
  /** When the pending iteration is due, and its id. */
  nextAt: number;
  pendingId: string;
}

/** How many slots forward a schedule looks for a free iteration id before giving up on a tick. */
const MAX_SLOT_SCANS = 32;

/**
 * Job data is JSON in BullMQ; round-tripping it here too means a handler never gets a `Date` or a
 * class instance in tests that it would not get in production, and never shares an object with
 * the producer.
 */
function toJsonData(data: unknown): unknown {
  return data === undefined ? undefined : JSON.parse(JSON.stringify(data));
}

/** The in-process queue's options: the shared ones, and one of its own. */
export interface MemoryQueueOptions extends Partial<QueueOptions> {
  /**
   * Names of jobs that start first when a slot frees, with a slot kept for them: other jobs take
   * at most `concurrency - 1` slots (with a concurrency of 1, urgent jobs only go first). The embedded pipeline has one queue for all its jobs, and its
   * `process` jobs (every live figure waits on them) waited for a slot behind a minute's upkeep
   * (rollup, training batch, rescore, sweep) for 2-3 s (docs/benchmarks.md, "Eleventh session").
   * Production's processing has a queue of its own (pipeline-jobs.ts).
   */
  urgentJobs?: readonly string[];
}

/**
 * An in-process {@link JobQueue}.
 *
 * @example
 * const queue = new MemoryQueue<{ ping: { n: number } }>({ concurrency: 2 });
 * queue.work({ ping: async (data, ctx) => { log(data.n, ctx.attempt); } });
 * await queue.add('ping', { n: 1 });
 * await queue.idle(1_000);
 * await queue.close();
 */
export class MemoryQueue<M extends Record<string, unknown>> implements JobQueue<M> {
  readonly kind = 'memory' as const;
  readonly #options: QueueOptions;
  /** Every waiting, delayed and active job by id (the deduplication index). */
  readonly #jobs = new Map<string, MemoryJob>();
  /** Waiting jobs in arrival order; a Set gives O(1) take-first and removal. */
  readonly #waiting = new Set<MemoryJob>();
  /** {@link MemoryQueueOptions.urgentJobs}. */
  readonly #urgent: ReadonlySet<string>;
  /** Running jobs that are not urgent. */
  #runningOthers = 0;
  /** Failed jobs, oldest first (Map keeps insertion order). */
  readonly #failed = new Map<string, FailedJob>();
  readonly #schedules = new Map<string, Schedule>();
  /** The promises of running handlers, awaited by `close`. */
  readonly #running = new Set<Promise<void>>();
  #handlers: Record<string, JobHandler<unknown> | undefined> | undefined;
  #nextId = 0;
  #closing: Promise<void> | undefined;

  constructor(options: MemoryQueueOptions = {}) {
    const { urgentJobs = [], ...shared } = options;
    this.#options = resolveQueueOptions(shared);
    this.#urgent = new Set(urgentJobs);
  }

  async add<N extends keyof M & string>(name: N, data: M[N], options?: JobOptions): Promise<void> {
    this.#assertOpen();
    this.#check(options);
    this.#addJob(name, data, options);
  }

  async addBulk<N extends keyof M & string>(jobs: ReadonlyArray<{ name: N; data: M[N]; options?: JobOptions }>): Promise<void> {
    this.#assertOpen();
    // All or nothing, like BullMQ's single MULTI: check every job before adding any.
    for (const job of jobs) this.#check(job.options);
    for (const job of jobs) this.#addJob(job.name, job.data, job.options);
  }

  work(handlers: JobHandlers<M>): void {
    if (this.#handlers) throw new Error('work() was already called on this queue');
    this.#assertOpen();
    this.#handlers = handlers as unknown as Record<string, JobHandler<unknown> | undefined>;
    this.#pump();
  }

  async schedule<N extends keyof M & string>(name: N, everyMs: number, data: M[N]): Promise<void> {
    this.#assertOpen();
    if (!Number.isFinite(everyMs) || everyMs <= 0) throw new RangeError(`schedule interval must be > 0 ms: ${everyMs}`);
    const previous = this.#schedules.get(name);
    let nextAt = Date.now();
    if (previous) {
      const pending = this.#jobs.get(previous.pendingId);
      if (pending && pending.state !== 'active') this.#discard(pending);
      // Same interval: keep the cadence (BullMQ reuses the pending slot); a new interval starts now.
      if (previous.everyMs === everyMs) nextAt = previous.nextAt;
    }
    const schedule: Schedule = { everyMs, data: toJsonData(data), nextAt, pendingId: '' };
    this.#schedules.set(name, schedule);
    this.#addIteration(name, schedule, nextAt);
  }

  async failed(limit = DEFAULT_FAILED_LIMIT): Promise<FailedJob[]> {
    return [...this.#failed.values()].reverse().slice(0, limit).map((f) => ({ ...f }));
  }

  async retryFailed(id: string): Promise<boolean> {
    this.#assertOpen();
    const failed = this.#failed.get(id);
    if (!failed) return false;
    this.#failed.delete(id);
    // A fresh set of attempts, as BullMQ's retry with resetAttemptsMade.
    const job: MemoryJob = { id, name: failed.name, data: failed.data, attemptsMade: 0, state: 'waiting' };
    this.#jobs.set(id, job);
    this.#enqueue(job);
    return true;
  }

  async counts(): Promise<QueueCounts> {
    const counts: QueueCounts = { waiting: 0, active: 0, delayed: 0, failed: this.#failed.size };
    for (const job of this.#jobs.values()) counts[job.state] += 1;
    return counts;
  }

  idle(timeoutMs?: number): Promise<void> {
    return waitForIdle(async () => {
      for (const job of this.#jobs.values()) {
        // A schedule's next run waiting out its delay is not work in progress.
        const pendingIteration = job.scheduler !== undefined && this.#schedules.get(job.scheduler)?.pendingId === job.id;
        if (!(job.state === 'delayed' && pendingIteration)) return false;
      }
      return true;
    }, timeoutMs);
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    // No timer may fire after close (it would start work, and keep the process alive).
    for (const job of this.#jobs.values()) this.#clearTimer(job);
    this.#schedules.clear();
    await Promise.all([...this.#running]);
    // What was still waiting or delayed lives only in this process: it ends with it.
    this.#waiting.clear();
    this.#jobs.clear();
  }

  #assertOpen(): void {
    if (this.#closing) throw new QueueClosedError();
  }

  #check(options: JobOptions | undefined): void {
    if (options?.jobId !== undefined) assertValidJobId(options.jobId);
    const delay = options?.delayMs;
    if (delay !== undefined && (!Number.isFinite(delay) || delay < 0)) throw new RangeError(`delayMs must be ≥ 0: ${delay}`);
  }

  #addJob(name: string, data: unknown, options: JobOptions | undefined): void {
    const id = options?.jobId ?? String(++this.#nextId);
    // Deduplication: a live or failed job keeps its id (BullMQ keeps the job hash until it is removed).
    if (this.#jobs.has(id) || this.#failed.has(id)) return;
    const job: MemoryJob = { id, name, data: toJsonData(data), attemptsMade: 0, state: 'waiting' };
    this.#jobs.set(id, job);
    const delay = options?.delayMs ?? 0;
    if (delay > 0) this.#delay(job, delay);
    else this.#enqueue(job);
  }

  /** Adds the iteration of `name` due at `at`, walking forward past slots whose id is taken. */
  #addIteration(name: string, schedule: Schedule, at: number): void {
    let due = at;
    let id = `repeat:${name}:${due}`;
    for (let scans = 0; (this.#jobs.has(id) || this.#failed.has(id)) && scans < MAX_SLOT_SCANS; scans++) {
      due += schedule.everyMs;
      id = `repeat:${name}:${due}`;
    }
    schedule.nextAt = due;
    schedule.pendingId = id;
    const job: MemoryJob = { id, name, data: schedule.data, attemptsMade: 0, state: 'waiting', scheduler: name };
    this.#jobs.set(id, job);
    const delay = due - Date.now();
    if (delay > 0) this.#delay(job, delay);
    else this.#enqueue(job);
  }

  /** When an iteration starts, the next one is created (as BullMQ does), on the same grid. */
  #scheduleNext(job: MemoryJob): void {
    const name = job.scheduler;
    if (name === undefined) return;
    const schedule = this.#schedules.get(name);
    if (!schedule || schedule.pendingId !== job.id) return;
    const now = Date.now();
    let next = schedule.nextAt + schedule.everyMs;
    // Missed ticks (a busy process) are skipped, not caught up.
    if (next <= now) next += Math.ceil((now - next + 1) / schedule.everyMs) * schedule.everyMs;
    this.#addIteration(name, schedule, next);
  }

  #enqueue(job: MemoryJob): void {
    job.state = 'waiting';
    this.#waiting.add(job);
    this.#pump();
  }

  #delay(job: MemoryJob, ms: number): void {
    job.state = 'delayed';
    // A job failing while the queue closes gets no timer: nothing may fire after close.
    if (this.#closing) return;
    job.timer = setTimeout(() => {
      job.timer = undefined;
      this.#enqueue(job);
    }, ms);
  }

  #clearTimer(job: MemoryJob): void {
    if (job.timer) clearTimeout(job.timer);
    job.timer = undefined;
  }

  /** Removes a job that is not running. */
  #discard(job: MemoryJob): void {
    this.#clearTimer(job);
    this.#waiting.delete(job);
    this.#jobs.delete(job.id);
  }

  /** Starts waiting jobs while there are free slots. */
  #pump(): void {
    const handlers = this.#handlers;
    if (!handlers || this.#closing) return;
    while (this.#running.size < this.#options.concurrency) {
      const next = this.#nextWaiting();
      if (!next) return;
      this.#waiting.delete(next);
      const urgent = this.#urgent.has(next.name);
      if (!urgent) this.#runningOthers++;
      const run = this.#run(handlers, next);
      this.#running.add(run);
      void run.finally(() => {
        this.#running.delete(run);
        if (!urgent) this.#runningOthers--;
        this.#pump();
      });
    }
  }

  /** The first urgent job waiting, else the first other one unless it would take the kept slot. */
  #nextWaiting(): MemoryJob | undefined {
    if (this.#urgent.size === 0) return this.#waiting.values().next().value;
    let other: MemoryJob | undefined;
    for (const job of this.#waiting) {
      if (this.#urgent.has(job.name)) return job;
      other ??= job;
    }
    // With one slot there is none to keep: urgent jobs only go first.
    return this.#options.concurrency === 1 || this.#runningOthers < this.#options.concurrency - 1 ? other : undefined;
  }

  async #run(handlers: Record<string, JobHandler<unknown> | undefined>, job: MemoryJob): Promise<void> {
    job.state = 'active';
    this.#scheduleNext(job);
    // Never run a handler inside the caller's stack (add, work): it starts on a later tick.
    await null;
    const handler = handlers[job.name];
    try {
      if (!handler) throw new UnrecoverableJobError(`no handler for job ${job.name}`);
      await handler(job.data, { jobId: job.id, name: job.name, attempt: job.attemptsMade + 1 });
      this.#jobs.delete(job.id);
    } catch (err) {
      job.attemptsMade += 1;
      if (err instanceof UnrecoverableJobError || job.attemptsMade >= this.#options.attempts) this.#fail(job, err);
      else this.#delay(job, retryDelayMs(job.attemptsMade, this.#options));
    }
  }

  #fail(job: MemoryJob, err: unknown): void {
    this.#jobs.delete(job.id);
    this.#failed.set(job.id, {
      id: job.id,
      name: job.name,
      data: job.data,
      error: errorMessage(err),
      attempts: job.attemptsMade,
      failedAt: new Date(),
    });
    // Keep the newest `keepFailed`: drop from the oldest end.
    for (const id of this.#failed.keys()) {
      if (this.#failed.size <= this.#options.keepFailed) break;
      this.#failed.delete(id);
    }
  }
}
