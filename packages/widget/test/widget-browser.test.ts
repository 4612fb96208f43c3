/// <reference lib="dom" />
/**
 * The widget in real Chromium against a real server (spawned): clicks, keyboard, the thumbs-down
 * comment flow, stars and sliders, copy and edit signals with consent (none without), retry and
 * abandonment; every event checked through the API. Screenshots go to docs/screenshots/.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchBrowser, type TestBrowser } from '../../server/test/browser.js';
import { killAllServers } from '../../server/test/process-helpers.js';
import { SECRET_KEY, startCaptureServer, type CaptureServer } from '../../client/test/capture-server.js';

const SHOTS = fileURLToPath(new URL('../../../docs/screenshots/', import.meta.url));
const auth = { authorization: `Bearer ${SECRET_KEY}`, 'content-type': 'application/json' };

interface Stored {
  id: string;
  type: string;
  userId?: string;
  payload: Record<string, unknown>;
}

describe.skipIf(!chromiumAvailable())('<feedloop-feedback> in Chromium', () => {
  let s: CaptureServer;
  let b: TestBrowser;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${s.url}${path}`, { method, headers: auth, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const newResponse = async (id: string, userId?: string) => {
    expect((await api('POST', '/v1/responses', { id, query: 'What were sales last month?', answer: 'SELECT sum(total) FROM sales' })).status).toBe(201);
    const made = await api('POST', `/v1/responses/${id}/feedback-tokens`, userId ? { userId } : {});
    expect(made.status).toBe(201);
    return made.body.token as string;
  };
  const stored = async (responseId: string): Promise<Stored[]> =>
    ((await api('GET', `/v1/feedback?responseId=${responseId}&limit=100`)).body.data as Stored[]).reverse();
  const waitFor = async (responseId: string, check: (events: Stored[]) => boolean): Promise<Stored[]> => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const events = await stored(responseId);
      if (check(events) || Date.now() > deadline) return events;
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  beforeAll(async () => {
    s = await startCaptureServer();
    b = await launchBrowser();
  }, 250_000);
  afterAll(async () => {
    await b?.close();
    await killAllServers();
    s?.cleanup();
  });

  it('thumbs, the comment flow by keyboard, stars, sliders, copy, edit and retry reach the API', async () => {
    const token = await newResponse('w-1', 'visitor');
    const { page, errors } = await b.newPage({ viewport: { width: 900, height: 720 } });
    await page.goto(`${s.url}/examples/widget?token=${token}`);
    const w = page.locator('feedloop-feedback');
    await w.getByRole('button', { name: 'Thumbs up: helpful' }).waitFor();
    await page.screenshot({ path: `${SHOTS}widget.png` });
    // Icons are inline SVG: no emoji font needed (headless Chromium has none and showed boxes).
    expect(await w.locator('button.up svg, button.down svg').count()).toBe(2);

    await w.getByRole('button', { name: 'Thumbs up: helpful' }).click();
    expect(await w.getByRole('button', { name: 'Thumbs up: helpful' }).getAttribute('aria-pressed')).toBe('true');
    await w.getByRole('status').getByText('Thanks for your feedback!').waitFor();
    expect((await waitFor('w-1', (e) => e.length >= 1)).map((e) => e.type)).toEqual(['thumbs_up']);

    // Keyboard only: Tab from thumbs up to thumbs down, Enter; the form opens on its first category.
    await w.getByRole('button', { name: 'Thumbs up: helpful' }).focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await w.getByRole('group', { name: 'What went wrong?' }).waitFor();
    await page.keyboard.press('Space'); // missing_context
    await w.getByLabel('hallucination').check();
    await w.getByRole('textbox', { name: 'Comment' }).fill('It ignored the date range.');
    await page.screenshot({ path: `${SHOTS}widget-thumbs-down.png` });
    await w.getByRole('textbox', { name: 'Comment' }).focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    let events = await waitFor('w-1', (e) => e.length >= 3);
    expect(events.map((e) => e.type)).toEqual(['thumbs_up', 'thumbs_down', 'error_categories']);
    // The vote went at once, alone; the follow-up is its own event.
    expect(events[1]).toMatchObject({ userId: 'visitor' });
    expect(events[1]?.payload.comment).toBeUndefined();
    expect(events[2]?.payload).toMatchObject({ categories: ['missing_context', 'hallucination'], comment: 'It ignored the date range.' });

    await w.getByRole('radio', { name: '4 stars' }).click();
    await w.getByLabel('accuracy (0-100)').fill('80');
    await w.getByRole('button', { name: 'Send scores' }).click();

    // Copy of the answer, then an edit sent on blur with its original and edited text.
    const answer = page.locator('#answer');
    await answer.focus();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('ControlOrMeta+C');
    await answer.press('End');
    await answer.pressSequentially(" WHERE month = '2026-10'");
    await page.locator('#retry').click(); // blur (the edit), then the retry
    events = await waitFor('w-1', (e) => e.length >= 8);
    const byType = Object.fromEntries(events.map((e) => [e.type, e]));
    expect(events.map((e) => e.type).sort()).toEqual(
      ['thumbs_up', 'thumbs_down', 'error_categories', 'rating', 'quality_scores', 'continue', 'edit', 'retry'].sort(),
    );
    expect(byType.rating?.payload).toEqual({ rating: 4 });
    expect(byType.quality_scores?.payload).toEqual({ accuracy: 80, completeness: 50, styleMatch: 50 });
    expect(byType.continue?.payload).toMatchObject({ action: 'copy' });
    expect(byType.edit?.payload).toMatchObject({ original: 'SELECT sum(total) FROM sales', edited: "SELECT sum(total) FROM sales WHERE month = '2026-10'" });
    expect(byType.retry?.payload).toMatchObject({ rephrasedQuery: 'What were sales in October 2026?' });
    // The edit's distance was measured by the server.
    const full = await api('GET', '/v1/responses/w-1');
    const edit = (full.body.feedback as Array<{ type: string; editDistance?: number | null }>).find((e) => e.type === 'edit');
    expect(edit?.editDistance).toBeGreaterThan(0);
    await page.screenshot({ path: `${SHOTS}widget-after.png` });
    expect(errors).toEqual([]);
  }, 90_000);

  it('stores a thumbs-down at once, with no follow-up, even when the page is closed right after', async () => {
    expect((await api('POST', '/v1/responses', { id: 'w-5', query: 'How many refunds in Q3?', answer: 'SELECT count(*) FROM refunds' })).status).toBe(201);
    const made = await api('POST', '/v1/responses/w-5/feedback-tokens', { userId: 'leaver' });
    const { page, context, errors } = await b.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${s.url}/examples/widget?token=${made.body.token as string}`);
    // The page shows the response the token names, not a made-up one.
    await page.locator('#query').getByText('How many refunds in Q3?').waitFor();
    expect(await page.locator('#answer').inputValue()).toBe('SELECT count(*) FROM refunds');
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await page.screenshot({ path: `${SHOTS}widget-token-response-phone.png` });
    await page.locator('feedloop-feedback').getByRole('button', { name: 'Thumbs down: not helpful' }).click();
    // Leaves at once: no category, no comment, no Send.
    await page.close({ runBeforeUnload: true });
    const events = await waitFor('w-5', (e) => e.length >= 1);
    expect(events.map((e) => [e.type, e.userId])).toEqual([['thumbs_down', 'leaver']]);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('sends no implicit signal without consent, and reports abandonment with it', async () => {
    const token = await newResponse('w-2');
    const { page, errors } = await b.newPage();
    await page.goto(`${s.url}/examples/widget?token=${token}&consent=no`);
    await page.locator('feedloop-feedback').getByRole('button', { name: 'Thumbs up: helpful' }).waitFor();
    await page.locator('#answer').focus();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('ControlOrMeta+C');
    await page.locator('#answer').pressSequentially(' edited');
    await page.locator('#retry').click();
    const hide = () =>
      page.evaluate(() => {
        Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
        document.dispatchEvent(new Event('visibilitychange'));
      });
    await hide();
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await stored('w-2')).toEqual([]);

    const token3 = await newResponse('w-3');
    const second = await b.newPage();
    await second.page.goto(`${s.url}/examples/widget?token=${token3}`);
    await second.page.locator('feedloop-feedback').getByRole('button', { name: 'Thumbs up: helpful' }).waitFor();
    await second.page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    const events = await waitFor('w-3', (e) => e.length >= 1);
    expect(events.map((e) => [e.type, e.payload.stage])).toEqual([['abandon', 'page_hidden']]);
    expect(errors).toEqual([]);
    expect(second.errors).toEqual([]);
  }, 60_000);

  it('keeps events in localStorage while the server is unreachable, and sends them after a reload', async () => {
    const token = await newResponse('w-4');
    const { page, context } = await b.newPage();
    await page.goto(`${s.url}/examples/widget?token=${token}`);
    const w = page.locator('feedloop-feedback');
    await w.getByRole('button', { name: 'Thumbs up: helpful' }).waitFor();
    await context.setOffline(true);
    await w.getByRole('button', { name: 'Thumbs up: helpful' }).click();
    await new Promise((r) => setTimeout(r, 800));
    const saved = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('feedloop:')).map((k) => localStorage.getItem(k)));
    expect(saved.join('')).toContain('thumbs_up');
    expect(await stored('w-4')).toEqual([]);
    await context.setOffline(false);
    await page.reload();
    const events = await waitFor('w-4', (e) => e.length >= 1);
    expect(events.map((e) => e.type)).toEqual(['thumbs_up']);
    // Sent once: the retry after the reload used the same id.
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await stored('w-4')).length).toBe(1);
  }, 60_000);
});
