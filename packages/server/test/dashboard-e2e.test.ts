/**
 * The dashboard end to end: a real server (embedded database) seeded by `feedloop demo`'s code
 * (a fifth of its traffic, to keep the test short), the built dashboard, and Debian's Chromium.
 * Every page loads without console errors, and on a phone (390 px) nothing is wider than the
 * screen and no table is cut off; filters offer the workspace's own values and change the response
 * list; a response's detail loads from its own URL; the Users list searches and a consent switch
 * persists; Exports says what it leaves out as `?validate=true` does; an alert rule edit is saved;
 * an export downloads. Screenshots of each page at 1280 px and 390 px go to docs/screenshots/.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemo } from '../src/cli/demo-command.js';
import { loadConfig } from '../src/config.js';
import { evaluateAlertTick } from '../src/pipeline/alert-evaluation.js';
import { createApiKey } from '../src/store/api-keys.js';
import { createWorkspace } from '../src/store/workspaces.js';
import type { RunningServer } from '../src/server.js';
import { chromiumAvailable, launchBrowser, type TestBrowser } from './browser.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const SHOTS = join(ROOT, 'docs/screenshots');
const PAGES = ['overview', 'responses', 'alerts', 'experiments', 'insights', 'documents', 'users', 'review', 'datasets', 'judges', 'exports', 'settings'];
const hasChromium = chromiumAvailable();

/** Elements of the page's main part that scroll sideways inside themselves (a table cut off). */
const CUT_OFF = `[...document.querySelectorAll('main table, main .table-wrap, main .card, main form')]
  .filter((e) => e.scrollWidth > e.clientWidth + 1)
  .map((e) => (e.getAttribute('aria-label') || e.className || e.tagName) + ': ' + e.scrollWidth + ' > ' + e.clientWidth)`;

