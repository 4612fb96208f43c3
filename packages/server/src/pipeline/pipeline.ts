/**
 * The pipeline wired to its queue: ingest hands it committed events, workers run the jobs
 * (process, deliver, sweep, rollup), and the schedule keeps the sweep and the rollups going. The
 * same handlers run on the in-process queue (embedded) and on BullMQ (production).
 */
import { analyzeGrownTables } from '../db/analyze-grown-tables.js';
import { vacuumChurningTables } from '../db/database-upkeep.js';
import { waitForIdle, type JobQueue, type QueueCounts } from '../queue/job-queue.js';
import { evaluateAlertTick, type AlertTickReport } from './alert-evaluation.js';
import { applyEffects } from './effects.js';
import { SqlLiveCounters, type LiveCounterReader } from '../store/live-counters.js';
import type { RedisLiveCounters } from './live-counter-store.js';
import type { EventKey, PipelineJobs, ProcessJobs } from './pipeline-jobs.js';
import { addReport, emptyReport, type CounterTarget, type ProcessReport } from './process-events.js';
import { processIsolating } from './process-isolating.js';
import { batchSizerFor, type BatchSizer } from './batch-sizer.js';
import { RESCORE_MODULE, rescoreDirtyResponsesTimed, type RescoreRun } from './rescore.js';
import { RESCORE_DELAY_MS, RESCORE_RUN_MS, RescorePacer, rescoreJobId } from './rescore-pacing.js';
import { SingleFlight } from './single-flight.js';
import { RollupPool } from './rollup-pool.js';
import { rollupDirtyDays } from './rollup.js';
import type { TrainingBatchKindName } from '@feedloop/core';
import type { TrainingBatchView } from '../store/training-batches.js';
import { upkeepEventLog } from '../store/event-log-upkeep.js';
import { HeldEvents } from './held-events.js';
import { createTrainingBatch, makeDueTrainingBatches } from './training-batch-maker.js';
import { runRetention, type RetentionReport } from './retention.js';
import { runEvaluatorTick } from './evaluator-tick.js';
import type { PipelineDeps } from './pipeline-deps.js';

/** Events a sweep re-enqueues at most. */
const SWEEP_EVENT_LIMIT = 50_000;
/** Effects and deliveries a sweep retries at most. */
const SWEEP_ROW_LIMIT = 1_000;
/** How long committed events wait for others to share a queue job with. */
const ENQUEUE_COALESCE_MS = 5;
/** The schedule is re-installed every this many sweep intervals, within these bounds. */
const SCHEDULE_KEEP_FACTOR = 10;
const SCHEDULE_KEEP_MIN_MS = 1_000;
const SCHEDULE_KEEP_MAX_MS = 60_000;

/**
 * The processing pipeline of one process.
 *
 * @example
 * const pipeline = new Pipeline({ db, config, queue, deliverWebhooks: (s) => deliverDueWebhooks(db, s) });
 * await pipeline.startWorker();          // this process also processes
 * pipeline.enqueue([['ws_1', eventId]]); // after an ingest commit
 */
export class Pipeline {
  /** Today's numbers, from wherever this profile keeps them. */
  readonly liveCounters: LiveCounterReader;
  readonly #counters: CounterTarget;
  /** Where `process` jobs go: the processing lane, or the one queue. */
  readonly #processQueue: JobQueue<ProcessJobs>;
  readonly #redisCounters: RedisLiveCounters | undefined;
  /** Rollup arithmetic, in a thread of its own (rollup-pool.ts). */
  readonly #rollups = new RollupPool();
  /** Events per processing transaction: the job's batch on Postgres, sized by time embedded. */
  readonly #processSizer: BatchSizer;
  #working = false;
  #keeper: NodeJS.Timeout | undefined;
  /** Committed events not yet handed to the queue (see {@link enqueue}). */
  readonly #unsent: EventKey[] = [];
  #sendTimer: NodeJS.Timeout | undefined;
  /** Process jobs running in this process now. */
  #processJobs = 0;
  /** The events this process holds, and the sweep's read past them (held-events.ts). */
  readonly #held: HeldEvents;
  readonly #rescore = new SingleFlight();
  readonly #rescorePacer = new RescorePacer();
  /** The statistics run going, if any (see {@link analyze}). */
  #analysis: Promise<unknown> | undefined;
  /** Aborted by {@link close}: long upkeep (a rollup reading a busy day) stops instead of holding the shutdown. */
  readonly #closing = new AbortController();

