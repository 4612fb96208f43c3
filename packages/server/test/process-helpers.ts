/**
 * Test helpers for running the real `feedloop start` and `feedloop worker` commands as child processes: a free port,
 * spawning with a clean environment, waiting for `/readyz`, signalling by pid, and a small JSON
 * HTTP client on its own keep-alive agent (one per server, so a killed server's sockets are
 * never reused for its successor).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The built command line entry (`npm test` builds it before vitest runs). */
export const CLI_PATH = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/** Environment variables of the test process that must not leak into a server under test. */
const SCRUBBED = /^(DATABASE_URL|DATABASE_POOL_SIZE|REDIS_URL|PORT|HOST|LOG_LEVEL|NODE_OPTIONS|FEEDLOOP_.*)$/;

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no port assigned'))));
    });
  });
}

/** How a child process ended. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running `feedloop start` or `feedloop worker`. */
export interface ServerProcess {
  readonly pid: number;
  /** `http://127.0.0.1:<port>` (empty for a worker, which serves no HTTP). */
  readonly url: string;
  /** Resolves when the process has exited. */
  readonly exited: Promise<ExitStatus>;
  running(): boolean;
  /** Sends a signal to this process (by its pid); does nothing once it has exited. */
  signal(signal: NodeJS.Signals): void;
  /** The last few kilobytes of its stdout and stderr, for failure messages. */
  output(): string;
}

const started = new Set<ServerProcess>();
const OUTPUT_KEEP = 16_384;

/** Resolves with `value` or rejects after `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: no result within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Spawns `node dist/cli.js <args>` with a clean environment plus `env`; not yet waited on. */
/**
 * The Node flags the README's `npm start` runs the server with (the root package.json's `start`
 * script): tests and benchmarks start it the same way, so what they measure is what users run.
 *
 * @example
 * spawn(process.execPath, [...npmStartNodeFlags(), CLI_PATH, 'start'])
 */
export function npmStartNodeFlags(): string[] {
  const scripts = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const flags = /\bnode((?: --[^\s]+)*) packages\/server\/dist\/cli\.js start\b/.exec(scripts.start ?? '')?.[1];
  if (flags === undefined) throw new Error(`package.json's start script does not run packages/server/dist/cli.js start: ${scripts.start}`);
  return flags.split(' ').filter(Boolean);
}

