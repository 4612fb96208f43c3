/**
 * Benchmark: do heavy reads starve cheap requests? A single thumbs' latency (and `/healthz`'s)
 * with and without 16 heavy-read loops running (issue 22, "Heavy reads starve everything").
 *
 * feedloop runs as a child process: the embedded profile (`start` on PGlite in a data folder of
 * its own, the pipeline in the same process, as `npm start` runs it) and the production profile
 * (`start --api-only` on a fresh Postgres database). The workspace has 2,000 responses with a
 * thumbs and, one in four, a correction each, from 20 users (secret key: verified, so exported).
 * The embedded server's pipeline drains the seed before anything is measured; the Postgres
 * database is analyzed (as autovacuum soon would be). For each store:
 * - idle: one keep-alive client sends `POST /v1/feedback` thumbs back to back (unique ids and
 *   users), each followed by a `GET /healthz`, for BENCH_DURATION_MS (10 s) after a 2 s warm-up;
 * - loaded: the same while 16 keep-alive clients loop over `GET /v1/exports/learning-signals`,
 *   `/v1/exports/trl-dpo`, `/v1/users/:userId/context` and `/v1/exports/openai-chat`, each read to
 *   its last byte; a `429` is waited out as its Retry-After says (a well-behaved client).
 * Figure: loaded thumbs p99; baseline: idle thumbs p99 of the same run; the target is
 * p99 within max(2 × idle p99, idle p99 + 50 ms). `/healthz` is printed beside it.
 *
 * Run: npm run build && node --import tsx bench/heavy-reads.bench.ts
 * Knobs: BENCH_DURATION_MS (10000), BENCH_HEAVY_STORES (`pglite,postgres`), BENCH_FEEDLOOP_CLI
 * (another build's cli.js, for a before/after pair), BENCH_SERVER_ENV, BENCH_DATABASE_URL.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeCpu, sampleCpu } from './bench-measure.js';
import { createFreshDatabase, withClient, type FreshDatabase } from './bench-database.js';
import {
  benchStores,
  dec,
  envInt,
  int,
  isMain,
  keepAliveAgent,
  post,
  sleep,
  startEmbeddedFeedloop,
  startFeedloop,
  token,
  type BenchResult,
  type ChildServer,
} from './bench-server.js';
import { registerResponses, type ResponseRef } from './bench-workload.js';

const RESPONSES = 2_000;
const USERS = 20;
const HEAVY_LOOPS = 16;
const WARMUP_S = 2;
const HEAVY_URLS = ['/v1/exports/learning-signals?dedup=false', '/v1/exports/trl-dpo', '/v1/users/hu-1/context', '/v1/exports/openai-chat'];

/** One GET read to its last byte: status, Retry-After and the time it took. */
function get(agent: http.Agent, url: string, path: string, key: string | undefined): Promise<{ status: number; retryAfter: number; ms: number }> {
  const target = new URL(path, url);
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      { agent, host: target.hostname, port: target.port, path: target.pathname + target.search, headers: key ? { authorization: `Bearer ${key}` } : {}, timeout: 600_000 },
      (res) => {
        res.on('data', () => undefined);
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: Number(res.headers['retry-after'] ?? 0), ms: performance.now() - t0 }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/** The q-quantile of sorted values. */
const quantile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

interface Cheap {
  thumbsP50: number;
  thumbsP99: number;
  thumbsMax: number;
  healthP99: number;
  n: number;
  cpu: string;
}

/** One client: a thumbs, then `/healthz`, back to back for `seconds`; each thumbs must be answered 202. */
async function cheapRequests(server: ChildServer, key: string, responses: readonly ResponseRef[], seconds: number, runId: string): Promise<Cheap> {
  const agent = keepAliveAgent(1);
  const thumbs: number[] = [];
  const health: number[] = [];
  const before = sampleCpu(server.pid);
  const end = performance.now() + seconds * 1000;
  for (let i = 0; performance.now() < end; i++) {
    const response = responses[(i * 7) % responses.length] as ResponseRef;
    const body = JSON.stringify({ id: `hr-${runId}-${i}`, responseId: response.id, type: i % 3 === 0 ? 'thumbs_down' : 'thumbs_up', userId: `cheap-${runId}-${i}` });
    const t0 = performance.now();
    const res = await post(agent, server.url, '/v1/feedback', key, body, 600_000);
    thumbs.push(performance.now() - t0);
    if (res.status !== 202) throw new Error(`thumbs: HTTP ${res.status} ${res.text.slice(0, 300)}`);
    const h = await get(agent, server.url, '/healthz', undefined);
    if (h.status !== 200) throw new Error(`/healthz: HTTP ${h.status}`);
    health.push(h.ms);
  }
  agent.destroy();
  const cpu = describeCpu(before, sampleCpu(server.pid));
  thumbs.sort((a, b) => a - b);
  health.sort((a, b) => a - b);
  return {
    thumbsP50: quantile(thumbs, 0.5),
    thumbsP99: quantile(thumbs, 0.99),
    thumbsMax: thumbs.at(-1) ?? 0,
    healthP99: quantile(health, 0.99),
    n: thumbs.length,
    cpu,
  };
}

/** Keeps {@link HEAVY_LOOPS} clients reading heavy routes until `stop()`; resolves with what they got. */
function heavyLoops(server: ChildServer, key: string): { stop(): Promise<{ byStatus: Record<number, number>; meanMs: number }> } {
  const agent = keepAliveAgent(HEAVY_LOOPS);
  let running = true;
  const byStatus: Record<number, number> = {};
  let okMs = 0;
  const loop = async (i: number): Promise<void> => {
    for (let n = 0; running; n++) {
      const res = await get(agent, server.url, HEAVY_URLS[(i + n) % HEAVY_URLS.length] as string, key);
      byStatus[res.status] = (byStatus[res.status] ?? 0) + 1;
      if (res.status === 200) okMs += res.ms;
      else if (res.status === 429) await sleep(Math.max(1, res.retryAfter) * 1000);
      else throw new Error(`heavy read: HTTP ${res.status}`);
    }
  };
  const loops = Array.from({ length: HEAVY_LOOPS }, (_, i) => loop(i));
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      agent.destroy();
      return { byStatus, meanMs: okMs / Math.max(1, byStatus[200] ?? 0) };
    },
  };
}

