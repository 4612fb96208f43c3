/**
 * Benchmark: the processing pipeline in the production profile (Postgres + Redis, BullMQ): ingest
 * in this process (the API's IngestService, without HTTP), processing in a `feedloop worker`
 * child process, as deployed.
 * - Throughput: events already committed by ingest (their jobs waiting in BullMQ) are processed
 *   by the worker; the figure is events/s from the worker's start-up message until the outbox and
 *   the effects are empty.
 *   Baseline, same run: the seed's way (ADR-016 `processFeedback`): one BullMQ job per event, whose
 *   worker INSERTs one row and HINCRBYs one Redis counter, with the same worker concurrency.
 * - Lag: ingest at a steady rate (default 10,000 events/s, batches of 100) while the worker runs;
 *   for each committed batch, the time until the Redis live counters include it (p50/p99).
 *
 * Run: npm run build && node --import tsx bench/pipeline.bench.ts
 * Knobs: BENCH_DATABASE_URL, BENCH_REDIS_URL, BENCH_PIPELINE_EVENTS (50000), BENCH_SEED_EVENTS (5000),
 *        BENCH_LAG_RATE (10000 events/s), BENCH_LAG_SECONDS (5).
 */
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { utcDay, validateFeedbackEvent, type FeedbackEvent, resolveWorkspaceSettings } from '../packages/core/src/index.js';
import { loadConfig } from '../packages/server/src/config.js';
import { migrate } from '../packages/server/src/db/migrate.js';
import { openPostgres } from '../packages/server/src/db/postgres-client.js';
import type { SqlClient } from '../packages/server/src/db/sql-client.js';
import type { AuthContext } from '../packages/server/src/store/auth-context.js';
import { createServices } from '../packages/server/src/server.js';
import { createWorkspace } from '../packages/server/src/store/workspaces.js';
import {
  BENCH_REDIS_URL as REDIS_URL,
  dec,
  deleteRedisPrefix,
  envInt,
  int,
  isMain,
  sleep,
  startFeedloopWorker,
  token,
  type BenchResult,
} from './bench-server.js';
import { createFreshDatabase } from './bench-database.js';
import { describeCpu, sampleCpu } from './bench-measure.js';
import { makeEvent, makeResponses, type ResponseRef } from './bench-workload.js';

/** Responses the events spread over: 5 to 15 signals each by the end, hotter than most products see. */
const RESPONSES = 10_000;
const INGEST_CHUNK = 1_000;
const LAG_BATCH = 100;
const WORKER_CONCURRENCY = 4;
const THROUGHPUT_TARGET_RATIO = 20;
const LAG_TARGET_MS = 1_000;

function validated(wire: Record<string, unknown>): FeedbackEvent {
  const checked = validateFeedbackEvent(wire);
  if (!checked.ok) throw new Error(`bench event invalid: ${checked.error.message}`);
  return checked.value;
}

async function count(db: SqlClient, table: string): Promise<number> {
  return (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]?.n ?? 0;
}

