/**
 * Dashboard load benchmark (issue 14: every page "loads in < 1 s on a workspace with 10 M
 * events"). Seeds ONE workspace with BENCH_DASHBOARD_EVENTS events (default 1,000,000; the issue's
 * figure is 10,000,000) over 90 days into a fresh Postgres database (bench/dashboard-seed.ts),
 * starts the real server on it (`start --api-only`, production profile: Postgres and Redis, no
 * worker, so nothing runs beside the requests) serving the built dashboard, and times every page
 * in Debian's Chromium at 1280 px and 390 px: navigation start to the last panel drawn, the first
 * (cold) load in a fresh browser context, then the median of BENCH_DASHBOARD_RUNS (5) more, with
 * the slowest API call of each load (bench/dashboard-browser.ts). Baseline, same run, same server,
 * same browser: the same page on an EMPTY workspace; the ratio is what the data costs.
 *
 * Run: npm run build && node --import tsx bench/dashboard-load.bench.ts
 * Knobs: BENCH_DASHBOARD_EVENTS, BENCH_DASHBOARD_RUNS, BENCH_DASHBOARD_KEEP=1 (keep the seeded
 * database and print its URL), BENCH_DASHBOARD_DATABASE_URL (measure a database seeded and kept
 * by an earlier run instead of seeding; its dates stay those of the day it was seeded),
 * BENCH_DASHBOARD_PAGES=overview,users (some pages only), BENCH_DATABASE_URL, BENCH_REDIS_URL.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { liveCounterFields, ratedCounterFields, utcDay, type FeedbackEventType, type Polarity, type Severity } from '../packages/core/src/index.js';
import { openPostgres } from '../packages/server/src/db/postgres-client.js';
import { RedisLiveCounters } from '../packages/server/src/pipeline/live-counter-store.js';
import { createApiKey } from '../packages/server/src/store/api-keys.js';
import { createFreshDatabase, withClient, type FreshDatabase } from './bench-database.js';
import { BENCH_REDIS_URL, envInt, int, isMain, ROOT, startFeedloop, token, type BenchResult, type ChildServer } from './bench-server.js';
import { CHROMIUM_PATH, launchChromium, loadPage, loggedInContext, type PageLoad, type PageSpec } from './dashboard-browser.js';
import { BENCH_USER, seedDashboardWorkspace, SEEDED_WORKSPACE } from './dashboard-seed.js';

const PAGES: PageSpec[] = [
  { name: 'overview' },
  { name: 'responses' },
  { name: 'alerts' },
  { name: 'experiments' },
  { name: 'insights' },
  { name: 'documents' },
  { name: 'users', userId: BENCH_USER },
  { name: 'exports' },
  { name: 'settings' },
];
const WIDTHS: Array<[number, number]> = [
  [1280, 900],
  [390, 844],
];
const TARGET_MS = 1_000;

const load = (): string => loadavg().map((x) => x.toFixed(2)).join(', ');
const median = (xs: readonly number[]): number => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? Number.NaN) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};
const ms = (x: number): string => (Number.isFinite(x) ? `${int(x)} ms` : 'failed');

/** One page at one width on one workspace: the cold load and the warm ones. */
interface Measured {
  cold: PageLoad;
  warm: PageLoad[];
}

/** The figures of a measured page: median, and the slowest API call (median of the loads' slowest, and the call most often slowest). */
function summary(m: Measured): { median: number; cold: number; api: number; apiPath: string; errors: string[] } {
  const loads = [m.cold, ...m.warm];
  const paths = new Map<string, number>();
  for (const l of m.warm) if (l.slowest) paths.set(l.slowest.path, (paths.get(l.slowest.path) ?? 0) + 1);
  const apiPath = [...paths].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '-';
  return {
    median: median(m.warm.map((l) => l.ms)),
    cold: m.cold.ms,
    api: median(m.warm.map((l) => l.slowest?.ms ?? Number.NaN)),
    apiPath,
    errors: [...new Set(loads.map((l) => l.error).filter((e): e is string => e !== null))],
  };
}

