/**
 * Every command README.md shows, run as written (read from the README's code blocks, so the test
 * follows the README): `npm start` with its first-start keys and the Quick start's curl calls in
 * the embedded profile; the production profile's `npx --no-install feedloop migrate | start
 * --api-only | worker` on the real Postgres (a database of its own) and Redis (a prefix of its own),
 * the Quick start again against it, the worker processing its events; and the CLI section's admin
 * commands. Only the placeholders (`…`, `<name>`) and the address are filled in.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, POSTGRES_URL, REDIS_URL, redisUp, withPgClient } from './harness.js';
import { freePort, REPO_ROOT } from './process-helpers.js';

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const README_ADDRESS = 'http://127.0.0.1:8787';
/** `npm start` runs `tsc -b` first. */
const START_TIMEOUT_MS = 180_000;

/** The text under a heading, up to the next heading of the same or a higher level (outside code blocks). */
function section(title: string): string {
  const lines = README.split('\n');
  const start = lines.findIndex((l) => new RegExp(`^#+ ${title}\\s*$`).test(l));
  if (start < 0) throw new Error(`README has no section "${title}"`);
  const level = /^#+/.exec(lines[start] as string)?.[0].length ?? 1;
  let inCode = false;
  let end = start + 1;
  for (; end < lines.length; end++) {
    const line = lines[end] as string;
    if (line.startsWith('```')) inCode = !inCode;
    else if (!inCode && new RegExp(`^#{1,${level}} `).test(line)) break;
  }
  return lines.slice(start + 1, end).join('\n');
}

/** The fenced code blocks of a text. */
function codeBlocks(text: string): string[] {
  return [...text.matchAll(/^```[a-z]*\n([\s\S]*?)^```/gm)].map((m) => m[1] ?? '');
}

/**
 * A block's shell statements: lines joined where a line ends in a backslash or a single-quoted
 * string goes on (`'\''` is an escaped quote inside one); comment lines stand alone.
 */
function statements(block: string): string[] {
  const out: string[] = [];
  let buffer = '';
  for (const raw of block.split('\n')) {
    const line = buffer === '' ? raw.trim() : raw;
    if (buffer === '' && (line === '' || line.startsWith('#'))) {
      if (line !== '') out.push(line);
      continue;
    }
    if (line.endsWith('\\')) {
      buffer += `${line.slice(0, -1).trimEnd()} `;
      continue;
    }
    buffer += line;
    const quotes = buffer.replaceAll("\\'", '').split("'").length - 1;
    if (quotes % 2 === 1) {
      buffer += '\n';
      continue;
    }
    out.push(buffer.trim());
    buffer = '';
  }
  return out;
}

/** The first `{…}` of a text (flat objects, as the README shows them). */
function firstJson(text: string): unknown {
  const m = /\{[^{}]*\}/.exec(text);
  return m ? JSON.parse(m[0]) : undefined;
}

const children: { child: ChildProcess; output: () => string }[] = [];

function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(DATABASE_URL|DATABASE_POOL_SIZE|REDIS_URL|NATS_URL|PORT|HOST|LOG_LEVEL|NODE_OPTIONS|FEEDLOOP_.*)$/.test(k)) env[k] = v;
  }
  return { ...env, ...extra };
}

