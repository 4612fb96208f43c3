/**
 * Benchmark: does one client's expensive input stall everyone else? Thumbs latency with and
 * without big corrections in flight (issue 7, item 3).
 *
 * feedloop runs as a child process (`start --api-only`, see bench-server.ts) on PGlite (a data
 * folder of its own) and on a fresh Postgres database. For each store:
 * - idle: 4 keep-alive clients (`node:http`) send `POST /v1/feedback` thumbs back to back (unique
 *   ids and users over 101 small responses) for BENCH_DURATION_MS (10 s) after a 2 s warm-up; every
 *   request started in the window is waited for and counted → p99;
 * - loaded: the same, while 10 keep-alive clients keep 10 corrections continuously in flight
 *   against one response whose answer is 200,000 characters, each correction the answer with
 *   every third character changed (about 1.5 s of diffing each on this machine), all from the
 *   SECRET key (public keys are capped far below this size) → p99.
 * Figure: loaded thumbs p99; baseline: idle thumbs p99 of the same run; target ratio < 2.
 *
 * The load generator is this process, the server another: 4 thumbs clients are far from
 * saturating a Node process (the idle run uses ~0.1 core of it), and the correction bodies are
 * built before the clock starts, so sending one is a socket write. The CPU line of each run says
 * who used the two cores.
 *
 * Run: npm run build && node --import tsx bench/diff-isolation.bench.ts
 * Knobs: BENCH_DURATION_MS (10000), BENCH_DIFF_STORES (`pglite,postgres`), BENCH_FEEDLOOP_CLI
 * (another build's cli.js, to measure a before/after pair), BENCH_DATABASE_URL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeCpu, sampleCpu } from './bench-measure.js';
import {
  benchStores,
  dec,
  envInt,
  int,
  isMain,
  keepAliveAgent,
  post,
  sleep,
  startFeedloop,
  token,
  type BenchResult,
  type ChildServer,
} from './bench-server.js';
import { createFreshDatabase, type FreshDatabase } from './bench-database.js';
import { registerResponses, type ResponseRef } from './bench-workload.js';

const THUMBS_CONNECTIONS = 4;
const CORRECTIONS_IN_FLIGHT = 10;
const BIG_TEXT = 200_000;
const SMALL_RESPONSES = 101;
const WARMUP_S = 2;
const TARGET_RATIO = 2;

const WORDS = 'the answer cites a source about refunds shipping policy account billing invoice order delivery warranty'.split(' ');

/** A deterministic ASCII text of exactly `n` characters (no surrogate pairs: the diff takes its bit-parallel path). */
export function bigText(n: number): string {
  const parts: string[] = [];
  let len = 0;
  for (let i = 0; len < n; i++) {
    const w = WORDS[(i * 7 + 3) % WORDS.length] as string;
    parts.push(w);
    len += w.length + 1;
  }
  return parts.join(' ').slice(0, n);
}

/** The text with every third character changed (to the next letter): a heavy rewrite of the same length. */
export function everyThirdChanged(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out += i % 3 === 0 ? String.fromCharCode(c >= 0x61 && c < 0x7a ? c + 1 : 0x61) : s[i];
  }
  return out;
}

interface Thumbs {
  p50: number;
  p99: number;
  max: number;
  ok: number;
  non2xx: number;
  errors: number;
  cpu: string;
}

interface Corrections {
  done: number;
  non2xx: number;
  meanMs: number;
  maxMs: number;
  firstError: string;
}

/**
 * 4 keep-alive clients send thumbs back to back for `seconds`; requests still in flight when the
 * time is up are waited for and counted (a stalled request is the point of this benchmark, and
 * a tool that drops unfinished requests at the deadline would hide it).
 */
async function thumbs(server: ChildServer, key: string, responses: readonly ResponseRef[], seconds: number, runId: string): Promise<Thumbs> {
  const agent = keepAliveAgent(THUMBS_CONNECTIONS);
  const latencies: number[] = [];
  let n = 0;
  let non2xx = 0;
  let errors = 0;
  const before = sampleCpu(server.pid);
  const end = performance.now() + seconds * 1000;
  const client = async (): Promise<void> => {
    while (performance.now() < end) {
      const i = n++;
      const response = responses[i % responses.length] as ResponseRef;
      const body = JSON.stringify({ id: `th-${runId}-${i}`, responseId: response.id, type: i % 3 === 0 ? 'thumbs_down' : 'thumbs_up', userId: `u-${runId}-${i}` });
      const t0 = performance.now();
      try {
        const res = await post(agent, server.url, '/v1/feedback', key, body, 600_000);
        if (res.status !== 202) non2xx++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: THUMBS_CONNECTIONS }, client));
  agent.destroy();
  const cpu = describeCpu(before, sampleCpu(server.pid));
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  return { p50: at(0.5), p99: at(0.99), max: Math.round(latencies[latencies.length - 1] ?? 0), ok: latencies.length - non2xx - errors, non2xx, errors, cpu };
}

