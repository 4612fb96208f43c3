/**
 * Shared helpers of the ingest benchmarks: a feedloop server (or a trivial Fastify one, or the
 * minimal durable server) in a child process, a keep-alive HTTP client and the result table.
 * The fresh database of a run is in bench-database.ts, what a run reads off the server in
 * bench-measure.ts, the workload in bench-workload.ts.
 *
 * Run as a script it is the trivial baseline server: `node --import tsx bench/bench-server.ts --trivial <port>`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { createServer } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { npmStartNodeFlags } from '../packages/server/test/process-helpers.js';

/** One figure next to its same-run baseline (the shape `runEditDistanceBench` returns). */
export interface BenchResult {
  name: string;
  value: number;
  unit: string;
  baseline: number;
  ratio: number;
  /** What the baseline is, e.g. `raw COPY rows/s`. */
  baselineLabel?: string;
  /** The target for this figure, e.g. `>= 60,000`, and whether it was met. */
  target?: string;
  met?: boolean;
}

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = resolve(ROOT, 'packages/server/dist/cli.js');
/** Every server a benchmark starts or talks to is on this address. */
export const LOOPBACK = '127.0.0.1';

/** Whole numbers with thousands separators: `71,234`. */
export const int = (n: number): string => Math.round(n).toLocaleString('en-US');
/** Two decimals: `0.18`. */
export const dec = (n: number, digits = 2): string => n.toFixed(digits);

/**
 * The stores a benchmark runs on, from the environment variable `name` (default both), checked.
 *
 * @example
 * for (const store of benchStores('BENCH_HEAVY_STORES')) results.push(...(await runStore(store, seconds)));
 */
export function benchStores(name: string): Array<'pglite' | 'postgres'> {
  return (process.env[name] ?? 'pglite,postgres').split(',').map((raw) => {
    const store = raw.trim();
    if (store !== 'pglite' && store !== 'postgres') throw new Error(`${name}: unknown store ${store}`);
    return store;
  });
}

/** A positive whole-number knob from the environment, or its default. */
export const envInt = (name: string, fallback: number): number => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? Math.floor(v) : fallback;
};

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A short random token for database names, keys and ids. */
export const token = (bytes = 6): string => randomBytes(bytes).toString('hex');

/** Whether a module is the script node was started with. */
export function isMain(metaUrl: string): boolean {
  return process.argv[1] !== undefined && metaUrl === pathToFileURL(resolve(process.argv[1])).href;
}

// ---------------------------------------------------------------------------------------------
// Servers in child processes

/** A free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, LOOPBACK, () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => (port ? resolvePort(port) : reject(new Error('no port'))));
    });
  });
}

/** A server running in a child process. */
export interface ChildServer {
  url: string;
  pid: number;
  /** Output the child wrote (warnings, errors), for failure reports. */
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the child has exited. */
  stop(graceMs?: number): Promise<void>;
}

