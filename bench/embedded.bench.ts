/**
 * Benchmark (issue 8): the embedded profile, `feedloop start` with no DATABASE_URL (PGlite in a
 * data folder, the pipeline's worker and queue in the same process), as `npm start` runs it,
 * against its own **minimal durable server** on PGlite (bench/minimal-durable-server.ts: Fastify
 * + a plain group-committed INSERT into a one-index table). Same load generator as the production
 * benchmark (wrk, or autocannon with workers), 50 connections, unique bodies of the README's mix:
 * single-event `POST /v1/feedback` and batched `POST /v1/feedback/batch` with 100 events a
 * request. Also the process's RSS idle (after start, before any load), during and after the load,
 * and with `BENCH_SOAK_MS` a soak run sampling RSS every 10 s. Last, the ceiling feedloop's schema
 * leaves these ratios (bench/write-ceiling.ts): its write statement alone, against the minimal
 * server's measured rates.
 *
 * Run: npm run build && node --import tsx bench/embedded.bench.ts
 * Knobs: BENCH_DURATION_MS (10000), BENCH_CONNECTIONS (50), BENCH_SOAK_MS (0),
 *        BENCH_LOAD_GENERATOR=autocannon, BENCH_SERVER_ENV (extra environment for feedloop).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { counterValue, fetchMetrics } from './bench-measure.js';
import { readRss, soakMs } from './bench-memory.js';
import { dec, envInt, int, isMain, sleep, startEmbeddedFeedloop, startMinimalDurable, token, type BenchResult, type ChildServer } from './bench-server.js';
import { registerResponses } from './bench-workload.js';
import { soak, warmAndMeasure } from './ingest-durable.bench.js';
import { describeLoad, eventTemplates, loadGenerator, type LoadFigures } from './load-generator.js';
import { describeWriteCost, measureWriteCosts, type WriteCost } from './write-ceiling.js';

const RESPONSES = 1_000;
const BATCH = 100;
const IDLE_SETTLE_MS = 5_000;
const TARGET_RATIO = 0.5;
const TARGET_P99_MS = 50;

interface ProfileRun {
  single: LoadFigures;
  batch: LoadFigures;
  lines: string[];
}

/** Runs single and batched loads against one server (feedloop or the minimal one). */
async function measure(server: ChildServer, key: string, templates: string[], label: string, seconds: number, connections: number, generator: 'wrk' | 'autocannon'): Promise<ProfileRun> {
  const common = { key, templates, connections, url: server.url, serverPid: server.pid, serverLabel: label };
  const single = await warmAndMeasure({ ...common, path: '/v1/feedback', eventsPerRequest: 1 }, seconds, generator);
  const batch = await warmAndMeasure({ ...common, path: '/v1/feedback/batch', eventsPerRequest: BATCH }, seconds, generator);
  return {
    single: single.load,
    batch: batch.load,
    lines: [
      `single: ${describeLoad(single.load, 1)}`,
      `single ${single.load.cpu}`,
      `single RSS: ${single.rss}`,
      `batched ×${BATCH}: ${describeLoad(batch.load, BATCH)}`,
      `batched ${batch.load.cpu}`,
      `batched RSS: ${batch.rss}`,
    ],
  };
}

/** The most an ingest ratio can reach with feedloop's write statement as measured, against the minimal server's `baseline` rate. */
function ceilingResult(kind: 'single' | 'batched', cost: WriteCost, baseline: number): BenchResult {
  const rate = 1e6 / cost.feedloopUs;
  return {
    name: `embedded ${kind} ceiling (write alone, ${cost.size} a flush)`,
    value: rate,
    unit: 'events/s',
    baseline,
    baselineLabel: `${kind === 'single' ? 'requests' : 'events'}/s minimal durable (PGlite)`,
    ratio: rate / baseline,
    target: 'the most the ratio above can reach',
  };
}