/** Keeps `CORRECTIONS_IN_FLIGHT` corrections in flight until `stop()`; resolves with their figures. */
function correctionLoad(server: ChildServer, key: string, responseId: string, corrected: string, runId: string): { started: Promise<void>; stop(): Promise<Corrections> } {
  const agent = keepAliveAgent(CORRECTIONS_IN_FLIGHT);
  let running = true;
  let seq = 0;
  const stats: Corrections = { done: 0, non2xx: 0, meanMs: 0, maxMs: 0, firstError: '' };
  let totalMs = 0;
  // Bodies differ only in their id and user: prepared once, spliced per request.
  const tail = `","responseId":${JSON.stringify(responseId)},"type":"correction","payload":{"corrected":${JSON.stringify(corrected)},"format":"text"}}`;
  let markStarted: () => void = () => undefined;
  const started = new Promise<void>((r) => (markStarted = r));
  const client = async (c: number): Promise<void> => {
    while (running) {
      const i = seq++;
      const body = `{"id":"corr-${runId}-${i}","userId":"cu-${runId}-${c}-${i}${tail}`;
      const t0 = performance.now();
      const pending = post(agent, server.url, '/v1/feedback', key, body, 600_000);
      if (i === CORRECTIONS_IN_FLIGHT - 1) markStarted();
      const res = await pending;
      const ms = performance.now() - t0;
      stats.done++;
      totalMs += ms;
      stats.maxMs = Math.max(stats.maxMs, ms);
      if (res.status !== 202) {
        stats.non2xx++;
        stats.firstError ||= `${res.status} ${res.text.slice(0, 200)}`;
      }
    }
  };
  const clients = Array.from({ length: CORRECTIONS_IN_FLIGHT }, (_, c) => client(c));
  return {
    started,
    async stop() {
      running = false;
      await Promise.all(clients);
      agent.destroy();
      stats.meanMs = stats.done === 0 ? 0 : totalMs / stats.done;
      return stats;
    },
  };
}

const describeThumbs = (t: Thumbs): string =>
  `p50 ${t.p50} ms, p99 ${t.p99} ms, max ${t.max} ms; ${int(t.ok)} 2xx, ${t.non2xx} non-2xx, ${t.errors} errors/timeouts`;

async function runStore(store: 'pglite' | 'postgres', seconds: number): Promise<BenchResult> {
  const runId = token(4);
  const key = `fl_sk_bench_${token(16)}`;
  let db: FreshDatabase | undefined;
  let dataDir: string | undefined;
  let server: ChildServer | undefined;
  try {
    if (store === 'postgres') db = await createFreshDatabase();
    else dataDir = mkdtempSync(join(tmpdir(), 'fl-bench-diff-'));
    server = await startFeedloop({
      databaseUrl: db?.url ?? '',
      secretKey: key,
      ...(dataDir ? { env: { FEEDLOOP_DATA_DIR: dataDir } } : {}),
    });
    const responses = await registerResponses(server.url, key, runId, SMALL_RESPONSES);
    const answer = bigText(BIG_TEXT);
    const bigId = `resp-${runId}-big`;
    const agent = keepAliveAgent(1);
    const reg = await post(agent, server.url, '/v1/responses', key, JSON.stringify({ id: bigId, query: 'rewrite the policy', answer, model: 'gpt-large' }));
    agent.destroy();
    if (reg.status !== 201) throw new Error(`registering the big response: HTTP ${reg.status} ${reg.text.slice(0, 300)}`);
    const corrected = everyThirdChanged(answer);

    await thumbs(server, key, responses, WARMUP_S, `${runId}w`);
    const idle = await thumbs(server, key, responses, seconds, `${runId}i`);
    const load = correctionLoad(server, key, bigId, corrected, runId);
    await load.started;
    const loaded = await thumbs(server, key, responses, seconds, `${runId}l`);
    const corrections = await load.stop();

    const ratio = loaded.p99 / Math.max(idle.p99, 1);
    console.log(`${store}: thumbs p99 idle ${idle.p99} ms, with ${CORRECTIONS_IN_FLIGHT} corrections of ${int(BIG_TEXT)} chars in flight ${loaded.p99} ms  |  ratio ${dec(ratio)}`);
    console.log(`  idle:   ${describeThumbs(idle)}`);
    console.log(`          ${idle.cpu}`);
    console.log(`  loaded: ${describeThumbs(loaded)}`);
    console.log(`          ${loaded.cpu}`);
    console.log(
      `  corrections: ${int(corrections.done)} answered (${corrections.non2xx} non-202${corrections.firstError ? `, first: ${corrections.firstError}` : ''}), mean ${int(corrections.meanMs)} ms, max ${int(corrections.maxMs)} ms`,
    );
    if (idle.non2xx + idle.errors + loaded.non2xx + loaded.errors > 0) throw new Error(`${store}: thumbs answered non-2xx or failed`);
    return {
      name: `thumbs p99 with ${CORRECTIONS_IN_FLIGHT} × 200 KB corrections in flight (${store})`,
      value: loaded.p99,
      unit: 'ms',
      baseline: idle.p99,
      baselineLabel: 'ms idle thumbs p99',
      ratio,
      target: `< ${TARGET_RATIO}x idle`,
      met: ratio < TARGET_RATIO,
    };
  } catch (err) {
    if (server) process.stderr.write(`feedloop output:\n${server.output()}\n`);
    throw err;
  } finally {
    await server?.stop().catch(() => undefined);
    await sleep(100);
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Runs the diff-isolation benchmark on each store; prints its lines and returns its results. */
export async function runDiffIsolationBench(): Promise<BenchResult[]> {
  const seconds = envInt('BENCH_DURATION_MS', 10_000) / 1000;
  const results: BenchResult[] = [];
  for (const store of benchStores('BENCH_DIFF_STORES')) results.push(await runStore(store, seconds));
  return results;
}

if (isMain(import.meta.url)) {
  await runDiffIsolationBench();
  process.exit(0);
}
