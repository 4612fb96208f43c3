/**
 * Benchmark: single-event requests. autocannon, 50 connections, pipelining 1, ~10 s of
 * `POST /v1/feedback` with one event each (a unique id per request, from `setupRequest`) against
 * a feedloop server (child process, fresh Postgres database); the figures are requests per second
 * and p50/p99 latency. Baseline, same run and settings: a trivial Fastify handler
 * (`app.post('/x', async () => ({ ok: true }))`) in a child process, sent the same bodies.
 *
 * Run: npm run build && node --import tsx bench/ingest-single.bench.ts
 * Knobs: BENCH_DATABASE_URL, BENCH_DURATION_MS (10000), BENCH_CONNECTIONS (50), BENCH_CPU_PROF=<dir>.
 */
import autocannon from 'autocannon';
import {
  batchSizeStats,
  counterValue,
  describeBatchStats,
  describeCpu,
  diffBatchStats,
  fetchMetrics,
  sampleCpu,
} from './bench-measure.js';
import {
  dec,
  int,
  isMain,
  sleep,
  startFeedloop,
  startTrivial,
  token,
  type BenchResult,
  type ChildServer,
  envInt,
} from './bench-server.js';
import { analyzeIfAsked, createFreshDatabase, withClient } from './bench-database.js';
import {
  makeEvent,
  registerResponses,
  type ResponseRef,
} from './bench-workload.js';

const RESPONSES = 1_000;
const WARMUP_S = 2;
const MAX_REQUESTS = 2_000_000;
const TARGET_RPS = 8_000;
const TARGET_P99_MS = 25;

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  total2xx: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  duration: number;
  cpu: string;
}

/** Counts requests made, across runs, so every event id is unique. */
class Bodies {
  next = 0;
  constructor(
    private readonly runId: string,
    private readonly responses: readonly ResponseRef[],
  ) {}

  body(): string {
    return JSON.stringify(makeEvent(this.next++, this.runId, this.responses, new Date().toISOString()));
  }
}

async function cannon(server: ChildServer, path: string, key: string, bodies: Bodies, seconds: number, connections: number): Promise<Figures> {
  const before = sampleCpu(server.pid);
  const result = await autocannon({
    url: server.url,
    connections,
    pipelining: 1,
    duration: seconds,
    maxOverallRequests: MAX_REQUESTS,
    timeout: 10,
    requests: [
      {
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        setupRequest: (req) => ({ ...req, body: bodies.body() }),
      },
    ],
  });
  const cpu = describeCpu(before, sampleCpu(server.pid), path === '/x' ? 'trivial server' : 'feedloop');
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total2xx: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    duration: result.duration,
    cpu,
  };
}

const describe = (f: Figures): string =>
  `${int(f.rps)} requests/s, p50 ${f.p50} ms, p99 ${f.p99} ms; ${int(f.total2xx)} 2xx, ${f.non2xx} non-2xx, ${f.errors} errors, ${f.timeouts} timeouts in ${dec(f.duration, 1)} s`;

/** Runs the single-event benchmark; prints its lines and returns its results. */
export async function runIngestSingleBench(): Promise<BenchResult[]> {
  const seconds = envInt('BENCH_DURATION_MS', 10_000) / 1000;
  const connections = envInt('BENCH_CONNECTIONS', 50);
  const runId = token(4);
  const key = `fl_sk_bench_${token(16)}`;
  const db = await createFreshDatabase();
  let server: ChildServer | undefined;
  let trivial: ChildServer | undefined;
  try {
    // feedloop
    server = await startFeedloop({ databaseUrl: db.url, secretKey: key });
    const responses = await registerResponses(server.url, key, runId, RESPONSES);
    const bodies = new Bodies(runId, responses);
    await cannon(server, '/v1/feedback', key, bodies, WARMUP_S, connections);
    const analyzed = await analyzeIfAsked(db.url);
    const metricsBefore = await fetchMetrics(server.url);
    const sent = bodies.next;
    const fl = await cannon(server, '/v1/feedback', key, bodies, seconds, connections);
    const metricsAfter = await fetchMetrics(server.url);
    const commits = diffBatchStats(batchSizeStats(metricsAfter), batchSizeStats(metricsBefore));
    const outcome = (status: string): number =>
      counterValue(metricsAfter, 'feedloop_feedback_events_total', `status="${status}"`) -
      counterValue(metricsBefore, 'feedloop_feedback_events_total', `status="${status}"`);
    const accepted = outcome('accepted');
    const notAccepted = outcome('duplicate') + outcome('rejected');
    await server.stop();
    server = undefined;
    const stored = await withClient(db.url, async (c) => Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM feedback_events')).rows[0]?.n ?? 0));

    // trivial Fastify, same bodies, same settings
    trivial = await startTrivial();
    const trivialBodies = new Bodies(runId, responses);
    await cannon(trivial, '/x', key, trivialBodies, WARMUP_S, connections);
    const tr = await cannon(trivial, '/x', key, trivialBodies, seconds, connections);
    await trivial.stop();
    trivial = undefined;

    const ratio = fl.rps / tr.rps;
    console.log(
      `single-event ingest: ${int(fl.rps)} requests/s, p50 ${fl.p50} ms, p99 ${fl.p99} ms  |  trivial Fastify: ${int(tr.rps)} requests/s, p50 ${tr.p50} ms, p99 ${tr.p99} ms  |  ratio ${dec(ratio)}`,
    );
    console.log(`  feedloop: ${describe(fl)}; events accepted ${int(accepted)}, duplicate/rejected ${int(notAccepted)}; rows stored ${int(stored)} (of ${int(bodies.next)} sent incl. warm-up; ${int(bodies.next - sent)} in the window)`);
    console.log(`  feedloop ${fl.cpu}`);
    console.log(`  group commit: ${describeBatchStats(commits)}`);
    if (analyzed) console.log('  (BENCH_ANALYZE=1: ANALYZE ran after the warm-up)');
    console.log(`  trivial:  ${describe(tr)}`);
    console.log(`  trivial ${tr.cpu}`);
    if (fl.non2xx > 0 || fl.errors > 0 || notAccepted > 0) {
      throw new Error(`single-event ingest: ${fl.non2xx} non-2xx, ${fl.errors} errors, ${notAccepted} events not accepted`);
    }
    return [
      {
        name: `single-event ingest (POST /v1/feedback, ${connections} conns)`,
        value: fl.rps,
        unit: 'requests/s',
        baseline: tr.rps,
        baselineLabel: 'requests/s trivial Fastify',
        ratio,
        target: `>= ${int(TARGET_RPS)}`,
        met: fl.rps >= TARGET_RPS,
      },
      {
        name: 'single-event ingest p99 latency',
        value: fl.p99,
        unit: 'ms',
        baseline: tr.p99,
        baselineLabel: 'ms trivial Fastify',
        ratio: fl.p99 / Math.max(tr.p99, 1),
        target: `< ${TARGET_P99_MS} ms`,
        met: fl.p99 < TARGET_P99_MS,
      },
    ];
  } catch (err) {
    if (server) process.stderr.write(`feedloop output:\n${server.output()}\n`);
    throw err;
  } finally {
    await server?.stop().catch(() => undefined);
    await trivial?.stop().catch(() => undefined);
    await sleep(100);
    await db.drop();
  }
}

if (isMain(import.meta.url)) {
  await runIngestSingleBench();
}
