/**
 * Issue 28's Judges page in the browser: the evaluators with their calls and dead letters, an
 * evaluator's weight state, calibration (overall and per week) and disagreements, every figure
 * equal to the API's; a disagreement opens its response, whose detail shows the judge's answer
 * (the evaluator's name, its label and rationale) beside the people's feedback; an evaluator made
 * and changed through the form. A real server (PGlite) calling the deterministic evaluator server
 * on loopback (allowed as an operator would: FEEDLOOP_WEBHOOK_ALLOW_PRIVATE), the built
 * dashboard, Debian's Chromium; screenshots at 1280 and 390 px go to docs/screenshots/judges-*.png.
 */
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshJudgeWeights } from '../src/pipeline/judge-weights.js';
import { chromiumAvailable, launchBrowser, type TestBrowser } from './browser.js';
import { startJudge } from './evaluator-server.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const SHOTS = join(ROOT, 'docs/screenshots');
const pglite = BACKENDS.find((b) => b.name === 'pglite');
const LOCAL = { FEEDLOOP_WEBHOOK_ALLOW_PRIVATE: 'true', FEEDLOOP_SWEEP_INTERVAL_SECONDS: '3600' };

/** Elements of the page's main part that scroll sideways inside themselves (a table cut off). */
const CUT_OFF = `[...document.querySelectorAll('main table, main .table-wrap, main .card, main form')]
  .filter((e) => e.scrollWidth > e.clientWidth + 1)
  .map((e) => (e.getAttribute('aria-label') || e.className || e.tagName) + ': ' + e.scrollWidth + ' > ' + e.clientWidth)`;

/** The page's formatting of a share and a coefficient (judges.tsx). */
const share = (x: number | null): string => (x === null ? '–' : `${(100 * x).toFixed(1)} %`);
const coef = (x: number | null): string => (x === null ? '–' : x.toFixed(2));

interface Estimate { value: number | null; low: number | null; high: number | null; n: number }
interface Report { from: string; to: string; judged: number; n: number; agreement: Estimate; cohenKappa: Estimate; weeks: Array<{ week: string; n: number; agreement: Estimate; cohenKappa: Estimate }>; disagreements: Array<{ responseId: string; judge: string; human: string }> }

