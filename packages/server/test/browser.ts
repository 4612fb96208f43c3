/**
 * Test helper: a real headless Chromium (Debian's `/usr/bin/chromium`) driven by playwright-core,
 * for the parts of feedloop that run in a browser (the widget, the dashboard, the client SDK).
 *
 * With CI=true a missing Chromium is a failure; elsewhere the caller skips with a loud warning
 * (`apt-get install chromium` brings it). Console errors and page errors are collected so a test
 * can assert a page loaded cleanly.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Where Debian's package puts Chromium. */
export const CHROMIUM_PATH = process.env.FEEDLOOP_CHROMIUM ?? '/usr/bin/chromium';

/**
 * The flags every browser test uses: headless, no sandbox (tests run as root), no GPU, and no
 * background networking (this machine's closed network refuses Chromium's own connections).
 */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

/**
 * Whether Chromium is installed; in CI its absence throws (the suite fails), elsewhere it warns
 * loudly so the caller can skip.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  const why = `Chromium is not at ${CHROMIUM_PATH} (apt-get install chromium)`;
  if (process.env.CI === 'true') throw new Error(`${why}: required in CI`);
  console.warn(`\n*** SKIPPING BROWSER TESTS: ${why}. ***\n`);
  return false;
}

/** A launched browser (playwright gives each launch a fresh, empty profile folder of its own). */
export interface TestBrowser {
  browser: Browser;
  /** A new isolated context (cookies, storage) with a page that records console and page errors. */
  newPage(options?: Parameters<Browser['newContext']>[0]): Promise<{ context: BrowserContext; page: Page; errors: string[] }>;
  close(): Promise<void>;
}

/**
 * Launches Debian's Chromium headless with the project's flags.
 *
 * @example
 * const b = await launchBrowser();
 * const { page, errors } = await b.newPage();
 * await page.goto(`${base}/examples/widget`);
 * expect(errors).toEqual([]);
 * await b.close();
 */
export async function launchBrowser(): Promise<TestBrowser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  return {
    browser,
    async newPage(options) {
      const context = await browser.newContext(options);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(e.message));
      return { context, page, errors };
    },
    async close() {
      await browser.close();
    },
  };
}