/** Runs one README command line through bash, as a reader would paste it. */
function sh(line: string, env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('bash', ['-c', line], { cwd: REPO_ROOT, env: cleanEnv(env), encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Starts a long-running README command in its own process group (so npm/npx and node stop together). */
function shBackground(line: string, env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const child = spawn('bash', ['-c', line], { cwd: REPO_ROOT, env: cleanEnv(env), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const started = { child, output: () => `${stdout}\n--- stderr ---\n${stderr}` };
  children.push(started);
  return started;
}

async function waitFor(what: string, check: () => Promise<boolean> | boolean, output: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${START_TIMEOUT_MS} ms:\n${output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function status(url: string): Promise<number> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2_000) })).status;
  } catch {
    return 0;
  }
}

afterAll(async () => {
  for (const { child } of children) {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  await Promise.all(children.map(({ child }) => (child.exitCode === null && child.signalCode === null ? new Promise((r) => child.once('exit', r)) : undefined)));
});

/**
 * Runs the Quick start's curl calls against `url` with the two keys and checks every answer the
 * README shows (and the duplicate it promises when the thumbs down is sent again).
 */
async function runQuickStart(url: string, keys: { SK: string; PK: string }): Promise<void> {
  const lines = statements(codeBlocks(section('Quick start'))[0] ?? '');
  const curls = lines.filter((l) => l.startsWith('curl '));
  expect(curls.length).toBeGreaterThanOrEqual(5);
  let checked = 0;
  for (const [i, line] of lines.entries()) {
    if (!line.startsWith('curl ')) continue;
    const command = line.replaceAll(README_ADDRESS, url);
    // The README's one name for the secret key, as the CLI reads it.
    const env = { FEEDLOOP_API_KEY: keys.SK, PK: keys.PK };
    const r = sh(command, env);
    expect(r.status, `${line}\n${r.stderr}`).toBe(0);
    const answer = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(answer, line).not.toHaveProperty('error');
    const shown = lines[i + 1]?.startsWith('# {') ? (lines[i + 1] as string) : undefined;
    if (shown) {
      expect(answer, line).toEqual(firstJson(shown));
      checked++;
      const again = /sent again: (\{[^}]*\})/.exec(shown)?.[1];
      if (again) {
        expect(JSON.parse(sh(command, env).stdout)).toEqual(JSON.parse(again));
        checked++;
      }
    }
    if (/\/v1\/responses\/resp-001/.test(line)) {
      expect(answer).toMatchObject({ id: 'resp-001' });
      expect((answer.feedback as { type: string }[]).map((f) => f.type).sort()).toEqual(['correction', 'thumbs_down']);
    }
    if (/\/v1\/feedback\?/.test(line)) expect((answer.data as unknown[]).length).toBe(2);
  }
  // The register, thumbs down and its duplicate: every answer the README shows was compared.
  expect(checked).toBe(3);
}

describe('README: Set up and Quick start (embedded profile, npm start)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'feedloop-readme-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('links the command to the committed launcher, which says what to do when the build is missing', () => {
    expect(realpathSync(join(REPO_ROOT, 'node_modules/.bin/feedloop'))).toBe(join(REPO_ROOT, 'packages/server/bin/feedloop.js'));
    const copy = join(dir, 'launcher', 'bin');
    mkdirSync(copy, { recursive: true });
    copyFileSync(join(REPO_ROOT, 'packages/server/bin/feedloop.js'), join(copy, 'feedloop.js'));
    const r = spawnSync(process.execPath, [join(copy, 'feedloop.js'), '--help'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/the CLI is not built yet .*\nRun `npm run build`/);
  });

  it('npm start prints the keys once, and the Quick start works as written', async () => {
    const setup = statements(codeBlocks(section('Set up'))[0] ?? '');
    expect(setup).toEqual(['npm install && npm start']);
    // `npm install` has run (CI installs the clone with `npm ci`, which runs the same prepare): start.
    const port = await freePort();
    const server = shBackground('npm start', { FEEDLOOP_DATA_DIR: join(dir, 'data'), PORT: String(port) });
    const url = `http://127.0.0.1:${port}`;
    await waitFor('npm start answering /healthz', async () => (await status(`${url}/healthz`)) === 200, server.output);
    const SK = /secret key[^:]*:\s*(fl_sk_\S+)/.exec(server.output())?.[1];
    const PK = /public key[^:]*:\s*(fl_pk_\S+)/.exec(server.output())?.[1];
    expect(SK && PK, server.output()).toBeTruthy();
    await runQuickStart(url, { SK: SK as string, PK: PK as string });
  }, 2 * START_TIMEOUT_MS);
});

const postgres = BACKENDS.find((b) => b.name === 'postgres');

describe.skipIf(!postgres?.available || !redisUp)('README: Production profile and CLI (Postgres, Redis)', () => {
  const database = `fl_readme_${randomBytes(5).toString('hex')}`;
  const dbUrl = new URL(POSTGRES_URL);
  dbUrl.pathname = `/${database}`;
  const prefix = `fltest-readme-${randomBytes(5).toString('hex')}`;
  const SK = `fl_sk_${randomBytes(16).toString('hex')}`;
  const PK = `fl_pk_${randomBytes(16).toString('hex')}`;
  const env: Record<string, string> = {
    DATABASE_URL: dbUrl.href,
    REDIS_URL,
    FEEDLOOP_REDIS_PREFIX: prefix,
    FEEDLOOP_INIT_WORKSPACE: 'prod',
    FEEDLOOP_INIT_SECRET_KEY: SK,
    FEEDLOOP_INIT_PUBLIC_KEY: PK,
    LOG_LEVEL: 'info',
  };
  const lines = statements(codeBlocks(section('Production profile'))[0] ?? '');
  const commands = lines.filter((l) => !l.startsWith('export ') && !l.startsWith('#'));
  const command = (what: RegExp): string => {
    const found = commands.find((c) => what.test(c));
    if (!found) throw new Error(`the Production profile block has no command matching ${what}`);
    return found;
  };

  beforeAll(() => withPgClient((c) => c.query(`CREATE DATABASE ${database}`)));
  afterAll(async () => {
    for (const { child } of children.splice(0)) {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone already
      }
      if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once('exit', r));
    }
    await withPgClient((c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
    const redis = new Redis(REDIS_URL);
    try {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
  });

  it('exports only what the test provides, and runs only local commands', () => {
    const exported = lines.filter((l) => l.startsWith('export ')).flatMap((l) => [...l.matchAll(/([A-Z_]+)=/g)].map((m) => m[1]));
    // NATS_URL is optional (the stream); the rest is set here to this test's own services.
    expect(exported.filter((v) => v !== 'NATS_URL').sort()).toEqual(Object.keys(env).filter((k) => !['FEEDLOOP_REDIS_PREFIX', 'LOG_LEVEL'].includes(k)).sort());
    expect(commands).toHaveLength(3);
    for (const c of commands) expect(c).toMatch(/npx --no-install feedloop /);
  });

  it('migrate, start --api-only, the Quick start, then a worker processes the events', async () => {
    const migrated = sh(command(/ migrate\b/), env);
    expect(migrated.status, migrated.stderr).toBe(0);
    expect(migrated.stdout).toMatch(/^applied 1_init, 2_pipeline/);

    const port = await freePort();
    const api = shBackground(command(/ start --api-only/), { ...env, PORT: String(port) });
    const url = `http://127.0.0.1:${port}`;
    await waitFor('feedloop start --api-only answering /healthz', async () => (await status(`${url}/healthz`)) === 200, api.output);
    await runQuickStart(url, { SK, PK });

    const live = async (): Promise<number> => {
      const r = await fetch(`${url}/v1/stats/live`, { headers: { authorization: `Bearer ${SK}` } });
      return ((await r.json()) as { total: number }).total;
    };
    // An API-only process leaves the events to workers.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await live()).toBe(0);

    const worker = shBackground(command(/ worker\b/), env);
    await waitFor('the worker counting both events', async () => (await live()) === 2, worker.output);
    // Not a terminal: JSON lines, one object each.
    const logLines = worker.output().split('\n--- stderr ---\n')[0]?.split('\n').filter(Boolean) ?? [];
    expect(logLines.length).toBeGreaterThan(0);
    for (const line of logLines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(logLines.map((l) => (JSON.parse(l) as { msg?: string }).msg)).toContain('feedloop worker running');
  }, 3 * START_TIMEOUT_MS);

  it("runs the CLI section's admin commands", () => {
    const cliLines = statements(codeBlocks(section('CLI'))[0] ?? '').filter((l) => l.startsWith('feedloop '));
    // Each documented form, with its placeholders filled; a form added to the README must be added here.
    const forms: Record<string, (state: { workspaceId?: string; keyId?: string }) => string> = {
      'feedloop workspace create <name> [--tenant T]': () => 'workspace create readme-ws --tenant acme --json',
      'feedloop workspace list': () => 'workspace list --json',
      'feedloop key create --workspace W [--kind secret|public|reviewer] [--name N]': (s) => `key create --workspace ${s.workspaceId} --kind public --name widget --json`,
      'feedloop key list --workspace W': (s) => `key list --workspace ${s.workspaceId} --json`,
      'feedloop key revoke <keyId> --workspace W': (s) => `key revoke ${s.keyId} --workspace ${s.workspaceId} --json`,
    };
    const ranElsewhere = [
      'feedloop start [--api-only]',
      'feedloop worker',
      'feedloop migrate',
      'feedloop import oasst|hh-rlhf|jsonl <path> [--url U] [--key K]', // import-jsonl-cli.test.ts
      'feedloop export <format>|--batch <id> --out F|s3://bucket/key', // export-cli.test.ts
      'feedloop demo [--seed-only] [--scale S]', // dashboard-e2e.test.ts, demo-command.test.ts
      'feedloop demo --url U [--key K] [--scale S]', // demo-command.test.ts (real processes)
      'feedloop mcp', // mcp.test.ts
    ];
    const documented = cliLines.map((l) => l.split(/\s{2,}/)[0] as string);
    expect(documented.filter((d) => !ranElsewhere.includes(d)).sort()).toEqual(Object.keys(forms).sort());

    const state: { workspaceId?: string; keyId?: string } = {};
    const run = (form: string): unknown => {
      const r = sh(`npx --no-install feedloop ${forms[form]?.(state)}`, env);
      expect(r.status, `${form}\n${r.stderr}`).toBe(0);
      return JSON.parse(r.stdout);
    };
    const workspace = run('feedloop workspace create <name> [--tenant T]') as { id: string };
    expect(workspace).toMatchObject({ name: 'readme-ws', tenantId: 'acme', created: true });
    state.workspaceId = workspace.id;
    expect((run('feedloop workspace list') as { name: string }[]).map((w) => w.name)).toEqual(expect.arrayContaining(['prod', 'readme-ws']));
    const key = run('feedloop key create --workspace W [--kind secret|public|reviewer] [--name N]') as { id: string; key: string };
    expect(key.key).toMatch(/^fl_pk_/);
    state.keyId = key.id;
    expect(run('feedloop key list --workspace W')).toEqual([expect.objectContaining({ id: key.id, kind: 'public', name: 'widget', revokedAt: null })]);
    expect(run('feedloop key revoke <keyId> --workspace W')).toMatchObject({ id: key.id });
    expect((run('feedloop key list --workspace W') as { revokedAt: string | null }[])[0]?.revokedAt).not.toBeNull();
  }, 120_000);
});