function spawnFeedloop(
  args: string[],
  env: Record<string, string>,
  url: string,
  onOutput?: (chunk: string) => void,
): { process: ServerProcess; exitStatus: () => ExitStatus | undefined } {
  if (!existsSync(CLI_PATH)) throw new Error(`${CLI_PATH} is missing: build first (npx tsc -b packages/core packages/server)`);
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !SCRUBBED.test(k)) childEnv[k] = v;
  Object.assign(childEnv, { LOG_LEVEL: 'warn' }, env);

  const child: ChildProcess = spawn(process.execPath, [...npmStartNodeFlags(), CLI_PATH, ...args], { cwd: REPO_ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-OUTPUT_KEEP);
  };
  if (onOutput) child.stdout?.on('data', (chunk: Buffer) => onOutput(chunk.toString()));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exitStatus: ExitStatus | undefined;
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => {
      exitStatus = { code, signal };
      resolve(exitStatus);
    });
  });
  child.once('error', (err) => {
    output += `\nspawn error: ${err.message}`;
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not spawn feedloop ${args.join(' ')}`);
  const server: ServerProcess = {
    pid,
    url,
    exited,
    running: () => exitStatus === undefined,
    signal(signal) {
      if (exitStatus === undefined) process.kill(pid, signal);
    },
    output: () => output,
  };
  started.add(server);
  void exited.then(() => started.delete(server));
  return { process: server, exitStatus: () => exitStatus };
}

/** Polls `ready` until it holds; kills the process and throws with its output when it exits or time runs out. */
async function waitReady(p: { process: ServerProcess; exitStatus: () => ExitStatus | undefined }, ready: () => Promise<boolean>, timeoutMs: number): Promise<ServerProcess> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = p.exitStatus();
    if (status) throw new Error(`feedloop exited before it was ready (${JSON.stringify(status)}):\n${p.process.output()}`);
    if (await ready()) return p.process;
    if (Date.now() > deadline) {
      p.process.signal('SIGKILL');
      throw new Error(`feedloop was not ready within ${timeoutMs} ms:\n${p.process.output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Starts `node dist/cli.js start [args]` with `env` on a free port and waits until `/readyz` answers 200.
 *
 * @throws Error with the process's output when it exits or is not ready in time.
 * @example
 * const server = await startServerProcess({ FEEDLOOP_DATA_DIR: dir, FEEDLOOP_INIT_SECRET_KEY: key });
 */
export async function startServerProcess(env: Record<string, string>, readyTimeoutMs = 60_000, args: string[] = []): Promise<ServerProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const p = spawnFeedloop(['start', ...args], { HOST: '127.0.0.1', PORT: String(port), ...env }, url);
  return waitReady(p, () => isReady(url), readyTimeoutMs);
}

/**
 * Starts `node dist/cli.js start` on a given port (a restart where clients keep the address).
 *
 * @example
 * const again = await startServerProcessOn(port, { FEEDLOOP_DATA_DIR: dir });
 */
export async function startServerProcessOn(port: number, env: Record<string, string>, readyTimeoutMs = 60_000): Promise<ServerProcess> {
  const url = `http://127.0.0.1:${port}`;
  const p = spawnFeedloop(['start'], { HOST: '127.0.0.1', ...env, PORT: String(port) }, url);
  return waitReady(p, () => isReady(url), readyTimeoutMs);
}

/**
 * Starts `node dist/cli.js worker` with `env` and waits until it says it is running.
 *
 * @example
 * const worker = await startWorkerProcess({ DATABASE_URL, REDIS_URL });
 */
export async function startWorkerProcess(env: Record<string, string>, onOutput?: (chunk: string) => void, readyTimeoutMs = 60_000): Promise<ServerProcess> {
  const p = spawnFeedloop(['worker'], { LOG_LEVEL: 'info', ...env }, '', onOutput);
  return waitReady(p, async () => p.process.output().includes('feedloop worker running'), readyTimeoutMs);
}

function isReady(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(`${url}/readyz`, { agent: false, timeout: 2_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
      res.on('error', () => resolve(false));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

/** Kills (SIGKILL, by pid) every server this process started that is still running, and waits for them. */
export async function killAllServers(): Promise<void> {
  const alive = [...started];
  for (const s of alive) s.signal('SIGKILL');
  await Promise.all(alive.map((s) => within(s.exited, 10_000, `exit of pid ${s.pid}`).catch(() => undefined)));
}

/** An HTTP answer with its JSON body (or the raw text when it is not JSON). */
export interface JsonResponse {
  status: number;
  body: unknown;
}

/**
 * A JSON client for one server, on its own keep-alive agent.
 *
 * @example
 * const client = new JsonClient(server.url, { authorization: `Bearer ${key}` });
 * const { status, body } = await client.request('POST', '/v1/feedback', event);
 */
export class JsonClient {
  readonly #agent: http.Agent;

  constructor(
    readonly baseUrl: string,
    readonly headers: Record<string, string> = {},
    maxSockets = 64,
    readonly timeoutMs = 30_000,
  ) {
    this.#agent = new http.Agent({ keepAlive: true, maxSockets });
  }

  /** Sends a request; rejects on a connection error or when no answer comes within the timeout. */
  request(method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown): Promise<JsonResponse> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const req = http.request(
        `${this.baseUrl}${path}`,
        {
          method,
          agent: this.#agent,
          timeout: this.timeoutMs,
          headers: {
            ...this.headers,
            ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          // A server killed mid-answer: the body never ends.
          res.on('close', () => {
            if (!res.complete) reject(new Error(`${method} ${path}: the answer was cut off`));
          });
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            let parsed: unknown = text;
            try {
              parsed = text === '' ? undefined : JSON.parse(text);
            } catch {
              // not JSON: keep the text
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within ${this.timeoutMs} ms`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** Closes every socket of this client. */
  close(): void {
    this.#agent.destroy();
  }
}

/** The fields of `/proc/<pid>/stat` after the command name (state first), or undefined when gone. */
function procStatFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** A process's state letter from /proc (`Z` for a zombie), read independently of the code under test. */
export function procState(pid: number): string | undefined {
  return procStatFields(pid)?.[0];
}

/** Field 22 of /proc/<pid>/stat: the clock tick after boot at which the process started. */
export function procStartTime(pid: number): string | undefined {
  return procStatFields(pid)?.[19];
}
