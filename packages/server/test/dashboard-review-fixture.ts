/**
 * The shared fixture of issue 27's dashboard tests (dashboard-review.test.ts, the reviewing screen;
 * dashboard-review-admin.test.ts, agreement, queue settings and datasets): a real server (PGlite)
 * with a worker, twelve single answers and HH-RLHF's first pairs registered, the built dashboard,
 * Debian's Chromium; and the helpers the tests share. `useReviewDashboard()` opens it around a
 * describe block; `t`, `url` and `browser` are live bindings, set before the first test.
 */
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { readHhRlhf } from '../src/cli/import-hh-rlhf.js';
import { chromiumAvailable, launchBrowser, type TestBrowser } from './browser.js';
import { DATASETS_DIR, datasetsAvailable } from './datasets.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const ROOT = resolve(import.meta.dirname, '../../..');
/** Where the screenshots go. */
export const SHOTS = join(ROOT, 'docs/screenshots');
const pglite = BACKENDS.find((b) => b.name === 'pglite');

/** Whether the fixture can run here (Chromium, PGlite, the datasets). */
export const reviewDashboardAvailable = (): boolean => chromiumAvailable() && pglite !== undefined && datasetsAvailable();

/** Elements of the page's main part that scroll sideways inside themselves (a table cut off). */
const CUT_OFF = `[...document.querySelectorAll('main table, main .table-wrap, main .card, main form')]
  .filter((e) => e.scrollWidth > e.clientWidth + 1)
  .map((e) => (e.getAttribute('aria-label') || e.className || e.tagName) + ': ' + e.scrollWidth + ' > ' + e.clientWidth)`;

/** A reviewing screen as the API gives it. */
export interface Screen { item: { id: string }; order: string[]; reviewer: string; myReview: { label: string | null; body: Record<string, unknown>; firstResponseId: string | null } | null }

/** The server (PGlite, with a worker); set by the fixture's beforeAll. */
export let t: TestApp;
/** Where it listens. */
export let url: string;
/** Debian's Chromium. */
export let browser: TestBrowser;
type Method = 'GET' | 'POST' | 'PATCH';
/** An API call with the secret key that must succeed; its JSON. */
export const call = async (method: Method, path: string, payload?: unknown) => {
  const res = await t.app.inject({ method, url: path, headers: t.auth, ...(payload === undefined ? {} : { payload: payload as object }) });
  expect(res.statusCode, `${method} ${path}: ${res.body}`).toBeLessThan(300);
  return res.json();
};
/** Makes a reviewer key. */
export const reviewer = async (name: string): Promise<{ id: string; key: string }> => call('POST', '/v1/keys', { kind: 'reviewer', name });
/** Makes a review queue. */
export const queue = async (body: Record<string, unknown>): Promise<{ id: string }> => call('POST', '/v1/review-queues', body);
/** A reviewer's stored screen of an item (with their review). */
export const stored = (queueId: string, itemId: string, name: string): Promise<Screen> => call('GET', `/v1/review-queues/${queueId}/items/${itemId}?reviewer=${name}`);
/** The twelve single answers registered. */
export const singles = Array.from({ length: 12 }, (_, i) => ({
  id: `rv-r${i}`,
  query: `How do I rotate credential ${i}?`,
  answer: `Open Settings, choose key ${i}, press Rotate.`,
  agent: i < 8 ? 'support' : 'sql',
  sources: [`https://docs.example.test/keys#${i}`],
  contextDocumentIds: [`doc-keys-${i}`],
}));
/** HH-RLHF pairs registered (chosen and rejected answers of one conversation). */
export const pairs: Array<[string, string]> = [];

/** Opens the fixture before the describe block's tests and closes it after them. */
export function useReviewDashboard(): void {
  beforeAll(async () => {
    t = await startTestApp(await (pglite as NonNullable<typeof pglite>).open(), {}, { worker: true });
    // HH-RLHF's first pairs whose chosen and rejected answers follow the same conversation.
    const hh: Array<{ id: string; query: string; answer: string; agent: string }> = [];
    for await (const record of readHhRlhf(join(DATASETS_DIR, 'hh-rlhf-harmless-test/harmless-base-test.jsonl.gz'))) {
      const r = record.response as { id: string; query: string; answer: string };
      hh.push({ id: r.id, query: r.query, answer: r.answer, agent: 'hh-rlhf' });
      if (hh.length >= 8) break;
    }
    for (let i = 0; i + 1 < hh.length; i += 2) if (hh[i]?.query === hh[i + 1]?.query) pairs.push([hh[i]?.id as string, hh[i + 1]?.id as string]);
    expect(pairs.length).toBeGreaterThanOrEqual(2);
    const registered = await call('POST', '/v1/responses/batch', { responses: [...singles, ...hh] });
    expect(registered.results.every((r: { status: string }) => r.status !== 'rejected')).toBe(true);
    // Feedback so far, for the reviewing screen to show.
    await call('POST', '/v1/feedback', { responseId: 'rv-r0', type: 'thumbs_down', userId: 'u-1', payload: { comment: 'the Rotate button is gone' } });
    await t.services.pipeline.idle(30_000);
    url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
}

/** A new browser session logged in with `key`. */
export const login = async (key: string, width = 1280, height = 900) => {
  const session = await browser.newPage({ viewport: { width, height }, acceptDownloads: true });
  await session.page.goto(`${url}/`);
  await session.page.fill('#key', key);
  await session.page.click('button[type=submit]');
  await session.page.waitForSelector('nav');
  return session;
};
/** Waits for the reviewing screen to show an item other than `previous` (or the end); its id. */
export const shown = async (page: Page, previous = ''): Promise<string> => {
  await page
    .waitForFunction((prev) => {
      const s = document.querySelector('.review-screen');
      return s && (s.getAttribute('data-state') === 'empty' || (s.getAttribute('data-state') === 'item' && s.getAttribute('data-item') !== prev));
    }, previous, { timeout: 10_000 })
    .catch(async (err: unknown) => {
      // Say what the screen says (an error from the API, a status) rather than only "timeout".
      throw new Error(`the reviewing screen did not move on from ${previous || 'nothing'}: ${await page.textContent('.review-screen')}`, { cause: err });
    });
  return (await page.getAttribute('.review-screen', 'data-item')) ?? '';
};
/** Nothing on the page scrolls sideways, neither the page nor a table or card inside it. */
export const noSideways = async (page: Page) => {
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
  expect(await page.evaluate(CUT_OFF)).toEqual([]);
};
