/**
 * Issue 24 in the browser: the Experiments page says an exact-test verdict where the relative lift
 * is undefined (0 % against 80 %), with the absolute difference, and shows preliminary figures
 * below minSample. A real server (PGlite), the built dashboard, Debian's Chromium.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rescoreDirtyResponses } from '../src/pipeline/rescore.js';
import { chromiumAvailable, launchBrowser, type TestBrowser } from './browser.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const pglite = BACKENDS.find((b) => b.name === 'pglite');

describe.skipIf(!chromiumAvailable() || !pglite)('experiments page: exact verdicts and preliminary figures', () => {
  let t: TestApp;
  let url: string;
  let browser: TestBrowser;

  beforeAll(async () => {
    t = await startTestApp(await (pglite as NonNullable<typeof pglite>).open(), {}, { worker: true });
    const send = (method: 'POST' | 'PUT', path: string, payload: object) => t.app.inject({ method, url: path, headers: t.auth, payload });
    for (const [variant, positive] of [['control', 0], ['B', 16]] as const) {
      const ids = Array.from({ length: 20 }, (_, i) => `x-${variant}-${i}`);
      expect((await send('POST', '/v1/responses/batch', { responses: ids.map((id) => ({ id, query: `q ${id}`, answer: 'a', experimentId: 'exp-zero', variant })) })).statusCode).toBe(207);
      const events = ids.map((id, i) => ({ id: `e-${id}`, responseId: id, type: i < positive ? 'thumbs_up' : 'thumbs_down', userId: `u-${id}` }));
      expect((await send('POST', '/v1/feedback/batch', { events })).statusCode).toBe(207);
    }
    await t.services.pipeline.idle(20_000);
    await rescoreDirtyResponses(t.db);
    url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const verdictText = async (shot: string): Promise<string> => {
    const { page, errors } = await browser.newPage({ viewport: { width: 1280, height: 700 } });
    await page.goto(`${url}/`);
    await page.fill('#key', t.secretKey);
    await page.click('button[type=submit]');
    await page.waitForSelector('nav');
    await page.goto(`${url}/#/experiments`);
    await page.waitForSelector('p.verdict');
    await page.screenshot({ path: shot });
    expect(errors).toEqual([]);
    const text = (await page.textContent('p.verdict')) ?? '';
    await page.close();
    return text;
  };

  it('shows the preliminary difference below minSample, then the exact verdict', async () => {
    const preliminary = await verdictText('/tmp/feedloop-experiments-preliminary.png');
    expect(preliminary).toContain('not enough data');
    expect(preliminary).toContain('Preliminary figures so far (+80.0 points)');
    expect((await t.app.inject({ method: 'PUT', url: '/v1/experiments/exp-zero', headers: t.auth, payload: { minSample: 20 } })).statusCode).toBe(200);
    const decided = await verdictText('/tmp/feedloop-experiments-exact.png');
    expect(decided).toContain('treatment is better');
    expect(decided).toContain('+80.0 points');
    expect(decided).toMatch(/Fisher's exact test gives p = 1\.5e-7/);
  }, 60_000);
});