describe.skipIf(!hasChromium)('dashboard end to end', () => {
  let server: RunningServer;
  let url: string;
  let key: string;
  let browser: TestBrowser;
  const dir = mkdtempSync(join(tmpdir(), 'feedloop-dash-'));

  beforeAll(async () => {
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', FEEDLOOP_DATA_DIR: dir, FEEDLOOP_INIT_WORKSPACE: 'default' });
    const demo = await runDemo(config, { seedOnly: false, scale: 0.2 });
    server = demo.server;
    url = demo.report.url;
    key = demo.report.secretKey;
    browser = await launchBrowser();
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function loggedIn(width: number, height: number) {
    const session = await browser.newPage({ viewport: { width, height }, acceptDownloads: true, bypassCSP: true });
    await session.page.goto(`${url}/`);
    await session.page.fill('#key', key);
    await session.page.click('button[type=submit]');
    await session.page.waitForSelector('nav');
    return session;
  }

  it('serves the page with no key in it, and refuses a wrong key', async () => {
    const res = await fetch(`${url}/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<div id="app">');
    const { page, errors } = await browser.newPage();
    await page.goto(`${url}/`);
    await page.fill('#key', 'fl_sk_wrong');
    await page.click('button[type=submit]');
    await page.waitForSelector('[role=alert]');
    expect(await page.textContent('[role=alert]')).toMatch(/unknown or revoked/);
    expect(page.url()).not.toContain('fl_sk');
    // The failed login's 401 is the only console error.
    expect(errors.every((e) => e.includes('401'))).toBe(true);
  });

  // First, so every page's screenshot shows the same alerts firing as the Overview's.
  it('shows the firing alerts first, live figures that agree with the chart, and a trend that names the drop', async () => {
    const auth = { authorization: `Bearer ${key}` };
    // A fifth of the demo's traffic is below the default rules' 30 ratings a day: judge the
    // satisfaction warning on 10, the other default rules as they are (the pages show them all).
    const defaults = (await (await fetch(`${url}/v1/alert-rules`, { headers: auth })).json()) as { rules: Array<Record<string, unknown>> };
    const fields = ['id', 'kind', 'severity', 'threshold', 'windowHours', 'minSample', 'forSeconds', 'enabled', 'hysteresis', 'baselineDays', 'minCount', 'maxPValue'];
    const rules: Array<Record<string, unknown>> = defaults.rules.map((r) => ({ ...Object.fromEntries(fields.filter((f) => r[f] !== undefined).map((f) => [f, r[f]])), ...(r.id === 'satisfaction-warning' ? { threshold: 70, minSample: 10 } : {}) }));
    expect(rules.some((r) => r.id === 'satisfaction-warning')).toBe(true);
    const put = await fetch(`${url}/v1/alert-rules`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ rules }),
    });
    expect(put.status).toBe(200);
    await evaluateAlertTick(server.services.db, { intervalMs: 1 });
    const { page, errors, context } = await loggedIn(1280, 900);
    await page.goto(`${url}/#/overview`);
    await page.waitForSelector('text=Satisfaction by day');
    await page.waitForFunction("document.querySelectorAll('[aria-busy=true]').length === 0", undefined, { timeout: 20_000 });
    const firing = (await (await fetch(`${url}/v1/alerts?state=firing`, { headers: auth })).json()) as { alerts: Array<{ message: string }> };
    expect(firing.alerts.length).toBeGreaterThan(0);
    await page.waitForSelector('.firing li');
    expect(await page.locator('.firing li').count()).toBe(firing.alerts.length);
    // The firing panel comes before every card.
    const order = await page.evaluate(() => {
      const f = document.querySelector('.firing');
      const c = document.querySelector('.card');
      return f && c ? f.compareDocumentPosition(c) & Node.DOCUMENT_POSITION_FOLLOWING : 0;
    });
    expect(order).toBeTruthy();
    // Live counters by each event's own day: today's live positives are today's, not the 90 days'.
    // Today and yesterday (today may be minutes old): each day's live counts are that day's events.
    for (const ago of [0, 1]) {
      const day = new Date(Date.now() - ago * 86_400_000).toISOString().slice(0, 10);
      const stats = (await (await fetch(`${url}/v1/stats?from=${day}&to=${day}`, { headers: auth })).json()) as { total: number; events: number };
      const live = (await (await fetch(`${url}/v1/stats/live?day=${day}`, { headers: auth })).json()) as { total: number; dropped: number; byType: Record<string, number> };
      const liveRatings = ['thumbs_up', 'thumbs_down', 'rating'].reduce((n, t) => n + (live.byType[t] ?? 0), 0);
      expect(liveRatings, day).toBeGreaterThanOrEqual(stats.total);
      expect(live.total - live.dropped, day).toBeLessThanOrEqual(stats.events + 5);
      if (ago === 1) expect(stats.total).toBeGreaterThan(0);
    }
    const text = (await page.textContent('main')) ?? '';
    expect(text).toContain('UTC day each event occurred');
    expect(text).toMatch(/sharp drop: \d+(\.\d)? % over the last [23] days/);
    expect(text).toMatch(/Time to feedback[\s\S]*?\d+(\.\d)? (ms|s|min|h|d)/);
    expect(text).not.toMatch(/\d\.\d{5,}/);
    await page.screenshot({ path: join(SHOTS, 'overview-1280.png'), fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  });

  for (const [width, height, tag] of [[1280, 900, '1280'], [390, 844, 'phone']] as const) {
    it(`loads every page without console errors at ${tag}`, async () => {
      const { page, errors, context } = await loggedIn(width, height);
      const overflow: string[] = [];
      for (const name of PAGES) {
        await page.goto(`${url}/#/${name}`);
        await page.waitForSelector('main h1');
        await page.waitForFunction("document.querySelectorAll('[aria-busy=true]').length === 0", undefined, { timeout: 20_000 });
        await page.waitForTimeout(150);
        await page.screenshot({ path: join(SHOTS, `${name}-${tag}.png`), fullPage: true });
        expect(await page.textContent('main h1')).toBeTruthy();
        // Nothing wider than the screen (a phone scrolls down, never sideways), every tab on it.
        overflow.push(...(await page.evaluate((n) => (document.documentElement.scrollWidth > document.documentElement.clientWidth ? [`${n}: ${document.documentElement.scrollWidth} > ${document.documentElement.clientWidth}`] : []), name)));
        overflow.push(...((await page.evaluate(CUT_OFF)) as string[]).map((c) => `${name}: ${c}`));
        const tabs = await page.evaluate(() => Array.from(document.querySelectorAll('nav a')).map((a) => { const r = a.getBoundingClientRect(); return { text: a.textContent, inside: r.left >= 0 && r.right <= window.innerWidth && r.width > 0 }; }));
        expect(tabs.filter((t) => !t.inside), name).toEqual([]);
      }
      expect(overflow).toEqual([]);
      // Documents: the demo's outdated document is in the ranking, least effective first.
      await page.goto(`${url}/#/documents`);
      await page.selectOption('#sort', 'asc');
      await page.waitForSelector('text=doc-old-retention-2023');
      // Users: one demo user's page (figures, consent, memory, data sections) from its own URL.
      await page.goto(`${url}/#/users/user-7`);
      await page.waitForSelector('text=Memory, with why each item is there');
      await page.waitForSelector('text=Daily figures');
      await page.waitForFunction("document.querySelectorAll('[aria-busy=true]').length === 0", undefined, { timeout: 20_000 });
      expect(await page.locator('text=Not available on this server').count()).toBe(0);
      expect(await page.evaluate(CUT_OFF)).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
      await page.screenshot({ path: join(SHOTS, `users-user-7-${tag}.png`), fullPage: true });
      expect(errors.filter((e) => !e.includes('404'))).toEqual([]);
      await context.close();
    }, 120_000);
  }

  it('gives an empty workspace the first-run panel with its own URL and a snippet to copy', async () => {
    const db = server.services.db;
    const { workspace } = await createWorkspace(db, { name: 'empty-e2e' });
    const { key: emptyKey } = await createApiKey(db, workspace.id, 'secret');
    const session = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await session.page.goto(`${url}/`);
    await session.page.fill('#key', emptyKey);
    await session.page.click('button[type=submit]');
    await session.page.waitForSelector('text=send your first event');
    const snippet = (await session.page.textContent('pre.snippet')) ?? '';
    expect(snippet).toContain(`${url}/v1/responses`);
    expect(snippet).toContain(`${url}/v1/feedback`);
    expect(snippet).toContain('$FEEDLOOP_API_KEY');
    expect(await session.page.textContent('main')).toContain('empty-e2e');
    expect(await session.page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await session.page.screenshot({ path: join(SHOTS, 'overview-first-run-phone.png'), fullPage: true });
    expect(session.errors).toEqual([]);
    await session.context.close();
  });

  it("offers the workspace's own filter values, filters the list, and opens a response at its own URL", async () => {
    const auth = { authorization: `Bearer ${key}` };
    const facets = (await (await fetch(`${url}/v1/response-facets`, { headers: auth })).json()) as { agents: string[]; models: string[]; categories: string[]; variants: Array<{ experimentId: string; variant: string }> };
    expect(facets.agents).toEqual(['search', 'sql', 'support']);
    const { page, errors, context } = await loggedIn(1280, 900);
    await page.goto(`${url}/#/responses`);
    await page.waitForSelector('table.responses tbody tr');
    // The choices are the workspace's own values, from the API.
    const options = async (name: string) => (await page.locator(`select[name=${name}] option`).allTextContents()).filter((t) => t !== 'any');
    await page.waitForFunction("document.querySelectorAll('select[name=agent] option').length > 1");
    expect(await options('agent')).toEqual(facets.agents);
    expect(await options('model')).toEqual(facets.models);
    expect(await options('category')).toEqual(facets.categories);
    expect(await options('variant')).toEqual(facets.variants.map((v) => `${v.experimentId} · ${v.variant}`));
    const agents = await page.locator('table.responses tbody tr td[data-label^=Agent]').allTextContents();
    expect(new Set(agents.map((t) => t.split(' · ')[0])).size).toBeGreaterThan(1);
    // Each row names its user.
    const users = await page.locator('table.responses tbody tr td[data-label=User]').allTextContents();
    expect(users.filter((u) => /^user-\d+$/.test(u)).length).toBe(users.length);
    await page.selectOption('select[name=agent]', 'sql');
    await page.selectOption('select[name=rating]', 'negative');
    await page.click('form.filters button[type=submit]');
    await page.waitForFunction("(() => { const tds = [...document.querySelectorAll('table.responses tbody tr td[data-label^=Agent]')]; return tds.length > 0 && tds.every((td) => td.textContent.startsWith('sql')); })()");
    expect(page.url()).toContain('agent=sql');
    expect(await page.locator('table.responses tbody tr').count()).toBeGreaterThan(0);
    const feedback = await page.locator('table.responses tbody tr td[data-label=Feedback]').allTextContents();
    expect(feedback.every((t) => t.includes('−'))).toBe(true);
    // Every badge kind is explained, in the legend and in its tooltip.
    expect(await page.textContent('.legend')).toMatch(/positive[\s\S]*negative[\s\S]*corrections[\s\S]*error categories/);
    expect(await page.locator('table.responses .tag.thumbs_down').first().getAttribute('title')).toMatch(/negative signals/);
    // A response opens at its own URL, which loads again after a reload, and back returns to the filtered list.
    const first = page.locator('table.responses tbody tr a.open').first();
    const id = ((await first.getAttribute('href')) ?? '').split('/')[2]?.split('?')[0] ?? '';
    await first.click();
    await page.waitForSelector('.detail');
    expect(page.url()).toContain(`#/responses/${id}`);
    await page.reload();
    await page.waitForSelector('.detail');
    expect(await page.textContent('main h2')).toContain(decodeURIComponent(id));
    const signals = await page.locator('table.signals tbody tr').count();
    const detail = (await (await fetch(`${url}/v1/responses/${id}`, { headers: auth })).json()) as { learningSignals: unknown[] };
    expect(signals).toBe(detail.learningSignals.length);
    await page.goBack();
    await page.waitForSelector('table.responses tbody tr');
    expect(page.url()).toContain('agent=sql');
    expect(await page.inputValue('select[name=agent]')).toBe('sql');
    // A back step takes the list's filters back and the form follows, even before the page drew the applied ones (rounds: a rare race).
    const rating = 'form[aria-label=Filters] select[name=rating]';
    for (let round = 0; round < 4; round++) {
      const before = await page.inputValue(rating);
      const other = before === 'positive' ? 'negative' : 'positive';
      await page.selectOption(rating, other);
      await page.click('form[aria-label=Filters] button[type=submit]');
      await page.waitForFunction((v) => location.hash.includes(`rating=${v}`), other);
      await page.goBack();
      await page.waitForFunction(([sel, v]) => document.querySelector<HTMLSelectElement>(sel)?.value === v, [rating, before] as const);
    }
    expect(await page.inputValue('form[aria-label=Filters] select[name=agent]')).toBe('sql');
    // Straight to a detail URL in a new tab, as a shared link would.
    const shared = await browser.newPage({ viewport: { width: 390, height: 844 }, bypassCSP: true });
    await shared.page.goto(`${url}/`);
    await shared.page.fill('#key', key);
    await shared.page.click('button[type=submit]');
    await shared.page.waitForSelector('nav');
    await shared.page.goto(`${url}/#/responses/${id}`);
    await shared.page.waitForSelector('.detail');
    await shared.page.waitForFunction("document.querySelectorAll('[aria-busy=true]').length === 0");
    expect(await shared.page.evaluate(CUT_OFF)).toEqual([]);
    await shared.page.screenshot({ path: join(SHOTS, 'responses-detail-phone.png'), fullPage: true });
    await page.goto(`${url}/#/responses/${id}`);
    await page.waitForSelector('.detail');
    await page.screenshot({ path: join(SHOTS, 'responses-detail-1280.png'), fullPage: true });
    expect([...errors, ...shared.errors]).toEqual([]);
    await shared.context.close();
    await context.close();
  });

  it('searches users, and a consent switch shows and keeps its state', async () => {
    const auth = { authorization: `Bearer ${key}` };
    const { page, errors, context } = await loggedIn(390, 844);
    await page.goto(`${url}/#/users`);
    await page.fill('#user-search', 'USER-7');
    await page.click('form[role=search] button[type=submit]');
    await page.waitForFunction("location.hash.includes('q=USER-7') && document.querySelectorAll('table.users tbody tr').length > 0");
    await page.waitForFunction("document.querySelectorAll('[aria-busy=true]').length === 0");
    const listed = (await (await fetch(`${url}/v1/users?search=USER-7`, { headers: auth })).json()) as { data: Array<{ userId: string; events: number; responses: number; satisfaction: number | null }> };
    const ids = await page.locator('table.users tbody tr td:nth-child(1)').allTextContents();
    expect(ids).toEqual(listed.data.map((u) => u.userId));
    expect(ids.every((u) => u.includes('user-7'))).toBe(true);
    const seven = listed.data.find((u) => u.userId === 'user-7');
    expect(seven).toBeDefined();
    expect(await page.evaluate(CUT_OFF)).toEqual([]);
    // The user's page says the list's figures.
    await page.click('table.users a[href="#/users/user-7"]');
    await page.waitForSelector('#consent-implicit');
    await page.waitForSelector('text=Daily figures');
    const figures = (await page.textContent('section[aria-label=Figures]')) ?? '';
    expect(figures).toContain(`Responses${seven?.responses}`);
    expect(figures).toContain(`Events sent${seven?.events}`);
    expect(figures).toContain(`Satisfaction${seven?.satisfaction?.toFixed(1)} %`);
    // Memory: every item of the API, each printed once (the prompt block that repeats them is folded).
    const memory = (await (await fetch(`${url}/v1/users/user-7/context?explain=true`, { headers: auth })).json()) as { items: Array<{ text: string }> };
    const items = await page.locator('.memory-items > li').evaluateAll((lis) => lis.map((li) => li.firstChild?.textContent ?? ''));
    expect(items).toEqual(memory.items.map((i) => i.text));
    const shown = (await page.evaluate(() => document.querySelector('main')?.innerText)) ?? '';
    for (const item of items) expect(shown.split(item).length - 1, item).toBe(1);
    // The implicit switch shows the user's state, flips, and the flip survives a reload and is the API's.
    const before = (await page.getAttribute('#consent-implicit', 'aria-checked')) === 'true';
    await page.click('#consent-implicit');
    await page.waitForSelector(`#consent-implicit[aria-checked="${!before}"]`);
    const stored = (await (await fetch(`${url}/v1/users/user-7/consent`, { headers: auth })).json()) as { implicit: boolean | null };
    expect(stored.implicit).toBe(!before);
    await page.reload();
    await page.waitForSelector(`#consent-implicit[aria-checked="${!before}"]`);
    expect(await page.textContent('#consent-implicit')).toContain(before ? 'Off' : 'On');
    await page.screenshot({ path: join(SHOTS, 'users-consent-phone.png'), fullPage: false });
    // Back to the default, as the demo had it.
    await page.click('text=use the default');
    await page.waitForSelector(`#consent-implicit[aria-checked="${before}"]`);
    expect(((await (await fetch(`${url}/v1/users/user-7/consent`, { headers: auth })).json()) as { implicit: boolean | null }).implicit).toBeNull();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('saves an alert rule edit, and previews the last 30 days', async () => {
    const { page, context } = await loggedIn(1280, 900);
    await page.goto(`${url}/#/alerts`);
    await page.waitForSelector('input[name="threshold-satisfaction-warning"]');
    await page.fill('input[name="threshold-satisfaction-warning"]', '75');
    await page.click('text=Preview last 30 days');
    await page.waitForSelector('[aria-label=Preview] h3');
    await page.click('text=Save rules');
    await page.waitForSelector('text=Saved.');
    const res = await fetch(`${url}/v1/alert-rules`, { headers: { authorization: `Bearer ${key}` } });
    const rules = (await res.json()) as { default: boolean; rules: Array<{ id: string; threshold: number }> };
    expect(rules.default).toBe(false);
    expect(rules.rules.find((r) => r.id === 'satisfaction-warning')?.threshold).toBe(75);
    await context.close();
  });

  it('creates and revokes a key, adds a webhook and saves a privacy setting from Settings', async () => {
    const { page, errors, context } = await loggedIn(1280, 900);
    await page.goto(`${url}/#/settings`);
    await page.waitForSelector('text=this session');
    await page.selectOption('#key-kind', 'public');
    await page.fill('#key-name', 'e2e widget');
    await page.click('text=Create key');
    const shown = (await page.textContent('#new-key')) ?? '';
    expect(shown).toMatch(/^fl_pk_[A-Za-z0-9_-]{43}$/);
    // The new key is accepted (the vote gets past authentication to the unknown response), and
    // the list never shows it again.
    const vote = await fetch(`${url}/v1/feedback`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shown}`, 'content-type': 'application/json' },
      body: JSON.stringify({ responseId: 'e2e-key-check', type: 'thumbs_up' }),
    });
    expect([vote.status, ((await vote.json()) as { error: { code: string } }).error.code]).toEqual([404, 'FEEDLOOP_ERR_RESPONSE_NOT_FOUND']);
    await page.click('text=Done');
    expect(await page.locator(`text=${shown}`).count()).toBe(0);
    await page.click(`button[aria-label="Revoke key ${shown.slice(0, 10)}"]`);
    await page.click('text=Revoke now');
    await page.waitForSelector(`text=Revoked ${shown.slice(0, 10)}`);
    const refused = await fetch(`${url}/v1/feedback`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shown}`, 'content-type': 'application/json' },
      body: JSON.stringify({ responseId: 'e2e-key-check', type: 'thumbs_up' }),
    });
    expect([refused.status, ((await refused.json()) as { error: { code: string } }).error.code]).toEqual([401, 'FEEDLOOP_ERR_AUTH_INVALID_KEY']);

    await page.fill('#hook', 'https://93.184.215.14/e2e-hook');
    await page.click('text=Add webhook');
    await page.waitForSelector('text=Signing secret (shown once)');
    await page.waitForSelector('text=https://93.184.215.14/e2e-hook');

    await page.fill('#setting-retentionDays', '45');
    await page.click('form.settings-form button[type=submit]');
    await page.waitForSelector('text=Saved retention (days).');
    const ws = (await (await fetch(`${url}/v1/workspace`, { headers: { authorization: `Bearer ${key}` } })).json()) as { settings: { retentionDays: number } };
    expect(ws.settings.retentionDays).toBe(45);
    await page.screenshot({ path: join(SHOTS, 'settings-keys-1280.png'), fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('says what an export leaves out and why, as validate=true does, and downloads it', async () => {
    const auth = { authorization: `Bearer ${key}` };
    const { page, errors, context } = await loggedIn(1280, 900);
    await page.goto(`${url}/#/exports`);
    await page.waitForSelector('#format');
    for (const format of ['trl-dpo', 'trl-kto']) {
      await page.selectOption('#format', format);
      const report = (await (await fetch(`${url}/v1/exports/${format}?validate=true&dedup=true`, { headers: auth })).json()) as {
        rows: number; read: { responses: number; events: number }; deduplicated: Record<string, number>; leftOut: Record<string, number>;
      };
      await page.waitForFunction((n) => document.querySelector('[data-figure=rows]')?.textContent === `${n} rows`, report.rows.toLocaleString('en-US'));
      // Something is always deduplicated or left out in the demo (few prompts, many votes).
      const reasons = { ...Object.fromEntries(Object.entries(report.deduplicated).map(([k, n]) => [`deduplicated/${k}`, n])), ...Object.fromEntries(Object.entries(report.leftOut).map(([k, n]) => [`left out/${k}`, n])) };
      expect(Object.keys(reasons).length, format).toBeGreaterThan(0);
      const shown = await page.locator('table.reasons tbody tr').evaluateAll((trs) =>
        Object.fromEntries(trs.map((tr) => [`${tr.children[0]?.textContent}/${tr.getAttribute('data-reason')}`, Number((tr.children[1]?.textContent ?? '').replace(/,/g, ''))])),
      );
      expect(shown, format).toEqual(reasons);
      expect(await page.textContent('.explained .verdict')).toContain(`from ${report.read.responses.toLocaleString('en-US')} responses with ${report.read.events.toLocaleString('en-US')}`);
      if (format === 'trl-dpo') await page.screenshot({ path: join(SHOTS, 'exports-1280.png'), fullPage: true });
    }
    await page.selectOption('#format', 'trl-kto');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('text=Download export')]);
    const text = readFileSync(await download.path(), 'utf8');
    const rows = text.trim().split('\n');
    expect(rows.length).toBe(Number(((await page.textContent('[data-figure=rows]')) ?? '').replace(/\D/g, '')));
    expect(() => JSON.parse(rows[0] ?? '')).not.toThrow();
    expect(errors).toEqual([]);
    await context.close();
  });
});