function spawnServer(args: string[], env: NodeJS.ProcessEnv, url: string, readyPath: string | RegExp, label: string): Promise<ChildServer> {
  const child: ChildProcess = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  let alive = true;
  void exited.then(() => (alive = false));
  const server: ChildServer = {
    url,
    pid: child.pid ?? -1,
    output: () => output,
    async stop(graceMs = 15_000) {
      if (!alive) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => {
        if (alive) child.kill('SIGKILL');
      }, graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
  return (async () => {
    // BENCH_START_TIMEOUT_MS: a start-up (an embedded data folder's initdb) takes longer on a busy machine.
    const startMs = envInt('BENCH_START_TIMEOUT_MS', 30_000);
    const deadline = Date.now() + startMs;
    while (Date.now() < deadline) {
      if (!alive) throw new Error(`${label} exited during start-up:\n${output}`);
      if (readyPath instanceof RegExp) {
        if (readyPath.test(output)) return server;
      } else {
        try {
          const res = await fetch(`${url}${readyPath}`);
          await res.arrayBuffer();
          if (res.ok) return server;
        } catch {
          // not listening yet
        }
      }
      await sleep(100);
    }
    await server.stop(2_000);
    throw new Error(`${label} did not become ready within ${startMs / 1000} s:\n${output}`);
  })();
}

/** How to start feedloop. */
export interface FeedloopOptions {
  databaseUrl: string;
  secretKey: string;
  /** Extra environment, e.g. `DATABASE_POOL_SIZE`. */
  env?: Record<string, string>;
  /** Redis key prefix (default: a fresh one); a worker started with the same prefix takes the API's jobs. */
  redisPrefix?: string;
}

/**
 * Starts `node packages/server/dist/cli.js start --api-only` on a free port (LOG_LEVEL=warn), as an
 * API node of the production profile (its jobs go to BullMQ under a prefix of its own, deleted at
 * stop; no worker takes them, so ingest is measured alone), and waits for `/readyz`. With `BENCH_CPU_PROF=<dir>` the child runs under `--cpu-prof` and writes its profile
 * there when stopped; `BENCH_FEEDLOOP_CLI=<path>` runs another build's cli.js and `BENCH_SERVER_ENV`
 * adds environment (to try a change).
 */
export async function startFeedloop(options: FeedloopOptions): Promise<ChildServer> {
  const port = await freePort();
  const prefix = options.redisPrefix ?? `flbench-${token()}`;
  const env: NodeJS.ProcessEnv = {
    ...childEnv(options),
    PORT: String(port),
    HOST: LOOPBACK,
    FEEDLOOP_INIT_WORKSPACE: 'bench',
    FEEDLOOP_INIT_SECRET_KEY: options.secretKey,
    REDIS_URL: BENCH_REDIS_URL,
    FEEDLOOP_REDIS_PREFIX: prefix,
  };
  const server = await spawnServer([...cliArgs('start'), '--api-only'], env, `http://${LOOPBACK}:${port}`, '/readyz', 'feedloop');
  await assumeImplicitConsent(server.url, options.secretKey);
  const stop = server.stop.bind(server);
  server.stop = async (graceMs) => {
    await stop(graceMs);
    await deleteRedisPrefix(prefix);
  };
  return server;
}

/**
 * Starts the embedded profile, `node packages/server/dist/cli.js start` with no DATABASE_URL and
 * no REDIS_URL (PGlite in `dataDir`, the pipeline's worker and queue in the same process), as
 * `npm start` runs it, on a free port; waits for `/readyz`. `env` adds environment (e.g.
 * `FEEDLOOP_WEBHOOK_ALLOW_PRIVATE`). Same knobs as {@link startFeedloop}.
 */
export async function startEmbeddedFeedloop(options: { dataDir: string; secretKey: string; env?: Record<string, string> }): Promise<ChildServer> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    FEEDLOOP_DATA_DIR: options.dataDir,
    PORT: String(port),
    HOST: LOOPBACK,
    FEEDLOOP_INIT_WORKSPACE: 'bench',
    FEEDLOOP_INIT_SECRET_KEY: options.secretKey,
    ...options.env,
    ...extraServerEnv(),
  };
  // Node's flags as `npm start` sets them: the embedded server is measured as users run it.
  const server = await spawnServer(cliArgs('start', npmStartNodeFlags()), env, `http://${LOOPBACK}:${port}`, '/readyz', 'feedloop (embedded)');
  await assumeImplicitConsent(server.url, options.secretKey);
  return server;
}

/**
 * The event mix has implicit signals from users who never opted in: the bench workspace trusts
 * the host app's consent (`implicitConsent: 'assumed'`, docs/privacy.md), as a production
 * deployment that asks for consent itself would.
 */
async function assumeImplicitConsent(url: string, secretKey: string): Promise<void> {
  const res = await fetch(`${url}/v1/workspace/settings`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ implicitConsent: 'assumed' }),
  });
  if (res.status !== 200) throw new Error(`bench workspace settings: ${res.status} ${await res.text()}`);
}

/**
 * Starts the minimal durable server (bench/minimal-durable-server.ts) on Postgres (`target` a
 * database URL) or PGlite (`target` a data folder) in a child process.
 */
export async function startMinimalDurable(store: 'postgres' | 'pglite', target: string): Promise<ChildServer> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production' };
  const script = resolve(ROOT, 'bench/minimal-durable-server.ts');
  return spawnServer(['--import', 'tsx', script, String(port), store, target], env, `http://${LOOPBACK}:${port}`, '/healthz', `minimal durable server (${store})`);
}

