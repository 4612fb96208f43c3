/**
 * Issue 26 §1 in the browser: the Overview's score cards agree with `GET /v1/stats?groupBy=score`,
 * the Responses page shows each response's scores and filters by them, a response's detail lists
 * its scores, and Settings adds a score config. A real server (PGlite), the built dashboard,
 * Debian's Chromium; the screenshots go to /tmp/feedloop-scores-*.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollupDirtyDays } from '../src/pipeline/rollup.js';
import { chromiumAvailable, launchBrowser, type TestBrowser } from './browser.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const pglite = BACKENDS.find((b) => b.name === 'pglite');

describe.skipIf(!chromiumAvailable() || !pglite)('dashboard: named scores', () => {
  let t: TestApp;
  let url: string;
  let browser: TestBrowser;
  const send = (method: 'POST' | 'GET', path: string, payload?: object) => t.app.inject({ method, url: path, headers: t.auth, ...(payload ? { payload } : {}) });

  beforeAll(async () => {
    t = await startTestApp(await (pglite as NonNullable<typeof pglite>).open(), {}, { worker: true });
    expect((await send('POST', '/v1/score-configs', { name: 'helpfulness', dataType: 'numeric', min: 0, max: 1 })).statusCode).toBe(201);
    const tone = { name: 'tone', dataType: 'categorical', categories: [{ value: 0, label: 'rude' }, { value: 1, label: 'polite' }] };
    expect((await send('POST', '/v1/score-configs', tone)).statusCode).toBe(201);
    const ids = ['d-r1', 'd-r2', 'd-r3'];
    expect((await send('POST', '/v1/responses/batch', { responses: ids.map((id) => ({ id, query: `How do I ${id}?`, answer: 'Like so.', agent: 'docs' })) })).statusCode).toBe(207);
    const score = (id: string, responseId: string, userId: string, payload: object) => ({ id, responseId, userId, type: 'score', payload });
    const sent = await send('POST', '/v1/feedback/batch', {
      events: [
        score('d-1', 'd-r1', 'u1', { name: 'helpfulness', value: 0.9 }),
        score('d-2', 'd-r1', 'u2', { name: 'helpfulness', value: 0.6 }),
        score('d-3', 'd-r2', 'u1', { name: 'helpfulness', value: 0.3 }),
        score('d-4', 'd-r2', 'u1', { name: 'tone', stringValue: 'rude' }),
        score('d-5', 'd-r3', 'u2', { name: 'tone', stringValue: 'polite' }),
        score('d-6', 'd-r3', 'u3', { name: 'thumbs', value: 1 }),
      ],
    });
    expect(sent.json().results.every((r: { status: string }) => r.status === 'accepted')).toBe(true);
    await t.services.pipeline.idle(20_000);
    await rollupDirtyDays(t.db, { workspaceId: t.workspaceId });
    url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const loggedIn = async () => {
    const session = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await session.page.goto(`${url}/`);
    await session.page.fill('#key', t.secretKey);
    await session.page.click('button[type=submit]');
    await session.page.waitForSelector('nav');
    return session;
  };

  it('shows score cards on the Overview with the numbers of GET /v1/stats?groupBy=score', async () => {
    const { page, errors } = await loggedIn();
    await page.goto(`${url}/#/overview`);
    await page.waitForSelector('[aria-label="Score cards"]');
    const from = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
    const api = (await send('GET', `/v1/stats?groupBy=score&from=${from}`)).json().scores as Array<{ name: string; count: number; mean: number; interval: { lower: number; upper: number } | null }>;
    const text = (await page.textContent('[aria-label="Score cards"]')) ?? '';
    const help = api.find((s) => s.name === 'helpfulness');
    expect(help).toMatchObject({ count: 3, mean: 0.6 });
    // The figure is the mean alone (the interval, clamped to the config's range, is not symmetric).
    expect(text).toContain(`${help?.mean.toFixed(2)}${help?.count} scores`);
    expect(text).toContain(`95 % interval ${help?.interval?.lower.toFixed(2)}–${help?.interval?.upper.toFixed(2)}`);
    expect(text).toContain('3 scores');
    expect(text).toContain('polite 1, rude 1');
    // One rated day has no neighbour to draw a line to: the satisfaction chart shows it as dots (daily, rolling).
    expect(await page.locator('svg.chart circle').count()).toBeGreaterThanOrEqual(1);
    await page.locator('[aria-label="Score cards"]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: '/tmp/feedloop-scores-overview.png', fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows and filters by scores on the Responses page, and lists them in a response\'s detail', async () => {
    const { page, errors } = await loggedIn();
    await page.goto(`${url}/#/responses`);
    await page.waitForSelector('table.responses tbody tr');
    expect(await page.locator('table.responses tbody tr').count()).toBe(3);
    expect(await page.textContent('table.responses')).toContain('helpfulness 0.75');
    await page.selectOption('select[name=scoreName]', 'helpfulness');
    await page.fill('input[name=scoreMin]', '0.5');
    await page.click('form[aria-label=Filters] button[type=submit]');
    await page.waitForFunction(() => document.querySelectorAll('table.responses tbody tr').length === 1);
    expect(page.url()).toContain('scoreName=helpfulness');
    expect(await page.textContent('table.responses tbody')).toContain('d-r1');
    await page.screenshot({ path: '/tmp/feedloop-scores-responses.png', fullPage: true });
    await page.click('table.responses a.open');
    await page.waitForSelector('[aria-label=Scores]');
    const scores = (await page.textContent('[aria-label=Scores]')) ?? '';
    expect(scores).toContain('helpfulness');
    expect(scores).toContain('0.9');
    expect(scores).toContain('0.6');
    await page.screenshot({ path: '/tmp/feedloop-scores-detail.png', fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('adds a score config and changes a weight from Settings', async () => {
    const { page, errors } = await loggedIn();
    await page.goto(`${url}/#/settings`);
    await page.waitForSelector('table.score-configs');
    expect(await page.textContent('table.score-configs')).toContain('user_score');
    const form = page.locator('form[aria-label="New score config"]');
    await form.locator('input[name=name]').fill('groundedness');
    await form.locator('input[name=min]').fill('0');
    await form.locator('input[name=max]').fill('5');
    await form.locator('button[type=submit]').click();
    await page.waitForSelector('text=Added groundedness.');
    const made = (await send('GET', '/v1/score-configs')).json().configs.find((c: { name: string }) => c.name === 'groundedness');
    expect(made).toMatchObject({ dataType: 'numeric', min: 0, max: 5, mapsTo: 'none', weight: 0 });
    await page.fill('input[aria-label="Weight of helpfulness"]', '2');
    await page.click('table.score-configs button:has-text("Save")');
    await page.waitForSelector('text=Saved the weight of helpfulness.');
    expect((await send('GET', '/v1/score-configs')).json().configs.find((c: { name: string }) => c.name === 'helpfulness').weight).toBe(2);
    await page.locator('table.score-configs').scrollIntoViewIfNeeded();
    await page.screenshot({ path: '/tmp/feedloop-scores-settings.png', fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });
});
