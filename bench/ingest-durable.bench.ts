/**
 * Benchmark (issue 8): single-event `POST /v1/feedback` on the production profile (an API node,
 * `start --api-only` with Postgres and Redis) against the **minimal durable server** on the same
 * Postgres (bench/minimal-durable-server.ts: Fastify + a plain group-committed INSERT into a
 * one-index table) and, for scale, the trivial Fastify handler; all three with the same load
 * generator (wrk, or autocannon with workers; bench/load-generator.ts), 50 connections, unique
 * bodies of the README's event mix. Also the API process's RSS idle, during and after the load,
 * and with `BENCH_SOAK_MS` a soak run (API + a `feedloop worker` process) sampling RSS every 10 s.
 *
 * Run: npm run build && node --import tsx bench/ingest-durable.bench.ts
 * Knobs: BENCH_DATABASE_URL, BENCH_REDIS_URL, BENCH_DURATION_MS (10000), BENCH_CONNECTIONS (50),
 *        BENCH_SOAK_MS (0), BENCH_LOAD_GENERATOR=autocannon (force the fallback).
 */
import { counterValue, fetchMetrics } from './bench-measure.js';
import { describeRssGrowth, readRss, sampleRss, soakMs, SOAK_SAMPLE_MS } from './bench-memory.js';
import {
  dec,
  envInt,
  int,
  isMain,
  sleep,
  startFeedloop,
  startFeedloopWorker,
  startMinimalDurable,
  startTrivial,
  token,
  type BenchResult,
  type ChildServer,
} from './bench-server.js';
import { createFreshDatabase, withClient } from './bench-database.js';
import { registerResponses } from './bench-workload.js';
import { describeLoad, eventTemplates, loadGenerator, runLoad, type LoadFigures, type LoadOptions } from './load-generator.js';

const RESPONSES = 1_000;
const WARMUP_S = 2;
const TARGET_RATIO = 0.5;
const TARGET_P99_MS = 25;

/** `during max 210 MB, after 180 MB` for one process over a load run. */
export function describeRssRun(samples: ReadonlyArray<{ rssMb: number }>, afterMb: number | undefined): string {
  const max = Math.max(...samples.map((s) => s.rssMb));
  return `during the load max ${dec(max, 0)} MB, 5 s after ${afterMb === undefined ? '?' : dec(afterMb, 0)} MB`;
}

/** A warm-up run, then the measured one with RSS sampled every second; RSS read again 5 s later. */
export async function warmAndMeasure(o: Omit<LoadOptions, 'phase' | 'seconds'>, seconds: number, generator: 'wrk' | 'autocannon'): Promise<{ load: LoadFigures; rss: string }> {
  await runLoad({ ...o, phase: `w${token(3)}`, seconds: WARMUP_S }, generator);
  const sampler = sampleRss(o.serverPid, 1_000);
  const load = await runLoad({ ...o, phase: `m${token(3)}`, seconds }, generator);
  const samples = sampler.stop();
  await sleep(5_000);
  return { load, rss: describeRssRun(samples, readRss(o.serverPid)?.rssMb) };
}

/** Runs the soak: load for BENCH_SOAK_MS while RSS of each process is sampled every 10 s. */
export async function soak(o: Omit<LoadOptions, 'phase' | 'seconds'>, ms: number, processes: Record<string, number>, generator: 'wrk' | 'autocannon'): Promise<string[]> {
  const samplers = Object.entries(processes).map(([label, pid]) => ({ label, sampler: sampleRss(pid, SOAK_SAMPLE_MS) }));
  const load = await runLoad({ ...o, phase: `s${token(3)}`, seconds: Math.round(ms / 1000) }, generator);
  const lines = [`soak: ${describeLoad(load, o.eventsPerRequest)}`, `soak ${load.cpu}`];
  for (const { label, sampler } of samplers) lines.push(`soak RSS ${label}: ${describeRssGrowth(sampler.stop()).text}`);
  return lines;
}

