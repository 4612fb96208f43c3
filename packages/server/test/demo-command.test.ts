/**
 * `feedloop demo`: what its pages read once it says it is done (every event processed, rescored
 * and rolled up, the planted drop's alert firing, the experiment counted), and the demo beside a
 * running `feedloop start`, both as real processes: with no flags and no key it finds the server
 * through the data folder's lock and seeds a `demo` workspace through its API (the server's local
 * admin credential makes the key); `--url` with a key seeds the key's workspace; with no
 * credential it refuses, saying what to give; beside a production-profile server it finds it at
 * HOST:PORT and makes the key in the database its environment names.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runDemo } from '../src/cli/demo-command.js';
import { DEMO_EXPERIMENT } from '../src/cli/demo-data.js';
import { loadConfig } from '../src/config.js';
import { BACKENDS, POSTGRES_URL, withPgClient } from './harness.js';
import { CLI_PATH, killAllServers, startServerProcess, within } from './process-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'feedloop-demo-'));
const DAY_MS = 86_400_000;
const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

afterAll(async () => {
  await killAllServers();
  rmSync(dir, { recursive: true, force: true });
});

/** GET with a key, parsed. */
async function get<T>(url: string, key: string): Promise<T> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as T;
}

/** Runs `node dist/cli.js <args>` to its end with `env` on top of a clean one. */
function feedloop(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI_PATH, ...args], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return within(new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr }))), 180_000, `feedloop ${args.join(' ')}`);
}

