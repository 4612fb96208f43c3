/**
 * Review and judge sources in the browser: the Responses list counts reviewers' and judges'
 * signals apart from the users' (badges), a response's detail marks each review and judge event
 * and counts feedback by source, and the Overview keeps satisfaction the users' with reviews and
 * judges beside it, every figure equal to the API's. A real server (PGlite), the built dashboard,
 * Debian's Chromium; the screenshots go to /tmp/feedloop-sources-*.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollupDirtyDays } from '../src/pipeline/rollup.js';
import { rescoreDirtyResponses } from '../src/pipeline/rescore.js';
import { chromiumAvailable, launchBrowser, type TestBrowser } from './browser.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const pglite = BACKENDS.find((b) => b.name === 'pglite');

describe.skipIf(!chromiumAvailable() || !pglite)('dashboard: review and judge sources', () => {
  let t: TestApp;
  let url: string;
  let browser: TestBrowser;
  const send = (method: 'POST' | 'GET', path: string, payload?: object) => t.app.inject({ method, url: path, headers: t.auth, ...(payload ? { payload } : {}) });

  beforeAll(async () => {
    t = await startTestApp(await (pglite as NonNullable<typeof pglite>).open(), {}, { worker: true });
    expect((await send('POST', '/v1/responses/batch', { responses: [{ id: 'ds-r1', query: 'How do I export?', answer: 'Use the Exports page.' }, { id: 'ds-r2', query: 'Refunds?', answer: 'Within 30 days.' }] })).statusCode).toBe(207);
    const judge = (id: string, responseId: string, type: string) => ({ id, responseId, type, source: 'judge', metadata: { evaluatorId: 'gpt-judge' } });
    const sent = await send('POST', '/v1/feedback/batch', {
      events: [
        { id: 'ds-u1', responseId: 'ds-r1', type: 'thumbs_up', userId: 'ann' },
        { id: 'ds-u2', responseId: 'ds-r2', type: 'thumbs_up', userId: 'bob' },
        { id: 'ds-v1', responseId: 'ds-r1', type: 'review', source: 'review', userId: 'rita', payload: { verdict: 'changes_requested', issues: ['style_issue'] } },
        judge('ds-j1', 'ds-r1', 'thumbs_down'),
        judge('ds-j2', 'ds-r2', 'thumbs_down'),
      ],
    });
    expect(sent.json().results.every((r: { status: string }) => r.status === 'accepted')).toBe(true);
    await t.services.pipeline.idle(20_000);
    await rollupDirtyDays(t.db, { workspaceId: t.workspaceId });
    await rescoreDirtyResponses(t.db);
    url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
  }, 180_000);
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

  it('keeps satisfaction the users’ on the Overview, with reviews and judges beside it', async () => {
    const { page, errors } = await loggedIn();
    await page.goto(`${url}/#/overview`);
    await page.waitForSelector('[aria-label="Reviews and judges"]');
    const from = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
    const stats = (await send('GET', `/v1/stats?from=${from}`)).json();
    expect(stats).toMatchObject({ satisfactionRate: 100, total: 2 });
    const body = (await page.textContent('main')) ?? (await page.textContent('body')) ?? '';
    expect(body).toContain('Satisfaction100.0 %');
    const note = (await page.textContent('[aria-label="Reviews and judges"]')) ?? '';
    expect(stats.bySource).toMatchObject({ judge: { events: 2, negative: 2 }, review: { events: 1 } });
    expect(note).toContain('judge 2 events, 0.0 % positive of 2 rated');
    expect(note).toContain('review 1 event');
    // Today's live counters: five events, the two positives the users'; the judges' negatives are not among them.
    await page.waitForFunction(() => document.body.textContent?.includes('of which 3 from reviewers and judges'));
    expect(body).toMatch(/Positive2/);
    expect(body).toMatch(/Negative0/);
    await page.screenshot({ path: '/tmp/feedloop-sources-overview.png', fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('badges reviews and judges in the list and in a response’s detail, with the API’s counts', async () => {
    const { page, errors } = await loggedIn();
    await page.goto(`${url}/#/responses`);
    await page.waitForSelector('table.responses tbody tr');
    const row = page.locator('table.responses tbody tr', { hasText: 'How do I export?' });
    expect(await row.locator('.tag.source-judge').textContent()).toBe('1 judge');
    expect(await row.locator('.tag.source-review').textContent()).toBe('1 review');
    // The user's thumbs up is the only positive; the judge's thumbs down is no user's negative.
    expect(await row.locator('.tag.thumbs_up').textContent()).toBe('+1');
    expect(await row.locator('.tag.thumbs_down').count()).toBe(0);
    await page.screenshot({ path: '/tmp/feedloop-sources-responses.png', fullPage: true });
    await row.locator('a.open').click();
    await page.waitForSelector('[aria-label="Feedback by source"]');
    const detail = (await send('GET', '/v1/responses/ds-r1')).json();
    expect(detail.feedbackBySource).toEqual({ explicit: 1, judge: 1, review: 1 });
    expect(await page.textContent('[aria-label="Feedback by source"]')).toContain('1 explicit · 1 judge · 1 review');
    expect(await page.locator('ul.feedback .tag.source-judge').textContent()).toBe('judge · gpt-judge');
    expect(await page.locator('ul.feedback .tag.source-review').count()).toBe(1);
    await page.screenshot({ path: '/tmp/feedloop-sources-detail.png', fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });
});