/** Runs the benchmark; prints its lines and returns its results. */
export async function runIngestDurableBench(): Promise<BenchResult[]> {
  const seconds = envInt('BENCH_DURATION_MS', 10_000) / 1000;
  const connections = envInt('BENCH_CONNECTIONS', 50);
  const generator = loadGenerator();
  const runId = token(4);
  const key = `fl_sk_bench_${token(16)}`;
  const redisPrefix = `flbench-${token()}`;
  const db = await createFreshDatabase();
  const servers: ChildServer[] = [];
  const started = <T extends ChildServer>(s: T): T => (servers.push(s), s);
  try {
    // feedloop, production profile API node
    const fl = started(await startFeedloop({ databaseUrl: db.url, secretKey: key, redisPrefix }));
    await sleep(2_000);
    const idle = readRss(fl.pid);
    const responses = await registerResponses(fl.url, key, runId, RESPONSES);
    const templates = eventTemplates(runId, responses);
    const common = { key, templates, eventsPerRequest: 1, connections };
    const flOpts = { ...common, url: fl.url, path: '/v1/feedback', serverPid: fl.pid, serverLabel: 'feedloop API' };
    const metricsBefore = await fetchMetrics(fl.url);
    const flRun = await warmAndMeasure(flOpts, seconds, generator);
    const metricsAfter = await fetchMetrics(fl.url);
    const outcome = (status: string): number =>
      counterValue(metricsAfter, 'feedloop_feedback_events_total', `status="${status}"`) -
      counterValue(metricsBefore, 'feedloop_feedback_events_total', `status="${status}"`);
    const notAccepted = outcome('duplicate') + outcome('rejected');
    const soakMsValue = soakMs();
    let soakLines: string[] = [];
    if (soakMsValue > 0) {
      // The memory check: API and worker processes under a long load, the worker taking the API's jobs.
      const worker = started(await startFeedloopWorker({ databaseUrl: db.url, redisPrefix }));
      soakLines = await soak(flOpts, soakMsValue, { 'API process': fl.pid, 'worker process': worker.pid }, generator);
      await worker.stop();
    }
    await fl.stop();

    // the minimal durable server, same Postgres (a table of its own in the same fresh database)
    const minimal = started(await startMinimalDurable('postgres', db.url));
    const minRun = await warmAndMeasure({ ...common, url: minimal.url, path: '/v1/feedback', serverPid: minimal.pid, serverLabel: 'minimal server' }, seconds, generator);
    await minimal.stop();
    const minimalRows = await withClient(db.url, async (c) => Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM minimal_events')).rows[0]?.n ?? 0));

    // the trivial Fastify handler, same generator
    const trivial = started(await startTrivial());
    const trRun = await warmAndMeasure({ ...common, url: trivial.url, path: '/x', serverPid: trivial.pid, serverLabel: 'trivial server' }, seconds, generator);
    await trivial.stop();

    const f = flRun.load;
    const m = minRun.load;
    const ratio = f.rps / m.rps;
    console.log(
      `single-event ingest (production profile): ${int(f.rps)} requests/s, p99 ${dec(f.p99, 1)} ms  |  minimal durable server (Postgres): ${int(m.rps)} requests/s, p99 ${dec(m.p99, 1)} ms  |  ratio ${dec(ratio)}`,
    );
    console.log(`  feedloop: ${describeLoad(f, 1)}; events duplicate/rejected ${notAccepted}`);
    console.log(`  feedloop ${f.cpu}`);
    console.log(`  feedloop API RSS: idle ${idle ? dec(idle.rssMb, 0) : '?'} MB, ${flRun.rss}`);
    for (const line of soakLines) console.log(`  ${line}`);
    console.log(`  minimal: ${describeLoad(m, 1)}; rows stored ${int(minimalRows)}`);
    console.log(`  minimal ${m.cpu}`);
    console.log(`  minimal server RSS: ${minRun.rss}`);
    console.log(`  trivial Fastify: ${describeLoad(trRun.load, 1)}`);
    console.log(`  trivial ${trRun.load.cpu}`);
    if (f.non2xx > 0 || f.errors > 0 || notAccepted > 0) throw new Error(`feedloop: ${f.non2xx} non-2xx, ${f.errors} errors, ${notAccepted} events not accepted`);
    if (m.non2xx > 0 || m.errors > 0) throw new Error(`minimal durable server: ${m.non2xx} non-2xx, ${m.errors} errors`);
    return [
      {
        name: `single-event ingest, production profile (${connections} conns, ${generator})`,
        value: f.rps,
        unit: 'requests/s',
        baseline: m.rps,
        baselineLabel: 'requests/s minimal durable (Postgres)',
        ratio,
        target: `>= ${TARGET_RATIO} of baseline`,
        met: ratio >= TARGET_RATIO,
      },
      {
        name: 'single-event p99, production profile',
        value: f.p99,
        unit: 'ms',
        baseline: m.p99,
        baselineLabel: 'ms minimal durable (Postgres)',
        ratio: f.p99 / Math.max(m.p99, 0.1),
        target: `< ${TARGET_P99_MS} ms`,
        met: f.p99 < TARGET_P99_MS,
      },
    ];
  } catch (err) {
    for (const s of servers) process.stderr.write(`server output:\n${s.output().slice(-3_000)}\n`);
    throw err;
  } finally {
    for (const s of servers) await s.stop().catch(() => undefined);
    await sleep(100);
    await db.drop();
  }
}

if (isMain(import.meta.url)) {
  await runIngestDurableBench();
}