async function waitFor(what: string, done: () => Promise<boolean>, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** The seed's way: one BullMQ job per event; the worker stores one row and bumps one Redis counter. */
async function seedWay(db: SqlClient, events: readonly FeedbackEvent[], workspaceId: string): Promise<number> {
  await db.exec(`CREATE TABLE session_feedback (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(), session_id text NOT NULL, rating varchar(20) NOT NULL, comment text,
    submitted_at timestamptz DEFAULT now(), submitted_by text)`);
  const prefix = `flbench-seed-${token()}`;
  // BullMQ does not close connections it was given: these are closed below.
  const queueConnection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const workerConnection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const queue = new Queue('feedback-processing', { connection: queueConnection, prefix });
  const redis = new Redis(REDIS_URL);
  for (let i = 0; i < events.length; i += INGEST_CHUNK) {
    await queue.addBulk(
      events.slice(i, i + INGEST_CHUNK).map((e) => ({
        name: 'process_feedback',
        data: { type: 'process_feedback', sessionId: e.responseId, feedback: { workspaceId, rating: e.type === 'thumbs_down' ? 'negative' : 'positive', comment: null, submittedBy: e.userId } },
        opts: { removeOnComplete: true },
      })),
    );
  }
  let processed = 0;
  const t0 = performance.now();
  const worker = new Worker(
    'feedback-processing',
    async (job) => {
      const { sessionId, feedback } = job.data as { sessionId: string; feedback: { workspaceId: string; rating: string; comment: string | null; submittedBy: string } };
      await db.query('INSERT INTO session_feedback (session_id, rating, comment, submitted_by) VALUES ($1, $2, $3, $4)', [sessionId, feedback.rating, feedback.comment, feedback.submittedBy]);
      await redis.hincrby(`${prefix}:feedback:${feedback.workspaceId}:today`, feedback.rating, 1);
      processed++;
    },
    { connection: workerConnection, prefix, concurrency: WORKER_CONCURRENCY },
  );
  await waitFor('the seed worker', async () => processed >= events.length);
  const seconds = (performance.now() - t0) / 1000;
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  redis.disconnect();
  queueConnection.disconnect();
  workerConnection.disconnect();
  await deleteRedisPrefix(prefix);
  return events.length / seconds;
}

/** What a lag run needs: how to ingest, what to send, how to read the counters' total. */
interface LagRun {
  rate: number;
  seconds: number;
  ingest(events: FeedbackEvent[]): Promise<Array<{ status: string }>>;
  /** Events made and validated before the clock starts, so the schedule is not slowed by making them. */
  events: FeedbackEvent[];
  read(): Promise<Record<string, number>>;
  /** The worker's pid, for the CPU line. */
  workerPid: number;
}

/**
 * Ingests batches of {@link LAG_BATCH} on a fixed schedule while polling the live counters every
 * 2 ms; a batch's lag is the time from its commit to the first poll whose total includes it.
 */
async function measureLag(run: LagRun): Promise<{ offered: number; achieved: number; p50: number; p99: number }> {
  const totalNow = async (): Promise<number> => (await run.read()).total ?? 0;
  const base = await totalNow();
  const commits: Array<{ at: number; cumulative: number }> = [];
  const seen: Array<{ at: number; total: number }> = [];
  let polling = true;
  const poller = (async () => {
    while (polling) {
      seen.push({ at: performance.now(), total: (await totalNow()) - base });
      await sleep(2);
    }
  })();
  const batches = Math.round((run.rate * run.seconds) / LAG_BATCH);
  const interval = (1000 * LAG_BATCH) / run.rate;
  const cpuBefore = sampleCpu(run.workerPid);
  const start = performance.now();
  let cumulative = 0;
  let late = 0;
  const commitMs: number[] = [];
  const inflight: Promise<void>[] = [];
  for (let b = 0; b < batches; b++) {
    const wait = start + b * interval - performance.now();
    if (wait > 0) await sleep(wait);
    // How late the generator sends: late batches mean this process, not ingest, set the rate.
    late = Math.max(late, -wait);
    const sent = performance.now();
    inflight.push(
      run.ingest(run.events.slice(b * LAG_BATCH, (b + 1) * LAG_BATCH)).then((outcomes) => {
        commitMs.push(performance.now() - sent);
        cumulative += outcomes.filter((o) => o.status === 'accepted').length;
        commits.push({ at: performance.now(), cumulative });
      }),
    );
  }
  const issuedIn = performance.now() - start;
  await Promise.all(inflight);
  const achieved = (batches * LAG_BATCH) / ((performance.now() - start) / 1000);
  const cpu = describeCpu(cpuBefore, sampleCpu(run.workerPid), 'worker');
  await waitFor('the counters', async () => (await totalNow()) - base >= cumulative);
  polling = false;
  await poller;
  const lags = commits
    .map((c) => (seen.find((s) => s.at >= c.at && s.total >= c.cumulative)?.at ?? NaN) - c.at)
    .filter((x) => Number.isFinite(x))
    .sort((a, b) => a - b);
  const result = { offered: run.rate, achieved, p50: percentile(lags, 50), p99: percentile(lags, 99) };
  console.log(`lag commit → live counter at ${int(achieved)} events/s (offered ${int(run.rate)}): p50 ${dec(result.p50, 0)} ms, p99 ${dec(result.p99, 0)} ms over ${lags.length} batches`);
  commitMs.sort((a, b) => a - b);
  console.log(
    `  generator: ${batches} batches sent in ${dec(issuedIn / 1000, 1)} s of ${run.seconds} s (latest ${dec(late, 0)} ms behind schedule); ` +
      `ingest submit → commit p50 ${dec(percentile(commitMs, 50), 0)} ms, p99 ${dec(percentile(commitMs, 99), 0)} ms; ${cpu} (bench process = generator + ingest)`,
  );
  return result;
}

/** Runs the pipeline benchmark. */
export async function runPipelineBench(): Promise<BenchResult[]> {
  const eventsN = envInt('BENCH_PIPELINE_EVENTS', 50_000);
  const seedN = envInt('BENCH_SEED_EVENTS', 5_000);
  const lagRate = envInt('BENCH_LAG_RATE', 10_000);
  const lagSustained = envInt('BENCH_LAG_SUSTAINED_RATE', 2_500);
  const lagSeconds = envInt('BENCH_LAG_SECONDS', 5);
  const fresh = await createFreshDatabase();
  const runId = token();
  const prefix = `flbench-${runId}`;
  const db = await openPostgres(fresh.url, { max: 10 });
  const results: BenchResult[] = [];
  try {
    await migrate(db);
    const workerEnv = { REDIS_URL, FEEDLOOP_REDIS_PREFIX: prefix, FEEDLOOP_WORKER_CONCURRENCY: String(WORKER_CONCURRENCY) };
    const config = loadConfig({ DATABASE_URL: fresh.url, LOG_LEVEL: 'silent', ...workerEnv });
    const { services, close } = createServices(config, db);
    const { workspace } = await createWorkspace(db, { name: `bench-${runId}`, settings: { implicitConsent: 'assumed' } });
    const auth: AuthContext = { keyId: 'bench', workspaceId: workspace.id, kind: 'secret', settings: resolveWorkspaceSettings({ dedupWindowSeconds: 0 }) };
    const responses = makeResponses(runId, RESPONSES);
    for (let i = 0; i < responses.length; i += INGEST_CHUNK) await services.ingest.registerResponses(auth, responses.slice(i, i + INGEST_CHUNK));
    const refs: ResponseRef[] = responses.map(({ id, answer }) => ({ id, answer }));
    let g = 0;
    const nextEvents = (n: number): FeedbackEvent[] =>
      Array.from({ length: n }, () => validated(makeEvent(g++, runId, refs, new Date().toISOString())));

    // Throughput: commit everything first (jobs wait in BullMQ), then let the worker loose.
    const all = nextEvents(eventsN);
    for (let i = 0; i < all.length; i += INGEST_CHUNK) await services.ingest.submitFeedback(auth, all.slice(i, i + INGEST_CHUNK));
    const worker = await startFeedloopWorker({ databaseUrl: fresh.url, env: workerEnv });
    const t0 = performance.now();
    await waitFor('the pipeline', async () => (await count(db, 'pipeline_pending')) === 0 && (await count(db, 'pipeline_effects')) === 0);
    const pipelineRate = eventsN / ((performance.now() - t0) / 1000);
    const processed = await count(db, 'feedback_signals');
    // The worker's own slot count (its start-up line): BENCH_SERVER_ENV may set another than this process's config.
    const slots = /"processConcurrency":(\d+)/.exec(worker.output())?.[1] ?? String(config.processConcurrency);
    console.log(`pipeline: ${int(processed)} events processed at ${int(pipelineRate)} events/s (worker: ${slots} processing + ${WORKER_CONCURRENCY} upkeep slots, jobs of up to ${config.pipelineBatch})`);

    // Lag: steady ingest while the worker runs, at a rate this machine sustains and at the target.
    const lag: Array<{ offered: number; achieved: number; p50: number; p99: number }> = [];
    for (const rate of [lagSustained, lagRate]) {
      const events = nextEvents(Math.round((rate * lagSeconds) / LAG_BATCH) * LAG_BATCH);
      lag.push(
        await measureLag({
          rate,
          seconds: lagSeconds,
          events,
          ingest: (batch) => services.ingest.submitFeedback(auth, batch),
          workerPid: worker.pid,
          read: () => services.pipeline.liveCounters.read(workspace.id, utcDay(new Date())),
        }),
      );
      await waitFor('the pipeline to drain', async () => (await count(db, 'pipeline_pending')) === 0);
    }
    await worker.stop();
    await close();

    const seedEvents = Array.from({ length: seedN }, () => validated(makeEvent(g++, runId, refs, new Date().toISOString())));
    const seedRate = await seedWay(db, seedEvents, workspace.id);
    console.log(`seed's way (one BullMQ job + one INSERT + one HINCRBY per event): ${int(seedRate)} events/s`);
    const ratio = pipelineRate / seedRate;
    results.push(
      { name: 'pipeline throughput (Postgres + Redis)', value: pipelineRate, unit: 'events/s', baseline: seedRate, baselineLabel: "events/s seed's way", ratio, target: `>= ${THROUGHPUT_TARGET_RATIO}x`, met: ratio >= THROUGHPUT_TARGET_RATIO },
      ...lag.map((l) => ({
        name: `commit → live counter p50 / p99, ${int(l.achieved)}/s (offered ${int(l.offered)})`,
        value: l.p99,
        unit: 'ms p99',
        baseline: l.p50,
        baselineLabel: 'ms p50',
        ratio: l.p99 / LAG_TARGET_MS,
        target: `p99 < ${LAG_TARGET_MS} ms`,
        met: l.p99 < LAG_TARGET_MS,
      })),
    );
  } finally {
    await db.close();
    await fresh.drop();
    await deleteRedisPrefix(prefix);
  }
  return results;
}

if (isMain(import.meta.url)) {
  const { printTable } = await import('./bench-server.js');
  printTable(await runPipelineBench());
}