  constructor(private readonly deps: PipelineDeps) {
    const { config, db } = deps;
    this.#processSizer = batchSizerFor(db, config.pipelineBatch);
    this.#processQueue = deps.processQueue ?? deps.queue;
    this.#held = new HeldEvents(this.#processQueue.kind === 'memory' && db.dialect === 'pglite');
    if (deps.redisCounters) {
      this.#redisCounters = deps.redisCounters;
      this.liveCounters = this.#redisCounters;
      this.#counters = { kind: 'outbox' };
    } else {
      const store = new SqlLiveCounters(db);
      this.liveCounters = store;
      this.#counters = { kind: 'sql', store };
    }
  }

  /**
   * Hands committed events to the queue, one job per batch of up to `pipelineBatch` events. Never
   * throws and never waits: when the queue is away, the events stay in the outbox for the sweep.
   */
  enqueue(keys: readonly EventKey[]): void {
    if (keys.length === 0) return;
    this.#held.add(keys);
    // Flushes a moment apart share jobs: one queue round trip (a Redis script on BullMQ, 5 % of
    // the API's CPU at one a flush) for all of them, and fuller jobs for the workers.
    this.#unsent.push(...keys);
    if (this.#unsent.length >= this.deps.config.pipelineBatch) this.sendUnsent();
    // In process, while a process job runs the next one gathers what arrives and goes when it ends:
    // one-event jobs spent the database on each transaction's fixed cost alone.
    else if (this.#processQueue.kind === 'memory' && this.#processJobs > 0) return;
    else this.#sendTimer ??= setTimeout(() => this.sendUnsent(), ENQUEUE_COALESCE_MS);
  }

  /** Hands the keys gathered by {@link enqueue} to the queue now. */
  private sendUnsent(): Promise<void> {
    clearTimeout(this.#sendTimer);
    this.#sendTimer = undefined;
    const keys = this.#unsent.splice(0);
    if (keys.length === 0) return Promise.resolve();
    return this.addProcessJobs(keys).catch((err: unknown) => this.deps.observer?.error?.('enqueue', err));
  }

  /** Starts consuming jobs in this process and installs the schedule (idempotent across processes). */
  async startWorker(): Promise<void> {
    if (this.#working) return;
    this.#working = true;
    const processJob = async (data: ProcessJobs['process']): Promise<void> => {
      this.#processJobs++;
      try {
        await this.process(data.events);
      } finally {
        this.#held.release(data.events);
        if (--this.#processJobs === 0 && this.#unsent.length > 0) void this.sendUnsent();
      }
    };
    if (this.#processQueue !== this.deps.queue) this.#processQueue.work({ process: processJob });
    this.deps.queue.work({
      // Also with a lane of its own: an API process of an earlier version still adds them here.
      process: processJob,
      deliver: async (data) => {
        await this.deps.deliverWebhooks({ ids: data.ids });
      },
      sweep: async () => {
        await this.sweep();
      },
      rollup: async (data) => {
        const only = data.workspaceId === undefined ? {} : { workspaceId: data.workspaceId };
        await rollupDirtyDays(this.deps.db, { compute: (input) => this.#rollups.compute(input), signal: this.#closing.signal, ...only });
      },
      // One at a time in a process (single-flight.ts), paced (rescore-pacing.ts). Embedded, next to the database, as processing is.
      rescore: () => this.#rescore.run(() => this.rescore()),
      alerts: async () => {
        await this.evaluateAlerts();
      },
      retention: async () => {
        await this.retention();
      },
      'judge-new': async (data) => {
        const ids = (await this.deps.evaluators?.planNewResponses(data.workspaceId, data.responseIds)) ?? [];
        if (ids.length > 0) await this.deps.evaluators?.dispatch({ ids });
      },
      judge: async (data) => {
        await this.deps.evaluators?.dispatch({ ids: data.ids });
      },
      evaluators: async () => {
        await this.evaluatorTick();
      },
      'training-batches': async () => {
        await this.trainingBatches();
      },
    });
    // The in-process queue starts empty: the events a previous process committed and never
    // processed wait in the outbox. They are this process's alone, so they are taken now rather
    // than after the sweep's grace (a restarted embedded server resumes its backlog at once), and
    // before the schedule's first sweep, which then need not read them again (held-events.ts).
    if (this.deps.queue.kind === 'memory') {
      // Statistics first (PGlite has no autoanalyze), not awaited: its transactions queue ahead of the backlog's.
      if (this.deps.db.dialect === 'pglite') void this.analyze().catch((err: unknown) => this.deps.observer?.error?.('analyze', err));
      await this.addProcessJobs(await this.#held.stale(this.deps.db, 0, SWEEP_EVENT_LIMIT));
    }
    await this.installSchedule();
    // A Redis that restarted empty has forgotten the schedule; every worker puts it back now and
    // then (an idempotent upsert), so the sweep that recovers lost jobs always comes back too.
    const every = Math.min(Math.max(this.deps.config.sweepIntervalMs * SCHEDULE_KEEP_FACTOR, SCHEDULE_KEEP_MIN_MS), SCHEDULE_KEEP_MAX_MS);
    this.#keeper = setInterval(() => {
      this.installSchedule().catch((err: unknown) => this.deps.observer?.error?.('schedule', err));
    }, every);
  }

  private async installSchedule(): Promise<void> {
    const { queue, config } = this.deps;
    await queue.schedule('sweep', config.sweepIntervalMs, {});
    await queue.schedule('rollup', config.rollupIntervalMs, {});
    await queue.schedule('rescore', config.sweepIntervalMs, {});
    await queue.schedule('alerts', config.alertIntervalMs, {});
    await queue.schedule('training-batches', config.trainingBatchIntervalMs, {});
    await queue.schedule('retention', config.retentionIntervalMs, {});
    if (this.deps.evaluators) await queue.schedule('evaluators', config.sweepIntervalMs, {});
  }

  /**
   * The `evaluators` job (evaluator-tick.ts); a changed judge weight asks for a rescore.
   */
  async evaluatorTick(): Promise<{ planned: number; claimed: number }> {
    return runEvaluatorTick(this.deps.db, this.deps.evaluators, () => this.requestRescore());
  }

  /** Hands newly created responses to the evaluators (a job); never throws: a missed one is a backfill's. */
  judgeNewResponses(workspaceId: string, responseIds: string[]): void {
    if (!this.deps.evaluators || responseIds.length === 0) return;
    this.deps.queue.add('judge-new', { workspaceId, responseIds }).catch((err: unknown) => this.deps.observer?.error?.('judge-new', err));
  }

  /** Sends these evaluator calls soon (a job); a failed queue leaves them to the tick. */
  async judgeSoon(ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.deps.queue.add('judge', { ids }).catch((err: unknown) => this.deps.observer?.error?.('judge', err));
  }

  /** Runs an evaluator tick soon (a backfill just started); the schedule runs it anyway. */
  async evaluatorsSoon(): Promise<void> {
    await this.deps.queue.add('evaluators', {}).catch((err: unknown) => this.deps.observer?.error?.('evaluators', err));
  }

  /**
   * The `alerts` job: evaluates this tick's alert rules unless another worker has, then sends
   * the deliveries it queued (a failed one is retried by the sweep, like every delivery).
   */
  async evaluateAlerts(now?: Date): Promise<AlertTickReport> {
    const { db, config } = this.deps;
    const report = await evaluateAlertTick(db, { intervalMs: config.alertIntervalMs, ...(now ? { now } : {}) });
    for (const { error } of report.errors) this.deps.observer?.error?.('alerts', error);
    await this.deliverSoon(report.deliveryIds);
    return report;
  }

  /** The `training-batches` job: the kinds of `FEEDLOOP_TRAINING_BATCH_KINDS` (training-batch-maker.ts), each batch's `training.batch_ready` delivered. */
  async trainingBatches(): Promise<number> {
    const { db, config } = this.deps;
    const options = { kinds: config.trainingBatchKinds, threshold: config.trainingBatchThreshold, dir: config.trainingBatchDir, stream: this.deps.sink !== undefined };
    return makeDueTrainingBatches(db, options, (created) => this.afterBatch(created.deliveryIds, created.effectId));
  }

  /** Archives and deletes raw events past retention (the scheduled `retention` job). */
  async retention(now?: Date): Promise<RetentionReport> {
    return runRetention(this.deps.db, { archive: this.deps.config.archive, s3: this.deps.config.s3, defaultMaxEvents: this.deps.config.defaultMaxEvents, ...(now ? { now } : {}) });
  }

  /**
   * Makes one batch of a workspace's unused examples of a kind now, however few (at least one):
   * a batch on demand (`POST /v1/training-batches?kind=`), of any kind, enabled or not. Null when
   * none is unused.
   */
  async trainingBatchNow(workspaceId: string, kind: TrainingBatchKindName = 'corrections'): Promise<TrainingBatchView | null> {
    const { db, config } = this.deps;
    const created = await createTrainingBatch(db, { workspaceId, kind, minEvents: 1, dir: config.trainingBatchDir, stream: this.deps.sink !== undefined });
    if (!created) return null;
    await this.afterBatch(created.deliveryIds, created.effectId);
    return created.batch;
  }

  /** Starts what a training batch made outside its transaction: its webhook deliveries and its stream message. */
  async afterBatch(deliveryIds: number[], effectId: number | null): Promise<void> {
    if (effectId !== null) await this.applyEffectsOf(effectId);
    await this.deliverSoon(deliveryIds);
  }

  /**
   * Processes events now (the `process` job), then applies its effects and starts its
   * deliveries. Embedded, a job's events go in transactions sized by time (batch-sizer.ts), each
   * with its effects, so requests never wait for a whole job.
   */
  async process(keys: readonly EventKey[]): Promise<ProcessReport> {
    const started = performance.now();
    const total = emptyReport();
    for (let at = 0; at < keys.length; ) {
      const chunk = keys.slice(at, at + this.#processSizer.sizeFor(keys.length - at));
      at += chunk.length;
      const report = await processIsolating(this.deps.db, chunk, { counters: this.#counters, stream: this.deps.sink !== undefined, applyEffects: (id) => this.applyEffectsOf(id) });
      // The time the transaction held the database, not the time it waited for it.
      this.#processSizer.record(chunk.length, report.heldMs);
      if (report.effectId !== null) await this.applyEffectsOf(report.effectId);
      addReport(total, report);
    }
    await this.deliverSoon(total.deliveryIds);
    if (total.counted > 0 || total.retracted > 0) {
      // One rescore job a window (its id), a moment after the first batch that wants it:
      // the batches of that moment share one recompute of each response they touched.
      await this.requestRescore();
    }
    this.deps.observer?.processed?.(total, performance.now() - started);
    return total;
  }

  /**
   * The outbox sweep (the `sweep` job): re-enqueues events the queue lost, applies effects left
   * behind, sends webhook deliveries that are due (retries), keeps the event log's partitions
   * ready and its fingerprints to their windows, analyzes the tables that grew, and on PGlite
   * vacuums the outboxes (it has no autovacuum).
   */
  async sweep(): Promise<{ requeued: number; effects: number; deliveries: number }> {
    const { db, config } = this.deps;
    const stale = await this.#held.stale(db, config.sweepGraceMs, SWEEP_EVENT_LIMIT);
    await this.addProcessJobs(stale);
    const effects = await applyEffects(db, { olderThanMs: config.sweepGraceMs, limit: SWEEP_ROW_LIMIT }, this.targets());
    const deliveries = await this.deps.deliverWebhooks({ limit: SWEEP_ROW_LIMIT });
    await upkeepEventLog(db);
    // PGlite runs no autovacuum; Postgres's reaches a grown table up to a minute late: without
    // statistics the planner guessed, and guessed badly (see analyze-grown-tables.ts).
    if (db.dialect === 'pglite') await vacuumChurningTables(db);
    await this.analyze();
    return { requeued: stale.length, effects: effects.applied, deliveries: deliveries.delivered + deliveries.retried + deliveries.failed };
  }

  /** Resolves when both queues have nothing waiting, delayed or active, and no event waits to be sent (tests, benchmarks). */
  async idle(timeoutMs?: number): Promise<void> {
    const lane = this.#processQueue === this.deps.queue ? undefined : this.#processQueue;
    // A process job adds rescore and deliver jobs, and a judge's job adds events to process.
    return waitForIdle(async () => {
      await this.sendUnsent();
      await lane?.idle(timeoutMs);
      await this.deps.queue.idle(timeoutMs);
      const counts = await lane?.counts();
      return this.#unsent.length === 0 && (counts === undefined || counts.waiting + counts.active + counts.delayed === 0);
    }, timeoutMs);
  }

  /** The `rescore` job: a paced run, else a job at its pause's end (rescore-pacing.ts); a run cut short asks for the next. */
  private async rescore(): Promise<void> {
    const deferral = this.#rescorePacer.deferral();
    if (deferral) {
      await this.deps.queue.add('rescore', {}, deferral).catch((err: unknown) => this.deps.observer?.error?.('rescore', err));
      return;
    }
    const { db } = this.deps;
    const run = await (db.runInThread ? db.runInThread<RescoreRun>(RESCORE_MODULE, 'rescoreDirtyResponsesTimed', [undefined, RESCORE_RUN_MS]) : rescoreDirtyResponsesTimed(db, undefined, RESCORE_RUN_MS));
    this.#rescorePacer.ran(run.heldMs);
    if (run.more) await this.requestRescore();
  }

  /** Asks for a rescore a moment from now (one job a window); never throws: the schedule finds the marks. */
  private async requestRescore(): Promise<void> {
    await this.deps.queue.add('rescore', {}, { jobId: rescoreJobId(), delayMs: RESCORE_DELAY_MS }).catch((err: unknown) => this.deps.observer?.error?.('rescore', err));
  }

  /** Enqueues a rescore and a rollup of the workspace's dirty days (an erasure marked them); never throws: the schedule finds the marks. */
  async recompute(workspaceId: string): Promise<void> {
    const failed = (err: unknown) => this.deps.observer?.error?.('recompute', err);
    await Promise.all([this.requestRescore(), this.deps.queue.add('rollup', { workspaceId }).catch(failed)]);
  }

  /** The job counts (waiting, active, delayed, failed) of the queue and the processing lane together. */
  async queueCounts(): Promise<QueueCounts> {
    const [queue, lane] = await Promise.all([this.deps.queue.counts(), this.#processQueue === this.deps.queue ? undefined : this.#processQueue.counts()]);
    if (!lane) return queue;
    return { waiting: queue.waiting + lane.waiting, active: queue.active + lane.active, delayed: queue.delayed + lane.delayed, failed: queue.failed + lane.failed };
  }

  /** Stops consuming (in-flight jobs finish first) and closes what the pipeline opened. */
  async close(): Promise<void> {
    this.#closing.abort();
    clearInterval(this.#keeper);
    await this.sendUnsent();
    // The lane first: its running jobs finish, and add their rescore and deliver jobs to the open queue.
    if (this.#processQueue !== this.deps.queue) await this.#processQueue.close();
    await this.deps.queue.close();
    await this.#rollups.close();
    await this.#redisCounters?.close();
    await this.deps.sink?.close();
  }

  /** Applies one batch's effects after its commit; a failure leaves them in the outbox for the sweep. */
  /** Queues the sending of deliveries a transaction made (a failed queue leaves them to the sweep). */
  private async deliverSoon(ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.deps.queue.add('deliver', { ids }).catch((err: unknown) => this.deps.observer?.error?.('deliver', err));
  }

  private async applyEffectsOf(effectId: number): Promise<void> {
    await applyEffects(this.deps.db, { ids: [effectId] }, this.targets()).catch((err: unknown) => this.deps.observer?.error?.('effects', err));
  }

  private targets() {
    return { ...(this.#redisCounters ? { counters: this.#redisCounters } : {}), ...(this.deps.sink ? { sink: this.deps.sink } : {}) };
  }

  /** {@link analyzeGrownTables}, one run at a time: the start-up's and the first sweep's both found the same tables grown and analyzed them twice. */
  private analyze(): Promise<unknown> {
    this.#analysis ??= analyzeGrownTables(this.deps.db).finally(() => (this.#analysis = undefined));
    return this.#analysis;
  }

  private async addProcessJobs(keys: readonly EventKey[]): Promise<void> {
    this.#held.add(keys);
    const size = this.deps.config.pipelineBatch;
    const jobs: Array<{ name: 'process'; data: PipelineJobs['process'] }> = [];
    for (let i = 0; i < keys.length; i += size) jobs.push({ name: 'process', data: { events: keys.slice(i, i + size) } });
    if (jobs.length > 0) await this.#processQueue.addBulk(jobs);
  }
}
