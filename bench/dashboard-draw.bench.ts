/**
 * Dashboard draw time in Debian's Chromium (packages/server/test/browser.ts): `feedloop demo`'s
 * data (`DRAW_SCALE`, default 0.2 of its traffic; 1 is the full demo) on an embedded server, then
 * for each page of `DRAW_PAGES` (default responses,overview) `DRAW_RELOADS` (default 5) reloads at
 * 1280 px and at 390 px, alternating which width goes first so neither always meets the warmer
 * server. A figure is navigation start to the moment no panel is loading (`aria-busy`), in the
 * page's own clock; beside it, when the page's API requests started and how long they took, so a
 * slow draw can be told from a slow server. The 1280 px median is the baseline of the 390 px one.
 * `DRAW_SCALE=1 node --import tsx bench/dashboard-draw.bench.ts`
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runDemo } from '../packages/server/src/cli/demo-command.js';
import { loadConfig } from '../packages/server/src/config.js';
import { launchBrowser, type TestBrowser } from '../packages/server/test/browser.js';
import { dec, isMain } from './bench-server.js';

const WIDTHS = [
  [1280, 900, '1280 px'],
  [390, 844, '390 px'],
] as const;

interface Draw {
  drawn: number;
  /** `/v1/...` requests: path, start and duration (ms). */
  api: Array<{ path: string; start: number; duration: number }>;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** Reloads `#/<name>` and waits until no panel is loading. */
async function drawOnce(session: Awaited<ReturnType<TestBrowser['newPage']>>, url: string, name: string): Promise<Draw> {
  const { page } = session;
  await page.goto(`${url}/#/${name}`);
  // A hash change is not a navigation: reload so the clock starts at this page's load.
  await page.reload();
  await page.waitForSelector('main h1');
  await page.waitForFunction("document.querySelectorAll('[aria-busy=true]').length === 0", undefined, { timeout: 60_000, polling: 'raf' });
  return page.evaluate(() => ({
    drawn: performance.now(),
    api: performance
      .getEntriesByType('resource')
      .filter((e) => e.name.includes('/v1/'))
      .map((e) => ({ path: new URL(e.name).pathname, start: e.startTime, duration: e.duration })),
  }));
}

/** Seeds the demo, measures, prints one line per page and width. */
export async function runDashboardDrawBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'feedloop-draw-'));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', FEEDLOOP_DATA_DIR: dir, FEEDLOOP_INIT_WORKSPACE: 'default' });
  const t0 = performance.now();
  const demo = await runDemo(config, { seedOnly: false, scale: Number(process.env.DRAW_SCALE ?? 0.2) });
  console.log(`demo seeded in ${dec((performance.now() - t0) / 1000, 0)} s`);
  const browser = await launchBrowser();
  try {
    const { url, secretKey } = demo.report;
    const sessions = [];
    for (const [width, height] of WIDTHS) {
      // bypassCSP: waitForFunction evaluates a string, which the dashboard's CSP forbids.
      const s = await browser.newPage({ viewport: { width, height }, bypassCSP: true });
      await s.page.goto(`${url}/`);
      await s.page.fill('#key', secretKey);
      await s.page.click('button[type=submit]');
      await s.page.waitForSelector('nav');
      sessions.push(s);
    }
    const reloads = Number(process.env.DRAW_RELOADS ?? 5);
    for (const name of (process.env.DRAW_PAGES ?? 'responses,overview').split(',')) {
      const draws: Draw[][] = WIDTHS.map(() => []);
      for (let i = 0; i < reloads; i++) {
        const order = i % 2 === 0 ? [0, 1] : [1, 0];
        for (const w of order) draws[w]!.push(await drawOnce(sessions[w]!, url, name));
      }
      const base = median(draws[0]!.map((d) => d.drawn));
      WIDTHS.forEach(([, , label], w) => {
        const mine = draws[w]!;
        const drawn = median(mine.map((d) => d.drawn));
        const apiEnd = median(mine.map((d) => Math.max(0, ...d.api.map((a) => a.start + a.duration))));
        const apiTime = median(mine.map((d) => d.api.reduce((sum, a) => sum + a.duration, 0)));
        console.log(
          `  ${name.padEnd(12)} ${label.padEnd(8)} drawn ${dec(drawn, 0).padStart(5)} ms (${mine.map((d) => dec(d.drawn, 0)).join(', ')})  ` +
            `last API answer at ${dec(apiEnd, 0)} ms, API time ${dec(apiTime, 0)} ms  ratio to 1280 px ${dec(drawn / base, 2)}`,
        );
      });
    }
  } finally {
    await browser.close();
    await demo.server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) await runDashboardDrawBench();