/** Writes today's live counters of the seeded workspace to Redis under the server's prefix, as the pipeline would have. */
async function seedLiveCounters(url: string, workspaceId: string, prefix: string): Promise<void> {
  const today = utcDay(new Date());
  const rows = await withClient(url, (c) =>
    c.query<{ type: FeedbackEventType; polarity: Polarity; severity: Severity; n: number }>(
      `SELECT type, polarity, severity, count(*)::int AS n FROM feedback_signals
        WHERE workspace_id = $1 AND status = 'counted' AND occurred_at >= $2::date::timestamp AT TIME ZONE 'UTC' GROUP BY 1, 2, 3`,
      [workspaceId, today],
    ),
  );
  const fields: Record<string, number> = {};
  for (const r of rows.rows) {
    for (const f of [...liveCounterFields({ type: r.type, polarity: r.polarity, severity: r.severity, status: 'counted' }), ...ratedCounterFields(r.type, r.polarity)]) {
      fields[f] = (fields[f] ?? 0) + r.n;
    }
  }
  const counters = new RedisLiveCounters(BENCH_REDIS_URL, prefix);
  try {
    await counters.applyOnce(`bench-${token()}`, { [workspaceId]: { [today]: fields } });
  } finally {
    await counters.close();
  }
}

/** The seeded workspace of a database and its event count. */
async function seededWorkspace(url: string): Promise<{ id: string; events: number }> {
  return withClient(url, async (c) => {
    const ws = await c.query<{ id: string }>('SELECT id FROM workspaces WHERE name = $1', [SEEDED_WORKSPACE]);
    const id = ws.rows[0]?.id;
    if (id === undefined) throw new Error(`no workspace ${SEEDED_WORKSPACE} in ${url}: not a database seeded by this benchmark`);
    const n = await c.query<{ n: string }>('SELECT count(*) AS n FROM feedback_event_ids WHERE workspace_id = $1', [id]);
    return { id, events: Number(n.rows[0]?.n ?? 0) };
  });
}

