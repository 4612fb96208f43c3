/**
 * Benchmark (issue 21): processing in the embedded profile, `feedloop start` with no DATABASE_URL
 * (PGlite in a data folder, in its own thread; the in-process queue), as `npm start` runs it.
 * - A committed backlog of BENCH_EMBEDDED_EVENTS (50,000) mixed events (bench-workload.ts's mix)
 *   over 10,000 responses is written into a fresh data folder through feedloop's own ingest
 *   (IngestService, no worker running), and the folder closed.
 * - `feedloop start` is then spawned on that folder; the figure is events/s from the spawn until
 *   `GET /v1/pipeline` shows 0 pending (start-up included; from `/readyz` printed too).
 * - Baseline, same run, same store: the seed's way (ADR-016 `processFeedback`): one in-process
 *   job per event (feedloop's own MemoryQueue, the same concurrency), whose handler INSERTs one row
 *   into a `session_feedback`-shaped table on PGlite in a data folder and increments one counter
 *   in memory. Its backlog is the queued jobs.
 *
 * Run: npm run build && node --import tsx bench/embedded-pipeline.bench.ts
 * Knobs: BENCH_EMBEDDED_EVENTS (50000).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { resolveWorkspaceSettings, validateFeedbackEvent, type FeedbackEvent } from '../packages/core/src/index.js';
import { bootstrap } from '../packages/server/src/bootstrap.js';
import { loadConfig } from '../packages/server/src/config.js';
import { migrateOpened } from '../packages/server/src/db/migrate.js';
import { openDatabase } from '../packages/server/src/db/open-database.js';
import { MemoryQueue } from '../packages/server/src/queue/memory-queue.js';
import { createServices } from '../packages/server/src/server.js';
import type { AuthContext } from '../packages/server/src/store/auth-context.js';
import { updateWorkspaceSettings } from '../packages/server/src/store/workspaces.js';
import { readRss } from './bench-memory.js';
import { envInt, int, isMain, sleep, startEmbeddedFeedloop, token, type BenchResult } from './bench-server.js';
import { makeEvent, makeResponses } from './bench-workload.js';

const RESPONSES = 10_000;
const CHUNK = 1_000;
const WORKER_CONCURRENCY = 4;
const TARGET_RATIO = 2;
const TARGET_RATE = 3_000;
const POLL_MS = 250;

/** The benchmark's events: validated before any clock starts. */
export function makeEvents(runId: string, n: number): FeedbackEvent[] {
  const refs = makeResponses(runId, RESPONSES).map(({ id, answer }) => ({ id, answer }));
  const occurredAt = new Date().toISOString();
  return Array.from({ length: n }, (_, g) => {
    const checked = validateFeedbackEvent(makeEvent(g, runId, refs, occurredAt));
    if (!checked.ok) throw new Error(`bench event invalid: ${checked.error.message}`);
    return checked.value;
  });
}

/** Commits the backlog into `dataDir` through feedloop's ingest, with no worker; returns events/s of that ingest. */
async function commitBacklog(dataDir: string, secretKey: string, runId: string, events: readonly FeedbackEvent[]): Promise<number> {
  const config = loadConfig({ FEEDLOOP_DATA_DIR: dataDir, LOG_LEVEL: 'silent', FEEDLOOP_INIT_WORKSPACE: 'bench', FEEDLOOP_INIT_SECRET_KEY: secretKey });
  const db = await openDatabase(config);
  try {
    await migrateOpened(db);
    const { workspaceId } = await bootstrap(db, config);
    if (!workspaceId) throw new Error('bench workspace not created');
    // The mix has implicit signals from users who never opted in: the bench workspace trusts the host app's consent.
    await updateWorkspaceSettings(db, workspaceId, { implicitConsent: 'assumed' });
    const { services, close } = createServices(config, db);
    const auth: AuthContext = { keyId: 'bench', workspaceId, kind: 'secret', settings: resolveWorkspaceSettings({ implicitConsent: 'assumed' }) };
    const responses = makeResponses(runId, RESPONSES);
    for (let i = 0; i < responses.length; i += CHUNK) await services.ingest.registerResponses(auth, responses.slice(i, i + CHUNK));
    const started = performance.now();
    for (let i = 0; i < events.length; i += CHUNK) {
      const outcomes = await services.ingest.submitFeedback(auth, events.slice(i, i + CHUNK));
      const bad = outcomes.find((o) => o.status !== 'accepted');
      if (bad) throw new Error(`backlog event not accepted: ${JSON.stringify(bad)}`);
    }
    const rate = events.length / ((performance.now() - started) / 1000);
    await close();
    return rate;
  } finally {
    await db.close();
  }
}

