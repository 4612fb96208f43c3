/**
 * Restart after a crash, as a supervisor does it: `npm start` (the README's command) in its own
 * process group, the whole group killed with SIGKILL, and `npm start` again at once on the same
 * data folder. The killed server is kept unreaped (a zombie, as under a slow supervisor or
 * container init): its parent is a small Python process made a "child subreaper" that never waits,
 * so the restart meets exactly the lock the issue saw refused. The later start says how to get a
 * key, and the command it prints works as printed while it runs.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_PATH, freePort, procState, REPO_ROOT } from './process-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'feedloop-restart-'));
const dataDir = join(dir, 'data');
/** How long `npm start` may take: it runs `tsc -b` before the server. */
const START_TIMEOUT_MS = 180_000;

/**
 * Becomes a child subreaper (prctl PR_SET_CHILD_SUBREAPER = 36, so orphans of the group it starts
 * are re-parented to it), starts `npm start` in a new session (its own process group), prints the
 * group's id and then waits for stdin to close without reaping anything; only then reaps and exits.
 */
const NO_REAP_PARENT = `
import ctypes, os, subprocess, sys
if ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) != 0: sys.exit('prctl failed')
p = subprocess.Popen(['npm', 'start'], start_new_session=True, stdin=subprocess.DEVNULL)
sys.stderr.write('pgid %d\\n' % p.pid); sys.stderr.flush()
sys.stdin.read()
try:
    while True: os.waitpid(-1, 0)
except ChildProcessError:
    pass
`;

interface Started {
  parent: ChildProcess;
  pgid: number;
  url: string;
  output(): string;
}
const parents: Started[] = [];

function env(port: number): Record<string, string> {
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(DATABASE_URL|REDIS_URL|NATS_URL|PORT|HOST|LOG_LEVEL|NODE_OPTIONS|FEEDLOOP_.*)$/.test(k)) clean[k] = v;
  }
  return { ...clean, FEEDLOOP_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
}

/** `npm start` under the no-reap parent; resolves once the group id is known. */
async function npmStart(): Promise<Started> {
  const port = await freePort();
  const parent = spawn('python3', ['-c', NO_REAP_PARENT], { cwd: REPO_ROOT, env: env(port), stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  parent.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  parent.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const deadline = Date.now() + 30_000;
  while (!/pgid (\d+)/.test(output)) {
    if (Date.now() > deadline || parent.exitCode !== null) throw new Error(`no process group:\n${output}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const started = { parent, pgid: Number(/pgid (\d+)/.exec(output)?.[1]), url: `http://127.0.0.1:${port}`, output: () => output };
  parents.push(started);
  return started;
}

async function healthz(url: string): Promise<number> {
  try {
    return (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) })).status;
  } catch {
    return 0;
  }
}

async function waitHealthy(s: Started): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while ((await healthz(s.url)) !== 200) {
    if (/FEEDLOOP_ERR_/.test(s.output())) throw new Error(`npm start failed:\n${s.output()}`);
    if (Date.now() > deadline) throw new Error(`npm start did not answer /healthz within ${START_TIMEOUT_MS} ms:\n${s.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until a start has printed `text` (it prints after it answers /healthz). */
async function waitOutput(s: Started, text: string): Promise<void> {
  for (const deadline = Date.now() + 30_000; !s.output().includes(text); ) {
    if (Date.now() > deadline) throw new Error(`npm start did not print ${text}:\n${s.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The pid a lock names (a bare pid, as feedloop wrote before, or the JSON record). */
function lockOwner(): number {
  const parsed = JSON.parse(readFileSync(join(dataDir, 'feedloop.lock'), 'utf8')) as number | { pid: number };
  return typeof parsed === 'number' ? parsed : parsed.pid;
}

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // already gone
  }
}

afterAll(async () => {
  for (const s of parents) {
    killGroup(s.pgid);
    s.parent.stdin?.end();
  }
  await Promise.all(parents.map((s) => (s.parent.exitCode === null ? new Promise((r) => s.parent.once('exit', r)) : undefined)));
  rmSync(dir, { recursive: true, force: true });
});

describe.runIf(process.platform === 'linux')('restart after SIGKILL of npm start', () => {
  it('starts again at once over the lock of the killed (unreaped) server, and still refuses a second live one', async () => {
    const first = await npmStart();
    await waitHealthy(first);
    const secretKey = /secret key[^:]*:\s*(fl_sk_\S+)/.exec(first.output())?.[1];
    expect(secretKey, first.output()).toBeDefined();
    const owner = { pid: lockOwner() };

    killGroup(first.pgid);
    // Dead but unreaped: the very state the old pid check took for a live owner.
    for (let i = 0; i < 100 && procState(owner.pid) !== 'Z'; i++) await new Promise((r) => setTimeout(r, 20));
    expect(procState(owner.pid)).toBe('Z');

    const second = await npmStart();
    await waitHealthy(second);
    expect(procState(owner.pid)).toBe('Z');
    // A later start prints the dashboard and how to get a key, never the key again.
    await waitOutput(second, 'Dashboard:');
    expect(second.output()).toContain(`Dashboard: ${second.url}/`);
    expect(second.output()).not.toContain(secretKey as string);
    expect(first.output()).toContain(`Dashboard: ${first.url}/`);
    // The command it prints names the workspace and works as printed while the server runs (it
    // holds the folder: the key is made through its local admin credential).
    const printed = /npx --no-install feedloop (key create --workspace \S+)/.exec(second.output())?.[1];
    expect(printed, second.output()).toBe('key create --workspace default');
    const made = spawnSync(process.execPath, [CLI_PATH, ...(printed as string).split(' '), '--json'], { cwd: REPO_ROOT, env: env(Number(new URL(second.url).port)), encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    const newKey = (JSON.parse(made.stdout) as { key: string }).key;
    const mine = await fetch(`${second.url}/v1/workspace`, { headers: { authorization: `Bearer ${newKey}` } });
    expect(((await mine.json()) as { name: string }).name).toBe('default');
    // Same folder, same data: the key the first start printed works on the second.
    const ws = await fetch(`${second.url}/v1/workspace`, { headers: { authorization: `Bearer ${secretKey}` } });
    expect(ws.status).toBe(200);
    const secondOwner = { pid: lockOwner() };
    expect(secondOwner.pid).not.toBe(owner.pid);

    // A third start while the second is alive is refused, naming the live owner.
    const third = await npmStart();
    const code = await new Promise<number | null>((resolve) => {
      third.parent.stdin?.end();
      third.parent.once('exit', resolve);
    });
    expect(code).toBe(0); // the Python parent; npm's own status is in the output
    expect(third.output()).toMatch(new RegExp(`FEEDLOOP_ERR_DATA_DIR_LOCKED: the data folder .* is in use by feedloop process ${secondOwner.pid}\\b`));
    expect(await healthz(second.url)).toBe(200);
  }, 3 * START_TIMEOUT_MS);
});