/** Runs the dashboard load benchmark. */
export async function runDashboardLoadBench(): Promise<BenchResult[]> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`Chromium is not at ${CHROMIUM_PATH} (apt-get install -y chromium)`);
  if (!existsSync(join(ROOT, 'packages/dashboard/dist/index.html'))) execFileSync('npm', ['run', 'build', '-w', '@feedloop/dashboard'], { cwd: ROOT, stdio: 'inherit' });
  const runs = envInt('BENCH_DASHBOARD_RUNS', 5);
  const only = process.env.BENCH_DASHBOARD_PAGES?.split(',').map((p) => p.trim());
  const pages = PAGES.filter((p) => !only || only.includes(p.name));
  const reuse = process.env.BENCH_DASHBOARD_DATABASE_URL?.trim();
  const keep = process.env.BENCH_DASHBOARD_KEEP === '1';
  let fresh: FreshDatabase | undefined;
  let url: string;
  let seeded: { id: string; events: number };
  if (reuse) {
    url = reuse;
    seeded = await seededWorkspace(url);
    console.log(`dashboard: measuring the kept database ${url} (${int(seeded.events)} events)`);
  } else {
    const events = envInt('BENCH_DASHBOARD_EVENTS', 1_000_000);
    fresh = await createFreshDatabase();
    url = fresh.url;
    console.log(`dashboard: seeding ${int(events)} events into ${fresh.name} (load average ${load()})`);
    const t0 = performance.now();
    const report = await seedDashboardWorkspace(url, events, console.log);
    const total = (performance.now() - t0) / 1000;
    console.log(
      `dashboard: seeded ${int(report.events)} events on ${int(report.responses)} responses of ${int(report.users)} users in ${(total / 60).toFixed(1)} min ` +
        `(rollups ${(report.seconds.rollups ?? 0).toFixed(0)} s; load average ${load()})`,
    );
    seeded = { id: report.workspaceId, events: report.events };
  }
  const size = await withClient(url, (c) => c.query<{ size: string }>('SELECT pg_size_pretty(pg_database_size(current_database())) AS size'));
  console.log(`dashboard: database size ${size.rows[0]?.size ?? '?'}`);

  let server: ChildServer | undefined;
  const results: BenchResult[] = [];
  try {
    const db = await openPostgres(url, { max: 1 });
    const seededKey = (await createApiKey(db, seeded.id, 'secret', { name: 'dashboard benchmark' })).key;
    await db.close();
    const emptyKey = `fl_sk_bench_${token(16)}`;
    const redisPrefix = `flbench-${token()}`;
    await seedLiveCounters(url, seeded.id, redisPrefix);
    // The server's own init workspace ('bench') is the empty one: same server, same database.
    server = await startFeedloop({ databaseUrl: url, secretKey: emptyKey, redisPrefix });
    const base = server.url;
    const browser = await launchChromium();
    try {
      // The real login form once, so the seeded key is known to work as a user would use it.
      const check = await browser.newContext();
      const login = await check.newPage();
      await login.goto(`${base}/`);
      await login.fill('#key', seededKey);
      await login.click('button[type=submit]');
      await login.waitForSelector('nav', { timeout: 60_000 });
      await check.close();

      const labels = { seeded: `${int(seeded.events)} events`, empty: 'empty' } as const;
      const measured = new Map<string, Measured>();
      console.log(`dashboard: measuring ${pages.length} pages × ${WIDTHS.length} widths × 2 workspaces, 1 cold + ${runs} loads each (load average ${load()})`);
      for (const [width, height] of WIDTHS) {
        for (const spec of pages) {
          // The empty workspace first, then the seeded one, page by page: both under the same load.
          for (const [which, key] of [['empty', emptyKey], ['seeded', seededKey]] as const) {
            const context: BrowserContext = await loggedInContext(browser, key, width, height);
            try {
              const cold = await loadPage(context, base, spec);
              const warm: PageLoad[] = [];
              for (let i = 0; i < runs; i++) warm.push(await loadPage(context, base, spec));
              measured.set(`${which}/${width}/${spec.name}`, { cold, warm });
              const s = summary({ cold, warm });
              console.log(
                `  ${spec.name.padEnd(11)} ${String(width).padStart(4)} px  ${labels[which].padEnd(18)} cold ${ms(s.cold).padStart(9)}  median ${ms(s.median).padStart(9)}` +
                  `  slowest API ${ms(s.api).padStart(9)} ${s.apiPath}${s.errors.length ? `  ERRORS: ${s.errors.join('; ')}` : ''}`,
              );
            } finally {
              await context.close();
            }
          }
        }
      }
      console.log(`dashboard: measured (load average ${load()})\n`);

      const head = ['page', 'width', `${labels.seeded}: cold`, 'median', 'empty: median', 'ratio', `slowest API (${labels.seeded}, median)`, '< 1 s'];
      const rows: string[][] = [];
      for (const spec of pages) {
        for (const [width] of WIDTHS) {
          const big = measured.get(`seeded/${width}/${spec.name}`);
          const none = measured.get(`empty/${width}/${spec.name}`);
          if (!big || !none) continue;
          const s = summary(big);
          const e = summary(none);
          const ratio = s.median / e.median;
          const met = Number.isFinite(s.median) && s.median < TARGET_MS && s.errors.length === 0;
          rows.push([spec.name, `${width} px`, ms(s.cold), ms(s.median), ms(e.median), Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : '-', `${ms(s.api)} ${s.apiPath}`, met ? 'yes' : 'NO']);
          results.push({
            name: `dashboard ${spec.name} ${width} px (${labels.seeded})`,
            value: s.median,
            unit: 'ms median load',
            baseline: e.median,
            baselineLabel: 'ms empty workspace',
            ratio,
            target: `< ${int(TARGET_MS)} ms`,
            met,
          });
        }
      }
      const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
      const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ').trimEnd();
      console.log(line(head));
      console.log(widths.map((w) => '-'.repeat(w)).join('-+-'));
      for (const r of rows) console.log(line(r));
      const missed = results.filter((r) => !r.met).map((r) => r.name);
      console.log(missed.length === 0 ? `\nevery page loads in < 1 s at ${labels.seeded}` : `\nmissing < 1 s at ${labels.seeded}: ${missed.join(', ')}`);
    } finally {
      await browser.close();
    }
  } finally {
    await server?.stop();
    if (fresh && keep) console.log(`dashboard: kept the seeded database: BENCH_DASHBOARD_DATABASE_URL=${fresh.url}`);
    else await fresh?.drop();
  }
  return results;
}

if (isMain(import.meta.url)) {
  const { printTable } = await import('./bench-server.js');
  printTable(await runDashboardLoadBench());
  process.exit(0);
}