/** Starts feedloop on the backlog's folder and times it until nothing is pending. */
async function drain(dataDir: string, secretKey: string, total: number): Promise<{ rate: number; fromReady: number; rssMb: number }> {
  const spawned = performance.now();
  const server = await startEmbeddedFeedloop({ dataDir, secretKey });
  const ready = performance.now();
  try {
    for (;;) {
      const res = await fetch(`${server.url}/v1/pipeline`, { headers: { authorization: `Bearer ${secretKey}` } });
      const body = (await res.json()) as { backlog: { pending: number }; failedEvents: unknown[] };
      if (body.backlog.pending === 0) {
        if (body.failedEvents.length > 0) throw new Error(`events failed processing: ${JSON.stringify(body.failedEvents.slice(0, 3))}`);
        break;
      }
      await sleep(POLL_MS);
    }
    const done = performance.now();
    return { rate: total / ((done - spawned) / 1000), fromReady: total / ((done - ready) / 1000), rssMb: readRss(server.pid)?.rssMb ?? NaN };
  } finally {
    await server.stop(10_000);
  }
}

/** The seed's way on the same store: one in-process job per event, one INSERT and one counter increment each. */
async function seedWay(dataDir: string, events: readonly FeedbackEvent[]): Promise<number> {
  const db = await PGlite.create({ dataDir });
  await db.exec(`CREATE TABLE session_feedback (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(), session_id text NOT NULL, rating varchar(20) NOT NULL, comment text,
    submitted_at timestamptz DEFAULT now(), submitted_by text)`);
  const counters = new Map<string, number>();
  const queue = new MemoryQueue<{ process_feedback: { sessionId: string; rating: string; comment: string | null; submittedBy: string | null } }>({ concurrency: WORKER_CONCURRENCY });
  for (let i = 0; i < events.length; i += CHUNK) {
    await queue.addBulk(
      events.slice(i, i + CHUNK).map((e) => ({
        name: 'process_feedback' as const,
        data: { sessionId: e.responseId, rating: e.type === 'thumbs_down' ? 'negative' : 'positive', comment: null, submittedBy: e.userId ?? null },
      })),
    );
  }
  const started = performance.now();
  queue.work({
    process_feedback: async (feedback) => {
      await db.query('INSERT INTO session_feedback (session_id, rating, comment, submitted_by) VALUES ($1, $2, $3, $4)', [
        feedback.sessionId,
        feedback.rating,
        feedback.comment,
        feedback.submittedBy,
      ]);
      counters.set(feedback.rating, (counters.get(feedback.rating) ?? 0) + 1);
    },
  });
  await queue.idle(600_000);
  const rate = events.length / ((performance.now() - started) / 1000);
  const counted = [...counters.values()].reduce((a, b) => a + b, 0);
  await queue.close();
  await db.close();
  if (counted !== events.length) throw new Error(`seed's way counted ${counted} of ${events.length}`);
  return rate;
}

/** Runs the benchmark; prints its lines and returns its results. */
export async function runEmbeddedPipelineBench(): Promise<BenchResult[]> {
  const n = envInt('BENCH_EMBEDDED_EVENTS', 50_000);
  const runId = token(4);
  const secretKey = `fl_sk_bench_${token(16)}`;
  const root = mkdtempSync(join(tmpdir(), 'fl-bench-embedded-pipeline-'));
  try {
    const events = makeEvents(runId, n);
    const ingestRate = await commitBacklog(join(root, 'feedloop'), secretKey, runId, events);
    console.log(`backlog: ${int(n)} events committed through feedloop's ingest at ${int(ingestRate)} events/s (no worker)`);
    const fl = await drain(join(root, 'feedloop'), secretKey, n);
    console.log(`feedloop start: ${int(n)} events processed at ${int(fl.rate)} events/s from spawn (${int(fl.fromReady)} from /readyz); RSS ${fl.rssMb.toFixed(0)} MB`);
    const seed = await seedWay(join(root, 'seed'), events);
    console.log(`seed's way (one in-process job + one INSERT + one counter increment per event, PGlite): ${int(seed)} events/s`);
    const ratio = fl.rate / seed;
    return [
      {
        name: `embedded processing of a ${int(n)}-event backlog`,
        value: fl.rate,
        unit: 'events/s',
        baseline: seed,
        baselineLabel: "events/s seed's way",
        ratio,
        target: `>= ${TARGET_RATIO}x and >= ${int(TARGET_RATE)}/s`,
        met: ratio >= TARGET_RATIO && fl.rate >= TARGET_RATE,
      },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  const { printTable } = await import('./bench-server.js');
  printTable(await runEmbeddedPipelineBench());
}