describe('feedloop demo', () => {
  it('is done only when the pages are full: processed, rescored, rolled up, the drop alert firing', async () => {
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', FEEDLOOP_DATA_DIR: join(dir, 'inproc') });
    // Half the traffic: the drop's last hours then hold enough votes for the rule's minimum sample.
    const { report, server } = await runDemo(config, { seedOnly: false, scale: 0.5 });
    try {
      const backlog = await server.services.db.query<{ n: number }>(
        `SELECT (SELECT count(*) FROM pipeline_pending WHERE workspace_id = $1) + (SELECT count(*) FROM rollup_dirty WHERE workspace_id = $1)
              + (SELECT count(*) FROM score_dirty WHERE workspace_id = $1) AS n`,
        [report.workspaceId],
      );
      expect(Number(backlog[0]?.n)).toBe(0);
      const { url, secretKey: key } = report;
      // The satisfaction alert fires on the last day and a half's drop, without waiting for a tick.
      const { alerts } = await get<{ alerts: Array<{ ruleId: string; state: string }> }>(`${url}/v1/alerts`, key);
      expect(alerts.filter((a) => a.state === 'firing').map((a) => a.ruleId)).toContain('satisfaction-warning');
      // The trend covers the quarter, day by day, from the rollups.
      const now = Date.now();
      const stats = await get<{ total: number; byDay: unknown[] }>(`${url}/v1/stats?from=${utcDay(now - 89 * DAY_MS)}&to=${utcDay(now)}`, key);
      expect(stats.total).toBeGreaterThan(500);
      expect(Object.keys(stats.byDay).length).toBeGreaterThanOrEqual(85);
      const experiment = await get<{ variants: Array<{ variant: string; responses: number }> }>(`${url}/v1/experiments/${DEMO_EXPERIMENT}`, key);
      expect(experiment.variants.map((v) => v.variant).sort()).toEqual(['concise', 'control']);
      expect(experiment.variants.every((v) => v.responses > 0)).toBe(true);
    } finally {
      await server.close();
    }
  }, 300_000);

  it('beside a running feedloop start: finds it with no flags and no key, seeds it through its API; --url with a key; refuses with no credential', async () => {
    const appKey = `fl_sk_${'d'.repeat(43)}`;
    // Rollups every 2 s, so the test need not wait a minute for the seeded days to show.
    const env = { FEEDLOOP_DATA_DIR: join(dir, 'shared'), FEEDLOOP_INIT_WORKSPACE: 'app', FEEDLOOP_INIT_SECRET_KEY: appKey, FEEDLOOP_ROLLUP_INTERVAL_SECONDS: '2' };
    const server = await startServerProcess(env, 120_000);

    // Only the data folder in common with the server (the same PORT is not needed: its lock says
    // where it listens), and no key: the server's local admin credential makes the demo's.
    const found = await feedloop(['demo', '--scale', '0.05', '--json'], { FEEDLOOP_DATA_DIR: env.FEEDLOOP_DATA_DIR });
    expect(found.code, found.stderr).toBe(0);
    const report = JSON.parse(found.stdout) as { url: string; via: string; workspace: string; seeded: boolean; events: number; secretKey: string };
    expect(report).toMatchObject({ url: server.url, via: "the data folder's lock", workspace: 'demo', seeded: true });
    expect(found.stderr).toContain(`feedloop is running at ${server.url} (found through the data folder's lock, process ${server.pid})`);
    expect(found.stderr).toMatch(/processed in [\d.]+ s/);
    expect(found.stderr).not.toMatch(/fl_admin_/);
    expect(server.running()).toBe(true);
    // Done means processed: nothing of the demo's workspace waits in the server's pipeline.
    const pipeline = await get<{ backlog: { pending: number } }>(`${server.url}/v1/pipeline`, report.secretKey);
    expect(pipeline.backlog.pending).toBe(0);
    const counted = await eventsCounted(server.url, report.secretKey, report.events);
    expect(counted).toBe(report.events);

    // The same again finds the demo workspace made: its data is left as it is.
    const again = await feedloop(['demo', '--json'], { FEEDLOOP_DATA_DIR: env.FEEDLOOP_DATA_DIR });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ workspace: 'demo', seeded: false, events: 0 });

    // Elsewhere (another data folder: no lock, no credential), --url and a key seed the workspace of
    // the key; the key given is never printed back.
    const elsewhere = { FEEDLOOP_DATA_DIR: join(dir, 'elsewhere') };
    const flagged = await feedloop(['demo', '--url', server.url, '--scale', '0.05', '--json'], { ...elsewhere, FEEDLOOP_API_KEY: appKey });
    expect(flagged.code, flagged.stderr).toBe(0);
    const flaggedReport = JSON.parse(flagged.stdout) as { via: string; workspace: string; seeded: boolean; secretKey?: string };
    expect(flaggedReport).toMatchObject({ via: '--url', workspace: 'app', seeded: true });
    expect(flaggedReport.secretKey).toBeUndefined();
    expect(flagged.stdout + flagged.stderr).not.toContain(appKey);
    expect(await eventsCounted(server.url, appKey, 1)).toBeGreaterThan(0);

    // FEEDLOOP_URL with no key and no credential: refused, saying what to give; nothing made.
    const refused = await feedloop(['demo'], { ...elsewhere, FEEDLOOP_URL: server.url });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`FEEDLOOP_ERR_AUTH_MISSING_KEY: found feedloop at ${server.url} (through FEEDLOOP_URL) but no key to seed it with.`);
    expect(refused.stderr).toContain('--key fl_sk_… or FEEDLOOP_API_KEY');
    expect(refused.stdout + refused.stderr).not.toMatch(/fl_(sk|admin)_[A-Za-z0-9_-]{8}/);
  }, 300_000);

  it.skipIf(!BACKENDS.find((b) => b.name === 'postgres')?.available)(
    'beside a production-profile server: finds it at HOST:PORT and makes the demo key in its DATABASE_URL',
    async () => {
      const database = `feedloop_demo_${randomBytes(4).toString('hex')}`;
      await withPgClient((c) => c.query(`CREATE DATABASE ${database}`));
      const databaseUrl = new URL(POSTGRES_URL);
      databaseUrl.pathname = `/${database}`;
      // No lock and no credential in this profile: the server's environment is what the demo shares.
      const env = { DATABASE_URL: databaseUrl.href, FEEDLOOP_DATA_DIR: join(dir, 'postgres-profile'), FEEDLOOP_ROLLUP_INTERVAL_SECONDS: '2' };
      const server = await startServerProcess(env, 120_000);
      try {
        const run = await feedloop(['demo', '--scale', '0.05', '--json'], { ...env, HOST: '127.0.0.1', PORT: new URL(server.url).port });
        expect(run.code, run.stderr).toBe(0);
        const report = JSON.parse(run.stdout) as { url: string; via: string; workspace: string; seeded: boolean; events: number; secretKey: string };
        expect(report).toMatchObject({ url: server.url, via: 'HOST and PORT', workspace: 'demo', seeded: true });
        expect(await eventsCounted(server.url, report.secretKey, report.events)).toBe(report.events);
      } finally {
        server.signal('SIGKILL');
        await within(server.exited, 10_000, 'server exit');
        await withPgClient((c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
      }
    },
    300_000,
  );
});

/** Polls the server's `/v1/stats` over the demo's 90 days (and a margin) until it counts at least `atLeast` events (or a minute passes); the last count. */
async function eventsCounted(url: string, key: string, atLeast: number): Promise<number> {
  const until = Date.now() + 60_000;
  let counted = 0;
  while (Date.now() < until) {
    counted = (await get<{ events: number }>(`${url}/v1/stats?from=${utcDay(Date.now() - 100 * DAY_MS)}`, key)).events;
    if (counted >= atLeast) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  return counted;
}