/** 2,000 responses, each with a thumbs and one in four with a correction, from {@link USERS} users. */
async function seed(server: ChildServer, key: string, runId: string): Promise<ResponseRef[]> {
  const responses = await registerResponses(server.url, key, runId, RESPONSES);
  const agent = keepAliveAgent(1);
  try {
    const events = responses.flatMap((r, i) => [
      { id: `seed-${runId}-t${i}`, responseId: r.id, type: i % 3 === 0 ? 'thumbs_down' : 'thumbs_up', userId: `hu-${i % USERS}` },
      ...(i % 4 === 0 ? [{ id: `seed-${runId}-c${i}`, responseId: r.id, type: 'correction', userId: `hu-${i % USERS}`, payload: { corrected: `${r.answer} (fixed ${i})` } }] : []),
    ]);
    for (let at = 0; at < events.length; at += 1_000) {
      const res = await post(agent, server.url, '/v1/feedback/batch', key, JSON.stringify({ events: events.slice(at, at + 1_000) }));
      if (res.status !== 207) throw new Error(`seeding feedback: HTTP ${res.status} ${res.text.slice(0, 300)}`);
    }
  } finally {
    agent.destroy();
  }
  return responses;
}

/** Waits until the pipeline's backlog (`GET /v1/pipeline`) is empty, at most 5 minutes. */
async function drained(server: ChildServer, key: string): Promise<void> {
  const deadline = performance.now() + 300_000;
  for (;;) {
    const body = (await (await fetch(`${server.url}/v1/pipeline`, { headers: { authorization: `Bearer ${key}` } })).json()) as { backlog: { pending: number } };
    if (body.backlog.pending === 0) return;
    if (performance.now() > deadline) throw new Error(`the pipeline still has ${body.backlog.pending} events after 5 minutes`);
    await sleep(500);
  }
}