/** The Redis of the benchmarks (queues, counters). */
export const BENCH_REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Deletes every Redis key under a prefix (what a benchmark's server or worker left behind). */
export async function deleteRedisPrefix(prefix: string): Promise<void> {
  const redis = new Redis(BENCH_REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1_000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/**
 * Starts `node packages/server/dist/cli.js worker` (production profile: `env` must hold
 * `REDIS_URL`) and waits until it says it runs. Same knobs as {@link startFeedloop}.
 */
export async function startFeedloopWorker(options: Omit<FeedloopOptions, 'secretKey'>): Promise<ChildServer> {
  const env: NodeJS.ProcessEnv = { ...childEnv(options), LOG_LEVEL: 'info' };
  if (options.redisPrefix) Object.assign(env, { REDIS_URL: BENCH_REDIS_URL, FEEDLOOP_REDIS_PREFIX: options.redisPrefix });
  return spawnServer(cliArgs('worker'), env, '', /feedloop worker running/, 'feedloop worker');
}

function cliArgs(command: string, nodeFlags: readonly string[] = []): string[] {
  const prof = process.env.BENCH_CPU_PROF?.trim();
  const cli = process.env.BENCH_FEEDLOOP_CLI?.trim() ? resolve(process.env.BENCH_FEEDLOOP_CLI.trim()) : CLI;
  return [...nodeFlags, ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${resolve(prof)}`] : []), cli, command];
}

function childEnv(options: Omit<FeedloopOptions, 'secretKey'>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    DATABASE_URL: options.databaseUrl,
    LOG_LEVEL: 'warn',
    ...options.env,
    ...extraServerEnv(),
  };
}

/** `BENCH_SERVER_ENV="DATABASE_POOL_SIZE=20,KEY=value"`: more environment for the feedloop child (to try a setting). */
function extraServerEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (process.env.BENCH_SERVER_ENV ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at > 0) out[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return out;
}

/** Starts the trivial Fastify baseline (`POST /x` answers `{ ok: true }`) in a child process. */
export async function startTrivial(): Promise<ChildServer> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production' };
  const args = ['--import', 'tsx', fileURLToPath(import.meta.url), '--trivial', String(port)];
  return spawnServer(args, env, `http://${LOOPBACK}:${port}`, '/healthz', 'trivial fastify');
}

async function runTrivialServer(port: number): Promise<void> {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.post('/x', async () => ({ ok: true }));
  await app.listen({ port, host: LOOPBACK });
  const stop = (): void => void app.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

// ---------------------------------------------------------------------------------------------
// HTTP client

/** A keep-alive agent for a few concurrent clients. */
export function keepAliveAgent(sockets: number): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets });
}

/** One POST with a JSON body; resolves with the status and the body text. */
export function post(agent: http.Agent, url: string, path: string, key: string, body: Buffer | string, timeoutMs = 60_000): Promise<{ status: number; text: string }> {
  const target = new URL(path, url);
  const payload = typeof body === 'string' ? Buffer.from(body) : body;
  return new Promise((resolvePost, reject) => {
    const req = http.request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': payload.length, authorization: `Bearer ${key}` },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolvePost({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`POST ${path} timed out after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

// Output

/** Prints the final table of all results. */
export function printTable(results: readonly BenchResult[]): void {
  const rows = results.map((r) => [
    r.name,
    `${fmtValue(r.value)} ${r.unit}`,
    r.baselineLabel ? `${fmtValue(r.baseline)} ${r.baselineLabel}` : `${fmtValue(r.baseline)} ${r.unit}`,
    dec(r.ratio),
    r.target ? `${r.target} ${r.met === undefined ? '' : r.met ? 'met' : 'MISSED'}` : '',
  ]);
  const head = ['benchmark', 'feedloop', 'baseline (same run)', 'ratio', 'target'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  |  ').trimEnd();
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('--+--'));
  for (const row of rows) console.log(line(row));
}

function fmtValue(v: number): string {
  if (v >= 100) return int(v);
  if (v >= 10) return dec(v, 1);
  return dec(v, 2);
}

if (isMain(import.meta.url) && process.argv[2] === '--trivial') {
  await runTrivialServer(Number(process.argv[3]));
}