describe.skipIf(!chromiumAvailable() || !pglite)('dashboard: judges', () => {
  let t: TestApp;
  let url: string;
  let browser: TestBrowser;
  let judgeUrl = '';
  const ids = { good: '', strict: '' };
  const call = async (method: 'GET' | 'POST' | 'PATCH', path: string, payload?: unknown) => {
    const res = await t.app.inject({ method, url: path, headers: t.auth, ...(payload === undefined ? {} : { payload: payload as object }) });
    expect(res.statusCode, `${method} ${path}: ${res.body}`).toBeLessThan(300);
    return res.json();
  };

  beforeAll(async () => {
    t = await startTestApp(await (pglite as NonNullable<typeof pglite>).open(), LOCAL, { worker: true });
    const judge = await startJudge();
    const refusing = await startJudge();
    refusing.behave(() => ({ status: 400 }));
    judgeUrl = judge.url;
    const make = (name: string, j: typeof judge) => call('POST', '/v1/evaluators', { name, url: j.url, secret: j.secret, kind: 'pointwise', output: 'thumbs', filter: { agent: 'calibration' } });
    ids.good = (await make('groundedness', judge)).id;
    ids.strict = (await make('strictness', refusing)).id;
    const answers = ['good', 'good', 'bad', 'bad', 'bad', 'good', 'good'];
    const registered = await call('POST', '/v1/responses/batch', { responses: answers.map((a, i) => ({ id: `jd-r${i}`, query: `Question ${i}?`, answer: `a ${a} answer`, agent: 'calibration' })) });
    expect(registered.results.every((r: { status: string }) => r.status !== 'rejected')).toBe(true);
    await t.services.pipeline.idle(20_000);
    expect(judge.calls).toHaveLength(7);
    const vote = (responseId: string, type: string, userId: string, extra: Record<string, unknown> = {}) => ({ responseId, type, userId, ...extra });
    await call('POST', '/v1/feedback/batch', {
      events: [
        vote('jd-r0', 'thumbs_up', 'u1'),
        vote('jd-r1', 'thumbs_down', 'u1', { payload: { comment: 'wrong steps' } }),
        vote('jd-r2', 'thumbs_down', 'u1'),
        vote('jd-r3', 'thumbs_down', 'u1'),
        vote('jd-r3', 'review', 'rev', { source: 'review', payload: { verdict: 'approved' } }),
        vote('jd-r4', 'rating', 'u1', { payload: { rating: 1 } }),
        vote('jd-r5', 'thumbs_up', 'u2'),
      ],
    });
    await t.services.pipeline.idle(20_000);
    // Later: u2 rewrites the answer it liked (a conflict, and a correction), u3 corrects another.
    await call('POST', '/v1/feedback/batch', {
      events: [
        vote('jd-r5', 'correction', 'u2', { payload: { corrected: 'a wholly different and much longer answer, rewritten' } }),
        vote('jd-r6', 'correction', 'u3', { payload: { corrected: 'a fixed answer' } }),
      ],
    });
    await t.services.pipeline.idle(20_000);
    // The hourly weight check, now: the weight state has its kappa, n and window.
    await refreshJudgeWeights(t.db, { force: true });
    url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const login = async (width = 1280, height = 900) => {
    const session = await browser.newPage({ viewport: { width, height } });
    await session.page.goto(`${url}/`);
    await session.page.fill('#key', t.secretKey);
    await session.page.click('button[type=submit]');
    await session.page.waitForSelector('nav');
    return session;
  };
  const noSideways = async (page: Page) => {
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    expect(await page.evaluate(CUT_OFF)).toEqual([]);
  };
  const figure = async (page: Page, scope: string, name: string) => (await page.textContent(`${scope} [data-figure="${name}"]`))?.trim();

  it("lists the evaluators with the API's calls and dead letters, and an evaluator's weight, calibration per week and disagreements", async () => {
    const { page, errors } = await login();
    await page.click('nav a:text-is("Judges")');
    await page.waitForSelector('table.judges tbody tr');
    for (const id of [ids.good, ids.strict]) {
      const api = await call('GET', `/v1/evaluators/${id}`);
      for (const status of ['done', 'pending', 'dead'] as const) expect(await figure(page, `tr[data-evaluator="${id}"]`, status), `${api.name} ${status}`).toBe(String(api.calls[status]));
    }
    for (const id of [ids.good, ids.strict]) {
      const { weight } = await call('GET', `/v1/evaluators/${id}`);
      expect(await figure(page, `tr[data-evaluator="${id}"]`, 'weight-kappa')).toBe(coef(weight.kappa));
      expect(await figure(page, `tr[data-evaluator="${id}"]`, 'weight-n')).toBe(String(weight.n));
    }
    expect((await call('GET', `/v1/evaluators/${ids.good}`)).calls).toEqual({ pending: 0, done: 7, dead: 0 });
    expect((await call('GET', `/v1/evaluators/${ids.strict}`)).calls).toEqual({ pending: 0, done: 0, dead: 7 });
    await page.screenshot({ path: join(SHOTS, 'judges-list-1280.png'), fullPage: true });
    await noSideways(page);

    await page.click(`tr[data-evaluator="${ids.good}"] a.open`);
    await page.waitForSelector('.calibration');
    const evaluator = await call('GET', `/v1/evaluators/${ids.good}`);
    const report = (await call('GET', `/v1/evaluators/${ids.good}/calibration`)) as Report;
    // The humans: r0 up, r1 down, r2 down, r3 approved (a review outweighs the user), r4 1 star, r5 up; r6 none.
    expect(report).toMatchObject({ judged: 7, n: 6 });
    expect(await figure(page, '.calibration', 'judged')).toBe(String(report.judged));
    expect(await figure(page, '.calibration', 'n')).toBe(String(report.n));
    expect(await figure(page, 'table.figures-table', 'Agreement')).toBe(share(report.agreement.value));
    expect(await figure(page, 'table.figures-table', "Cohen's kappa")).toBe(coef(report.cohenKappa.value));
    const intervalText = (await page.textContent('table.figures-table tbody tr:first-child')) ?? '';
    expect(intervalText).toContain(`${share(report.agreement.low)} to ${share(report.agreement.high)}`);
    expect(report.weeks.length).toBeGreaterThan(0);
    for (const w of report.weeks) {
      const row = `tr[data-week="${w.week}"]`;
      expect(await figure(page, row, 'n')).toBe(String(w.n));
      expect(await figure(page, row, 'agreement')).toBe(share(w.agreement.value));
      expect(await figure(page, row, 'kappa')).toBe(coef(w.cohenKappa.value));
    }
    const listed = await page.locator('ul.disagreements li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-response')));
    expect(listed).toEqual(report.disagreements.map((d) => d.responseId));
    expect(listed).toEqual(['jd-r1', 'jd-r3']);
    // The weight state as the API gives it: below the rule's n, the judge weighs 0.
    expect(await page.textContent('[data-figure="rule"]')).toBe(evaluator.weight.rule);
    expect(evaluator.weight.factor).toBe(0);
    expect(await page.textContent('main')).toContain('weighs 0 in the composite score');
    expect(await figure(page, '.card', 'weight-factor')).toBe(String(evaluator.weight.factor));
    expect(await figure(page, '.card', 'weight-kappa')).toBe(coef(evaluator.weight.kappa));
    expect(await figure(page, '.card', 'weight-n')).toBe(String(evaluator.weight.n));
    // The default period is the API's 90 days, not the weight check's 30: the page says so.
    const shownFrom = (await page.getAttribute('.calibration', 'data-from')) ?? '';
    expect(Date.parse((await page.getAttribute('.calibration', 'data-to')) ?? '') - Date.parse(shownFrom)).toBe(90 * 86_400_000);
    expect(await page.getAttribute('.calibration [data-against]', 'data-against')).toBe('other');
    await page.screenshot({ path: join(SHOTS, 'judges-detail-1280.png'), fullPage: true });
    await noSideways(page);

    // One screen, one truth: over the weight check's own window, the calibration is the weight state's kappa and n.
    const w = evaluator.weight.window as { from: string; to: string };
    expect(w.to).toBe(evaluator.weight.checkedAt);
    expect(Date.parse(w.to) - Date.parse(w.from)).toBe(30 * 86_400_000);
    const inWindow = (await call('GET', `/v1/evaluators/${ids.good}/calibration?from=${encodeURIComponent(w.from)}&to=${encodeURIComponent(w.to)}`)) as Report;
    expect(inWindow.n).toBe(evaluator.weight.n);
    expect(inWindow.cohenKappa.value).toBeCloseTo(evaluator.weight.kappa as number, 6);
    await page.click('a[data-range="weight"]');
    await page.waitForSelector(`.calibration[data-from="${w.from}"]`);
    expect(await page.getAttribute('.calibration', 'data-to')).toBe(w.to);
    expect(await page.getAttribute('.calibration [data-against]', 'data-against')).toBe('same');
    expect(await figure(page, '.calibration', 'n')).toBe(String(evaluator.weight.n));
    expect(await figure(page, 'table.figures-table', "Cohen's kappa")).toBe(await figure(page, '.card', 'weight-kappa'));
    expect(await figure(page, 'table.figures-table', 'Agreement')).toBe(share(inWindow.agreement.value));

    // A period of days from the form goes to the API as it is: the figures are that period's.
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    for (const [from, before, n] of [[day(-1), day(1), 6], [day(-3), day(-1), 0]] as const) {
      await page.fill('form[aria-label="Calibration period"] input[name=from]', from);
      await page.fill('form[aria-label="Calibration period"] input[name=to]', before);
      await page.click('form[aria-label="Calibration period"] button[type=submit]');
      const iso = (d: string) => new Date(d).toISOString();
      await page.waitForSelector(`.calibration[data-from="${iso(from)}"][data-to="${iso(before)}"]`);
      expect(page.url()).toContain(`from=${encodeURIComponent(iso(from))}`);
      const ranged = (await call('GET', `/v1/evaluators/${ids.good}/calibration?from=${iso(from)}&to=${iso(before)}`)) as Report;
      expect(ranged.n).toBe(n);
      expect(await figure(page, '.calibration', 'judged')).toBe(String(ranged.judged));
      expect(await figure(page, '.calibration', 'n')).toBe(String(ranged.n));
      if (n > 0) expect(await figure(page, 'table.figures-table', "Cohen's kappa")).toBe(coef(ranged.cohenKappa.value));
    }
    await page.goto(`${url}/#/judges/${ids.good}`);
    await page.waitForSelector('.calibration [data-against="other"]');

    // A disagreement opens its response: the judge's answer beside the people's feedback.
    await page.click('ul.disagreements li[data-response="jd-r1"] a');
    await page.waitForSelector('ul.judge-answers li');
    expect(page.url()).toContain('#/responses/jd-r1');
    const answer = page.locator(`ul.judge-answers li[data-evaluator="${ids.good}"]`);
    // The evaluators' names arrive after the detail: the badge becomes a link to its Judges page then.
    await answer.locator('a .tag.source-judge').waitFor();
    expect(await answer.locator('a').getAttribute('href')).toBe(`#/judges/${ids.good}`);
    expect(await answer.locator('.tag.source-judge').textContent()).toBe('judge · groundedness');
    expect(await answer.locator('[data-answer]').textContent()).toBe('thumbs_up');
    expect(await answer.locator('[data-label]').textContent()).toBe('grounded');
    expect(await answer.locator('[data-rationale]').textContent()).toBe('looked for "good"');
    expect(await page.locator('.beside ul.feedback:not(.judge-answers) li').first().textContent()).toContain('wrong steps');
    await page.screenshot({ path: join(SHOTS, 'judges-response-1280.png'), fullPage: true });
    await noSideways(page);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('makes an evaluator through the form (its secret shown once) and changes it (a filter change is a new version)', async () => {
    const { page, errors } = await login();
    await page.goto(`${url}/#/judges`);
    await page.waitForSelector('form[aria-label="New evaluator"]');
    const form = page.locator('form[aria-label="New evaluator"]');
    await form.locator('input[name=name]').fill('helpfulness');
    await form.locator('input[name=url]').fill(judgeUrl);
    await form.locator('input[name=sample]').fill('0.5');
    await form.locator('input[name=ratePerMinute]').fill('30');
    await form.locator('textarea[name=filter]').fill('{"agent": "support"}');
    await form.locator('button[type=submit]').click();
    await page.waitForSelector('[data-secret]');
    const made = ((await call('GET', '/v1/evaluators')).evaluators as Array<Record<string, unknown>>).find((e) => e.name === 'helpfulness');
    expect(made).toMatchObject({ url: judgeUrl, kind: 'pointwise', output: 'thumbs', sample: 0.5, ratePerMinute: 30, filter: { agent: 'support' }, enabled: true, version: 1 });
    expect(await page.textContent('[data-secret] code')).toMatch(/^whsec_/);
    await page.waitForSelector(`tr[data-evaluator="${String(made?.id)}"]`);

    // A bad filter is refused in the page, naming the field; nothing changes.
    await form.locator('input[name=name]').fill('broken');
    await form.locator('input[name=url]').fill(judgeUrl);
    await form.locator('textarea[name=filter]').fill('{agent: support');
    await form.locator('button[type=submit]').click();
    // Preact renders the message after the click's handler returns: wait for it.
    await page.waitForFunction(() => document.querySelector('form[aria-label="New evaluator"] [role=status]')?.textContent?.startsWith('filter:'));
    expect((await call('GET', '/v1/evaluators')).evaluators).toHaveLength(3);

    await page.goto(`${url}/#/judges/${String(made?.id)}`);
    const settings = page.locator('form[aria-label="Evaluator settings"]');
    await settings.waitFor();
    await settings.locator('input[name=timeoutMs]').fill('2500');
    await settings.locator('button[type=submit]').click();
    await page.waitForFunction(() => document.querySelector('form[aria-label="Evaluator settings"] [role=status]')?.textContent?.startsWith('Saved'));
    expect(await call('GET', `/v1/evaluators/${String(made?.id)}`)).toMatchObject({ timeoutMs: 2500, version: 1 });
    await settings.locator('textarea[name=filter]').fill('{"agent": "sql"}');
    await settings.locator('input[name=enabled]').uncheck();
    await settings.locator('button[type=submit]').click();
    await page.waitForFunction(() => document.querySelector('form[aria-label="Evaluator settings"] [role=status]')?.textContent === 'Saved (version 2).');
    expect(await call('GET', `/v1/evaluators/${String(made?.id)}`)).toMatchObject({ filter: { agent: 'sql' }, enabled: false, version: 2, timeoutMs: 2500 });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows a dead letter's error as the API gives it, and sends it again from the page", async () => {
    const { page, errors } = await login();
    await page.goto(`${url}/#/judges/${ids.strict}`);
    await page.waitForSelector('table.calls tbody tr');
    const dead = (await call('GET', `/v1/evaluators/${ids.strict}/calls?status=dead&limit=1`)).calls[0] as { id: number; lastError: string; lastStatusCode: number };
    expect(dead).toMatchObject({ lastStatusCode: 400 });
    const row = page.locator(`tr[data-call="${dead.id}"]`);
    expect(await row.getAttribute('data-status')).toBe('dead');
    expect(await row.locator('code').textContent()).toBe(`${dead.lastError} (HTTP 400)`);
    await row.locator('button:text-is("Retry")').click();
    await page.waitForFunction((id) => document.querySelector('.card[aria-label="Calls"] .pager [role=status]')?.textContent === `Call ${id} is sent again.`, dead.id);
    // The call left the dead letters (its judge has stopped since, so it waits for a retry).
    const after = ((await call('GET', `/v1/evaluators/${ids.strict}/calls?limit=100`)).calls as Array<{ id: number; status: string }>).find((c) => c.id === dead.id);
    expect(after?.status).not.toBe('dead');
    expect(errors).toEqual([]);
    await page.close();
  });

  it("pages through an evaluator's calls as the API pages them, filters them by status, and backfills with its progress shown", async () => {
    // 25 responses judged on arrival by one judge; another made after them judges them by a backfill only.
    // A judge of this test's own: the evaluator server closes its judges after each test.
    const j = await startJudge();
    const make = async (name: string) => (await call('POST', '/v1/evaluators', { name, url: j.url, secret: j.secret, kind: 'pointwise', output: 'thumbs', filter: { agent: 'paging' } })).id as string;
    const pager = await make('pager');
    await call('POST', '/v1/responses/batch', { responses: Array.from({ length: 25 }, (_, i) => ({ id: `jd-p${i}`, query: `Paged ${i}?`, answer: `a good answer ${i}`, agent: 'paging' })) });
    await t.services.pipeline.idle(20_000);
    const late = await make('late');
    const { page, errors } = await login();
    await page.goto(`${url}/#/judges/${pager}`);
    await page.waitForSelector('table.calls tbody tr');
    const shown = () => page.locator('table.calls tbody tr').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-call'))));
    const first = (await call('GET', `/v1/evaluators/${pager}/calls?limit=20`)) as { calls: Array<{ id: number }>; nextCursor: string };
    const second = (await call('GET', `/v1/evaluators/${pager}/calls?limit=20&cursor=${encodeURIComponent(first.nextCursor)}`)) as { calls: Array<{ id: number }>; nextCursor: string | null };
    expect([first.calls.length, second.calls.length, second.nextCursor]).toEqual([20, 5, null]);
    expect(await shown()).toEqual(first.calls.map((c) => c.id));
    await page.click('.pager button:text-is("Older")');
    await page.waitForSelector('[data-page="2"]');
    await page.waitForFunction(() => document.querySelectorAll('table.calls tbody tr').length === 5);
    expect(await shown()).toEqual(second.calls.map((c) => c.id));
    expect(await page.locator('.pager button:text-is("Older")').count()).toBe(0);
    await page.click('.pager button:text-is("Newer")');
    await page.waitForSelector('[data-page="1"]');
    await page.waitForFunction(() => document.querySelectorAll('table.calls tbody tr').length === 20);
    expect(await shown()).toEqual(first.calls.map((c) => c.id));

    // The status filter: the strict judge's dead letters, as the API lists them.
    await page.goto(`${url}/#/judges/${ids.strict}`);
    await page.waitForSelector('table.calls tbody tr');
    await page.selectOption('select[name=status]', 'done');
    await page.waitForSelector('.card[aria-label="Calls"] p.note:text-is("No calls here.")');
    await page.selectOption('select[name=status]', 'dead');
    await page.waitForSelector('table.calls tbody tr');
    const dead = (await call('GET', `/v1/evaluators/${ids.strict}/calls?status=dead&limit=20`)).calls as Array<{ id: number }>;
    expect(await shown()).toEqual(dead.map((c) => c.id));

    // A backfill from the page: its progress moves on the page until it is the API's, done.
    await page.goto(`${url}/#/judges/${late}`);
    const form = page.locator('form[aria-label="New backfill"]');
    await form.waitFor();
    // Another evaluator's page starts afresh: its own settings, every status.
    expect(await page.inputValue('form[aria-label="Evaluator settings"] input[name=name]')).toBe('late');
    expect(await page.inputValue('select[name=status]')).toBe('');
    await form.locator('input[name=since]').fill(new Date(Date.now() - 86_400_000).toISOString().slice(0, 10));
    await form.locator('input[name=limit]').fill('10');
    await form.locator('button[type=submit]').click();
    await page.waitForFunction(() => document.querySelector('form[aria-label="New backfill"] [role=status]')?.textContent?.startsWith('Backfill '));
    const [made] = (await call('GET', `/v1/evaluators/${late}/backfills`)).backfills as Array<{ id: string; limit: number }>;
    expect(made?.limit).toBe(10);
    const row = `tr[data-backfill="${made?.id}"]`;
    await page.waitForSelector(`${row}[data-status="done"]`, { timeout: 30_000 });
    await page.waitForFunction((sel) => document.querySelector(`${sel} [data-figure="done"]`)?.textContent === '10', row, { timeout: 30_000 });
    const progress = (await call('GET', `/v1/evaluators/${late}/backfills/${made?.id}`)) as { considered: number; queued: number; calls: { done: number; pending: number; dead: number } };
    expect(progress).toMatchObject({ queued: 10, calls: { done: 10, pending: 0, dead: 0 } });
    for (const [name, value] of [['considered', progress.considered], ['queued', progress.queued], ['done', progress.calls.done], ['pending', progress.calls.pending], ['dead', progress.calls.dead]] as const) {
      expect(await figure(page, row, name), name).toBe(String(value));
    }
    await page.screenshot({ path: join(SHOTS, 'judges-backfill-1280.png'), fullPage: true });
    await noSideways(page);
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);

  it('filters the responses by a correction and by conflicting signals, in the URL, as the API does', async () => {
    const { page, errors } = await login();
    await page.goto(`${url}/#/responses?agent=calibration`);
    await page.waitForSelector('table.responses tbody tr');
    const rows = () => page.locator('table.responses tbody tr input[name=pick]').evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value));
    const listed = async (qs: string) => ((await call('GET', `/v1/responses?agent=calibration&${qs}`)).data as Array<{ id: string }>).map((r) => r.id);
    for (const [hasCorrection, conflicting, expected] of [
      ['true', '', ['jd-r6', 'jd-r5']],
      ['', 'true', ['jd-r5']],
      ['false', 'false', ['jd-r4', 'jd-r3', 'jd-r2', 'jd-r1', 'jd-r0']],
    ] as const) {
      await page.selectOption('select[name=hasCorrection]', hasCorrection);
      await page.selectOption('select[name=conflicting]', conflicting);
      await page.click('form.filters button[type=submit]');
      const qs = new URLSearchParams({ ...(hasCorrection ? { hasCorrection } : {}), ...(conflicting ? { conflicting } : {}) }).toString();
      const api = await listed(qs);
      expect(api, qs).toEqual(expected);
      await page.waitForFunction((want) => JSON.stringify(Array.from(document.querySelectorAll('table.responses tbody tr input[name=pick]'), (i) => (i as HTMLInputElement).value)) === want, JSON.stringify(api));
      for (const [k, v] of Object.entries({ hasCorrection, conflicting })) expect(page.url().includes(`${k}=${v}`), `${k} in the URL`).toBe(v !== '');
    }
    // The URL is the state: a reload keeps the filters and the list.
    await page.reload();
    await page.waitForSelector('table.responses tbody tr');
    expect([await page.inputValue('select[name=hasCorrection]'), await page.inputValue('select[name=conflicting]')]).toEqual(['false', 'false']);
    expect(await rows()).toEqual(await listed('hasCorrection=false&conflicting=false'));
    expect(errors).toEqual([]);
    await page.close();
  });

  it('fits a phone: the list, an evaluator and a response with judge answers at 390 px', async () => {
    const { page, errors } = await login(390, 844);
    for (const [hash, ready, shot] of [
      ['#/judges', 'table.judges tbody tr', 'judges-list-390.png'],
      [`#/judges/${ids.good}`, '.calibration', 'judges-detail-390.png'],
      ['#/responses/jd-r1', 'ul.judge-answers li a .tag.source-judge', 'judges-response-390.png'],
    ] as const) {
      await page.goto(`${url}/${hash}`);
      await page.waitForSelector(ready);
      await noSideways(page);
      await page.screenshot({ path: join(SHOTS, shot), fullPage: true });
    }
    expect(errors).toEqual([]);
    await page.close();
  });
});