/** Runs the benchmark; prints its lines and returns its results. */
export async function runEmbeddedBench(): Promise<BenchResult[]> {
  const seconds = envInt('BENCH_DURATION_MS', 10_000) / 1000;
  const connections = envInt('BENCH_CONNECTIONS', 50);
  const generator = loadGenerator();
  const runId = token(4);
  const key = `fl_sk_bench_${token(16)}`;
  const dirs: string[] = [];
  const servers: ChildServer[] = [];
  const folder = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'fl-bench-pglite-'));
    dirs.push(d);
    return d;
  };
  try {
    const fl = await startEmbeddedFeedloop({ dataDir: folder(), secretKey: key });
    servers.push(fl);
    await sleep(IDLE_SETTLE_MS);
    const idle = readRss(fl.pid);
    const responses = await registerResponses(fl.url, key, runId, RESPONSES);
    const templates = eventTemplates(runId, responses);
    const metricsBefore = await fetchMetrics(fl.url);
    const f = await measure(fl, key, templates, 'feedloop (embedded)', seconds, connections, generator);
    const metricsAfter = await fetchMetrics(fl.url);
    const notAccepted = ['duplicate', 'rejected'].reduce(
      (n, status) =>
        n +
        counterValue(metricsAfter, 'feedloop_feedback_events_total', `status="${status}"`) -
        counterValue(metricsBefore, 'feedloop_feedback_events_total', `status="${status}"`),
      0,
    );
    const soakMsValue = soakMs();
    const soakLines =
      soakMsValue > 0
        ? await soak({ key, templates, connections, url: fl.url, serverPid: fl.pid, serverLabel: 'feedloop (embedded)', path: '/v1/feedback', eventsPerRequest: 1 }, soakMsValue, { 'embedded process (API + worker)': fl.pid }, generator)
        : [];
    const after = readRss(fl.pid);
    await fl.stop();

    const minimal = await startMinimalDurable('pglite', folder());
    servers.push(minimal);
    await sleep(IDLE_SETTLE_MS);
    const minimalIdle = readRss(minimal.pid);
    const m = await measure(minimal, key, templates, 'minimal server (PGlite)', seconds, connections, generator);
    await minimal.stop();

    const [singleCost, batchCost] = await measureWriteCosts();
    if (!singleCost || !batchCost) throw new Error('write ceiling not measured');
    const singleRatio = f.single.rps / m.single.rps;
    const batchRatio = f.batch.eventsPerS / m.batch.eventsPerS;
    console.log(
      `embedded single: ${int(f.single.rps)} requests/s, p99 ${dec(f.single.p99, 1)} ms  |  minimal durable server (PGlite): ${int(m.single.rps)} requests/s, p99 ${dec(m.single.p99, 1)} ms  |  ratio ${dec(singleRatio)}`,
    );
    console.log(
      `embedded batched ×${BATCH}: ${int(f.batch.eventsPerS)} events/s, p99 ${dec(f.batch.p99, 0)} ms  |  minimal durable server (PGlite): ${int(m.batch.eventsPerS)} events/s, p99 ${dec(m.batch.p99, 0)} ms  |  ratio ${dec(batchRatio)}`,
    );
    console.log(`  ceiling, single: ${describeWriteCost(singleCost, m.single.rps)}`);
    console.log(`  ceiling, batched: ${describeWriteCost(batchCost, m.batch.eventsPerS)}`);
    console.log(`  feedloop (embedded) RSS: idle ${idle ? dec(idle.rssMb, 0) : '?'} MB (${IDLE_SETTLE_MS / 1000} s after ready), after all load ${after ? dec(after.rssMb, 0) : '?'} MB, peak ${after ? dec(after.peakMb, 0) : '?'} MB; events duplicate/rejected ${notAccepted}`);
    for (const line of [...f.lines, ...soakLines]) console.log(`  feedloop ${line}`);
    console.log(`  minimal (PGlite) RSS: idle ${minimalIdle ? dec(minimalIdle.rssMb, 0) : '?'} MB`);
    for (const line of m.lines) console.log(`  minimal ${line}`);
    for (const [who, run] of [['feedloop (embedded)', f], ['minimal server (PGlite)', m]] as const) {
      for (const l of [run.single, run.batch]) if (l.non2xx > 0 || l.errors > 0) throw new Error(`${who}: ${l.non2xx} non-2xx, ${l.errors} errors`);
    }
    if (notAccepted > 0) throw new Error(`feedloop (embedded): ${notAccepted} events not accepted`);
    return [
      {
        name: `embedded single-event (${connections} conns, ${generator})`,
        value: f.single.rps,
        unit: 'requests/s',
        baseline: m.single.rps,
        baselineLabel: 'requests/s minimal durable (PGlite)',
        ratio: singleRatio,
        target: `>= ${TARGET_RATIO} of baseline`,
        met: singleRatio >= TARGET_RATIO,
      },
      {
        name: 'embedded single-event p99',
        value: f.single.p99,
        unit: 'ms',
        baseline: m.single.p99,
        baselineLabel: 'ms minimal durable (PGlite)',
        ratio: f.single.p99 / Math.max(m.single.p99, 0.1),
        target: `< ${TARGET_P99_MS} ms`,
        met: f.single.p99 < TARGET_P99_MS,
      },
      {
        name: `embedded batched (×${BATCH} a request)`,
        value: f.batch.eventsPerS,
        unit: 'events/s',
        baseline: m.batch.eventsPerS,
        baselineLabel: 'events/s minimal durable (PGlite)',
        ratio: batchRatio,
        target: `>= ${TARGET_RATIO} of baseline`,
        met: batchRatio >= TARGET_RATIO,
      },
      ceilingResult('single', singleCost, m.single.rps),
      ceilingResult('batched', batchCost, m.batch.eventsPerS),
      {
        name: 'embedded RSS idle (before load)',
        value: idle?.rssMb ?? NaN,
        unit: 'MB',
        baseline: minimalIdle?.rssMb ?? NaN,
        baselineLabel: 'MB minimal server (PGlite) idle',
        ratio: (idle?.rssMb ?? NaN) / (minimalIdle?.rssMb ?? NaN),
        target: '< 250 MB',
        met: idle !== undefined && idle.rssMb < 250,
      },
    ];
  } catch (err) {
    for (const s of servers) process.stderr.write(`server output:\n${s.output().slice(-3_000)}\n`);
    throw err;
  } finally {
    for (const s of servers) await s.stop().catch(() => undefined);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  await runEmbeddedBench();
}
