/**
 * The dashboard end to end: a real server (embedded database) seeded by `feedloop demo`'s code
 * (a fifth of its traffic, to keep the test short), the built dashboard, and Debian's Chromium.
 * Every page loads without console errors; filters change the response list; an alert rule edit
 * is saved; an export downloads; the Documents and Users pages show the documents, privacy and
 * memory APIs' answers. Screenshots of each page at 1280 px and 390 px go to docs/screenshots/.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
const PAGES = ['overview', 'responses', 'alerts', 'experiments', 'insights', 'documents', 'users', 'exports', 'settings'];
const hasChromium = chromiumAvailable();

describe.skipIf(!hasChromium)('dashboard end to end', () => {
  let server: RunningServer;
  let url: string;
  let key: string;
  let browser: TestBrowser;
  const dir = mkdtempSync(join(tmpdir(), 'feedloop-dash-'));

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'packages/dashboard/dist/index.html'))) {
      execFileSync('npm', ['run', 'build', '-w', '@feedloop/dashboard'], { cwd: ROOT, stdio: 'ignore' });
    }
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
        const tabs = await page.evaluate(() => Array.from(document.querySelectorAll('nav a')).map((a) => { const r = a.getBoundingClientRect(); return { text: a.textContent, inside: r.left >= 0 && r.right <= window.innerWidth && r.width > 0 }; }));
        expect(tabs.filter((t) => !t.inside), name).toEqual([]);
      }
      expect(overflow).toEqual([]);
      // Documents: the demo's outdated document is in the ranking, least effective first.
      await page.goto(`${url}/#/documents`);
      await page.selectOption('#sort', 'asc');
      await page.waitForSelector('text=doc-old-retention-2023');
      // Users: one demo user's consent, memory and data, from the privacy and memory APIs.
      await page.goto(`${url}/#/users`);
      await page.fill('#user', 'user-7');
      await page.click('form.toolbar button[type=submit]');
      await page.waitForSelector('text=What feedloop holds about this user');
      await page.waitForFunction("document.querySelectorAll('[aria-busy=true]').length === 0", undefined, { timeout: 20_000 });
      expect(await page.locator('text=Not available on this server').count()).toBe(0);
      await page.screenshot({ path: join(SHOTS, `users-user-7-${tag}.png`), fullPage: true });
      expect(errors.filter((e) => !e.includes('404'))).toEqual([]);
      await context.close();
    }, 120_000);
  }

  it('shows the firing alerts first, live figures that agree with the chart, and a trend that names the drop', async () => {
    const auth = { authorization: `Bearer ${key}` };
    // A fifth of the demo's traffic is below the default rules' 30 ratings a day: judge on 10.
    const put = await fetch(`${url}/v1/alert-rules`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ rules: [{ id: 'satisfaction-warning', kind: 'satisfaction', severity: 'warning', threshold: 70, minSample: 10 }] }),
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

  it('filters change the response list', async () => {
    const { page, context } = await loggedIn(1280, 900);
    await page.goto(`${url}/#/responses`);
    await page.waitForSelector('table.responses tbody tr');
    const all = await page.locator('table.responses tbody tr td:nth-child(3)').allTextContents();
    expect(new Set(all.map((t) => t.split(' · ')[0])).size).toBeGreaterThan(1);
    await page.fill('input[name=agent]', 'sql');
    await page.selectOption('select[name=rating]', 'negative');
    await page.click('form.filters button[type=submit]');
    await page.waitForFunction("[...document.querySelectorAll('table.responses tbody tr td:nth-child(3)')].every((td) => td.textContent.startsWith('sql'))");
    const filtered = await page.locator('table.responses tbody tr').count();
    expect(filtered).toBeGreaterThan(0);
    const feedback = await page.locator('table.responses tbody tr td:nth-child(5)').allTextContents();
    expect(feedback.every((t) => t.includes('−'))).toBe(true);
    await page.click('table.responses tbody tr button.link');
    await page.waitForSelector('.detail');
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

  it('downloads an export', async () => {
    const { page, context } = await loggedIn(1280, 900);
    await page.goto(`${url}/#/exports`);
    await page.waitForSelector('#format');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('text=Download export')]);
    const path = await download.path();
    const text = readFileSync(path, 'utf8');
    expect(text.trim().split('\n').length).toBeGreaterThan(0);
    expect(() => JSON.parse(text.trim().split('\n')[0] ?? '')).not.toThrow();
    await context.close();
  });
});
