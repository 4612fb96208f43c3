/**
 * `feedloop demo`: what its pages read once it says it is done (every event processed, rescored
 * and rolled up, the planted drop's alert firing, the experiment counted), and the demo beside a
 * running `feedloop start` on the same data folder, both as real processes: the plain demo refuses
 * with the commands to use, and `--url/--key` seeds the running server through its API.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runDemo } from '../src/cli/demo-command.js';
import { DEMO_EXPERIMENT } from '../src/cli/demo-data.js';
import { loadConfig } from '../src/config.js';
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

  it('beside a running feedloop start on its folder: refuses, naming the commands; seeds it through --url/--key', async () => {
    const secretKey = `fl_sk_${'d'.repeat(43)}`;
    // Rollups every 2 s, so the test need not wait a minute for the seeded days to show.
    const env = { FEEDLOOP_DATA_DIR: join(dir, 'shared'), FEEDLOOP_INIT_WORKSPACE: 'app', FEEDLOOP_INIT_SECRET_KEY: secretKey, FEEDLOOP_ROLLUP_INTERVAL_SECONDS: '2' };
    const server = await startServerProcess(env, 120_000);
    const port = new URL(server.url).port;

    const refused = await feedloop(['demo', '--seed-only'], { ...env, PORT: port });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`FEEDLOOP_ERR_DATA_DIR_LOCKED: the data folder ${env.FEEDLOOP_DATA_DIR} is in use by feedloop process ${server.pid}`);
    expect(refused.stderr).toContain('npx --no-install feedloop demo\n');
    expect(refused.stderr).toContain(`npx --no-install feedloop demo --url ${server.url} --key <a secret key of that workspace>`);
    expect(server.running()).toBe(true);

    // The workspace requires consent to implicit signals (a new one's default): the demo records
    // its users' consent first, or their edits and retries would be refused.
    const seeded = await feedloop(['demo', '--url', server.url, '--key', secretKey, '--scale', '0.05', '--json'], {});
    expect(seeded.code, seeded.stderr).toBe(0);
    const report = JSON.parse(seeded.stdout) as { workspace: string; responses: number; events: number };
    expect(report).toMatchObject({ workspace: 'app' });
    expect(report.events).toBeGreaterThan(100);
    // The running server's pipeline processes what came through its API.
    const until = Date.now() + 60_000;
    let counted = 0;
    while (Date.now() < until) {
      counted = (await get<{ events: number }>(`${server.url}/v1/stats?from=${utcDay(Date.now() - 89 * DAY_MS)}`, secretKey)).events;
      if (counted > 0) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(counted).toBeGreaterThan(0);
  }, 300_000);
});