const describeCheap = (c: Cheap): string =>
  `thumbs p50 ${dec(c.thumbsP50, 1)} ms, p99 ${dec(c.thumbsP99, 1)} ms, max ${dec(c.thumbsMax, 1)} ms over ${int(c.n)}; /healthz p99 ${dec(c.healthP99, 1)} ms`;

async function runStore(store: 'pglite' | 'postgres', seconds: number): Promise<BenchResult[]> {
  const runId = token(4);
  const key = `fl_sk_bench_${token(16)}`;
  let db: FreshDatabase | undefined;
  let dataDir: string | undefined;
  let server: ChildServer | undefined;
  try {
    if (store === 'postgres') {
      db = await createFreshDatabase();
      server = await startFeedloop({ databaseUrl: db.url, secretKey: key });
    } else {
      dataDir = mkdtempSync(join(tmpdir(), 'fl-bench-heavy-'));
      server = await startEmbeddedFeedloop({ dataDir, secretKey: key });
    }
    const responses = await seed(server, key, runId);
    // The embedded server processes the seed in the same process: measured once it is done (and
    // it analyzes its grown tables itself). On Postgres the planner gets the statistics autovacuum
    // would have given a workspace this size: without them an export page's statement sorts every
    // response left in the workspace (a bitmap scan, then a sort), tens of ms a page at 2,000.
    if (store === 'pglite') await drained(server, key);
    else await withClient((db as FreshDatabase).url, (c) => c.query('ANALYZE'));
    await cheapRequests(server, key, responses, WARMUP_S, `${runId}w`);
    const idle = await cheapRequests(server, key, responses, seconds, `${runId}i`);
    const load = heavyLoops(server, key);
    await sleep(500);
    const loaded = await cheapRequests(server, key, responses, seconds, `${runId}l`);
    const heavy = await load.stop();

    const bound = Math.max(2 * idle.thumbsP99, idle.thumbsP99 + 50);
    const ratio = loaded.thumbsP99 / Math.max(idle.thumbsP99, 1);
    console.log(
      `${store}: thumbs p99 idle ${dec(idle.thumbsP99, 1)} ms, under ${HEAVY_LOOPS} heavy loops ${dec(loaded.thumbsP99, 1)} ms  |  ratio ${dec(ratio)} (bound ${dec(bound, 1)} ms)`,
    );
    console.log(`  idle:   ${describeCheap(idle)}`);
    console.log(`          ${idle.cpu}`);
    console.log(`  loaded: ${describeCheap(loaded)}`);
    console.log(`          ${loaded.cpu}`);
    console.log(`  heavy reads: ${JSON.stringify(heavy.byStatus)} by status, mean ${int(heavy.meanMs)} ms a 200`);
    const target = 'p99 ≤ max(2× idle, idle + 50 ms)';
    return [
      {
        name: `thumbs p99 under ${HEAVY_LOOPS} heavy-read loops (${store})`,
        value: loaded.thumbsP99,
        unit: 'ms',
        baseline: idle.thumbsP99,
        baselineLabel: 'ms idle thumbs p99',
        ratio,
        target,
        met: loaded.thumbsP99 <= bound,
      },
      {
        name: `/healthz p99 under ${HEAVY_LOOPS} heavy-read loops (${store})`,
        value: loaded.healthP99,
        unit: 'ms',
        baseline: idle.healthP99,
        baselineLabel: 'ms idle /healthz p99',
        ratio: loaded.healthP99 / Math.max(idle.healthP99, 0.1),
        target,
        met: loaded.healthP99 <= Math.max(2 * idle.healthP99, idle.healthP99 + 50),
      },
    ];
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

/** Runs the heavy-read isolation benchmark on each store; prints its lines and returns its results. */
export async function runHeavyReadsBench(): Promise<BenchResult[]> {
  const seconds = envInt('BENCH_DURATION_MS', 10_000) / 1000;
  const results: BenchResult[] = [];
  for (const store of benchStores('BENCH_HEAVY_STORES')) results.push(...(await runStore(store, seconds)));
  return results;
}

if (isMain(import.meta.url)) {
  await runHeavyReadsBench();
  process.exit(0);
}
