/**
 * Times dashboard pages in Debian's Chromium (playwright-core): from navigation start to the last
 * panel drawn, i.e. the first DOM change after which the page has its heading, no loading
 * placeholder (`[aria-busy=true]`) and no API call of its own in flight (the paint follows within a
 * frame); plus the slowest API call of the load from the browser's resource timing (request start
 * to response end).
 *
 * Every context is logged in as the login form does it (the key in sessionStorage) before any of
 * the page's scripts run, and counts its own fetches; a load is a full document load in a new tab,
 * so nothing of the previous load is reused but the context's HTTP cache.
 */
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

/** Debian's Chromium and the project's flags (packages/server/test/browser.ts). */
export const CHROMIUM_PATH = process.env.FEEDLOOP_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];
/** A load slower than this is reported as failed. */
const LOAD_TIMEOUT_MS = Number(process.env.BENCH_DASHBOARD_TIMEOUT_MS ?? 180_000);

/** One page load. */
export interface PageLoad {
  /** Navigation start to the last panel drawn, ms. */
  ms: number;
  /** The slowest API call (path with its query) and its duration, ms. */
  slowest: { path: string; ms: number } | null;
  /** API calls the load made. */
  calls: number;
  /** An error the page showed (an API error in a panel), or a timeout. */
  error: string | null;
}

/** How a page is opened: its hash route, and for the Users page the user id to fill in. */
export interface PageSpec {
  name: string;
  userId?: string;
}

/** Launches Chromium headless. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/**
 * A fresh context (empty HTTP cache) logged in with `key`, at `width` × `height`.
 *
 * @example
 * const ctx = await loggedInContext(browser, 'fl_sk_…', 1280, 900);
 */
export async function loggedInContext(browser: Browser, key: string, width: number, height: number): Promise<BrowserContext> {
  // bypassCSP: playwright polls a condition by evaluating it, which the dashboard's CSP (no
  // 'unsafe-eval') refuses; the e2e test does the same.
  const context = await browser.newContext({ viewport: { width, height }, bypassCSP: true });
  // What the login form does (api.ts saveKey); a count of the page's fetches still in flight; and
  // the time at which the page first has its heading, no placeholder and no fetch in flight,
  // checked at every DOM change (a MutationObserver runs right after the change, before the paint).
  await context.addInitScript(`
    if (location.protocol.startsWith('http')) {
      sessionStorage.setItem('feedloop.key', ${JSON.stringify(key)});
      window.__flInflight = 0;
      window.__flFetches = 0;
      window.__flCheck = () => {
        if (window.__flDone || !document.querySelector('main h1')) return;
        if (window.__flFetches === 0 || window.__flInflight > 0 || document.querySelector('[aria-busy=true]')) return;
        if (window.__flReady && !document.querySelector(window.__flReady)) return;
        window.__flDone = performance.now();
      };
      const fetch0 = window.fetch.bind(window);
      window.fetch = (...args) => {
        window.__flInflight++;
        window.__flFetches++;
        return fetch0(...args).finally(() => { window.__flInflight--; setTimeout(window.__flCheck, 0); });
      };
      new MutationObserver(() => window.__flCheck()).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    }`);
  return context;
}

/** When the page was drawn (see {@link loggedInContext}), once it has been. */
const DRAWN = 'window.__flDone || false';

const API_CALLS = `performance.getEntriesByType('resource')
  .filter((e) => e.initiatorType === 'fetch' && new URL(e.name).pathname.startsWith('/v1/'))
  .map((e) => { const u = new URL(e.name); return { path: u.pathname + u.search, ms: e.responseEnd - e.startTime }; })`;

/** What the page looked like when it was not drawn in time. */
const STATE = `JSON.stringify({ done: window.__flDone, check: typeof window.__flCheck, now: performance.now(), h1: !!document.querySelector('main h1'), fetches: window.__flFetches, inflight: window.__flInflight,
  busy: document.querySelectorAll('[aria-busy=true]').length, text: document.body.innerText.slice(0, 120) })`;

const SHOWN_ERROR = `(() => { const e = document.querySelector('main .error, main [role=alert]'); return e ? e.textContent : null; })()`;

/**
 * Loads one page in `context` and times it.
 *
 * @example
 * const load = await loadPage(ctx, 'http://127.0.0.1:3000', { name: 'overview' });
 */
export async function loadPage(context: BrowserContext, base: string, spec: PageSpec): Promise<PageLoad> {
  const page = await context.newPage();
  try {
    // The time is read in the page (navigation start to drawn): waiting here for the document does not change it.
    await page.goto(`${base}/#/${spec.name}`, { waitUntil: 'domcontentloaded' });
    if (spec.userId !== undefined) {
      // The Users page opens empty; its panels load once a user id is submitted.
      await page.fill('#user', spec.userId, { timeout: LOAD_TIMEOUT_MS });
      await page.evaluate(`window.__flReady = 'section[aria-label="What feedloop holds about this user"]'`);
      await page.click('form.toolbar button[type=submit]');
    }
    let ms: number;
    try {
      ms = Number(await (await page.waitForFunction(DRAWN, undefined, { polling: 50, timeout: LOAD_TIMEOUT_MS })).jsonValue());
    } catch (err) {
      const state = await page.evaluate(STATE).catch((e: unknown) => String(e));
      const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
      return { ms: Number.NaN, slowest: null, calls: 0, error: `not drawn: ${why} (${String(state)})` };
    }
    const calls = (await page.evaluate(API_CALLS)) as Array<{ path: string; ms: number }>;
    const slowest = calls.reduce<{ path: string; ms: number } | null>((a, c) => (a === null || c.ms > a.ms ? c : a), null);
    const error = (await page.evaluate(SHOWN_ERROR)) as string | null;
    return { ms, slowest, calls: calls.length, error };
  } finally {
    await page.close();
  }
}
