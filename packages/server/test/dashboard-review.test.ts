/**
 * Issue 27's dashboard in the browser: a reviewer key logs in and sees only the Review pages; a
 * reviewer reviews five items with the keyboard alone; two reviewer sessions at once never hold
 * the same item; a pairwise item (HH-RLHF's chosen and rejected answers) is shown in a different
 * order to two reviewers and the stored verdict names the response the reviewer chose, not a
 * position; a queue is made in its settings and filled from the Responses list (selected rows and
 * all matching a filter). A real server (PGlite), the built dashboard, Debian's Chromium; the
 * screenshots at 1280 and 390 px go to docs/screenshots/review-*.png.
 */
import { join, resolve } from 'node:path';
import { pairOrder } from '@feedloop/core';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readHhRlhf } from '../src/cli/import-hh-rlhf.js';
import { chromiumAvailable, launchBrowser, type TestBrowser } from './browser.js';
import { DATASETS_DIR, datasetsAvailable } from './datasets.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const SHOTS = join(ROOT, 'docs/screenshots');
const pglite = BACKENDS.find((b) => b.name === 'pglite');

/** Elements of the page's main part that scroll sideways inside themselves (a table cut off). */
const CUT_OFF = `[...document.querySelectorAll('main table, main .table-wrap, main .card, main form')]
  .filter((e) => e.scrollWidth > e.clientWidth + 1)
  .map((e) => (e.getAttribute('aria-label') || e.className || e.tagName) + ': ' + e.scrollWidth + ' > ' + e.clientWidth)`;

interface Screen { item: { id: string }; order: string[]; reviewer: string; myReview: { label: string | null; body: Record<string, unknown>; firstResponseId: string | null } | null }

describe.skipIf(!chromiumAvailable() || !pglite || !datasetsAvailable())('dashboard: review queues', () => {
  let t: TestApp;
  let url: string;
  let browser: TestBrowser;
  type Method = 'GET' | 'POST' | 'PATCH';
  const call = async (method: Method, path: string, payload?: unknown) => {
    const res = await t.app.inject({ method, url: path, headers: t.auth, ...(payload === undefined ? {} : { payload: payload as object }) });
    expect(res.statusCode, `${method} ${path}: ${res.body}`).toBeLessThan(300);
    return res.json();
  };
  const reviewer = async (name: string): Promise<{ id: string; key: string }> => call('POST', '/v1/keys', { kind: 'reviewer', name });
  const queue = async (body: Record<string, unknown>): Promise<{ id: string }> => call('POST', '/v1/review-queues', body);
  const stored = (queueId: string, itemId: string, name: string): Promise<Screen> => call('GET', `/v1/review-queues/${queueId}/items/${itemId}?reviewer=${name}`);
  const singles = Array.from({ length: 12 }, (_, i) => ({
    id: `rv-r${i}`,
    query: `How do I rotate credential ${i}?`,
    answer: `Open Settings, choose key ${i}, press Rotate.`,
    agent: i < 8 ? 'support' : 'sql',
    sources: [`https://docs.example.test/keys#${i}`],
    contextDocumentIds: [`doc-keys-${i}`],
  }));
  const pairs: Array<[string, string]> = [];

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

  const login = async (key: string, width = 1280, height = 900) => {
    const session = await browser.newPage({ viewport: { width, height }, acceptDownloads: true });
    await session.page.goto(`${url}/`);
    await session.page.fill('#key', key);
    await session.page.click('button[type=submit]');
    await session.page.waitForSelector('nav');
    return session;
  };
  /** Waits for the reviewing screen to show an item other than `previous` (or the end); its id. */
  const shown = async (page: Page, previous = ''): Promise<string> => {
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
  const noSideways = async (page: Page) => {
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    expect(await page.evaluate(CUT_OFF)).toEqual([]);
  };

  it('logs a reviewer key in to the Review pages only, and reviews five items with the keyboard alone', async () => {
    const ana = await reviewer('ana');
    const instructions = '# How to judge\n\nApprove only **correct** steps. See [the guide](https://docs.example.test/guide).\n\n- `1` approves\n- <script>window.hacked = 1</script>\n\n[bad](javascript:window.hacked=2)';
    const q = await queue({ name: 'Support answers', members: [ana.id], instructions, rubric: { qualityScores: true } });
    await call('POST', `/v1/review-queues/${q.id}/items`, { responseIds: singles.slice(0, 8).map((s) => s.id) });

    const { page, errors, context } = await login(ana.key);
    // Only the Review tab; the other pages are the server's to refuse, and the dashboard offers none.
    expect(await page.locator('nav a').allTextContents()).toEqual(['Review']);
    await page.waitForSelector('table.queues tbody tr');
    const api = (await call('GET', `/v1/review-queues/${q.id}`)).progress as { total: number; done: number; inProgress: number; pending: number };
    const row = (await page.textContent(`tr[data-queue="${q.id}"]`)) ?? '';
    expect(row).toContain(`${api.done} of ${api.total}`);
    expect(api).toEqual({ total: 8, pending: 8, inProgress: 0, done: 0 });
    await page.goto(`${url}/#/overview`);
    await page.waitForSelector('table.queues');
    expect(page.url()).toContain('#/overview');
    expect(await page.textContent('main h1')).toBe('Review');

    await page.goto(`${url}/#/review/${q.id}`);
    let item = await shown(page);
    // The instructions are rendered, and nothing in them ran or became a link it should not.
    expect(await page.textContent('.instructions h3')).toBe('How to judge');
    expect(await page.locator('.instructions strong').textContent()).toBe('correct');
    expect(await page.locator('.instructions a').count()).toBe(1);
    expect(await page.getAttribute('.instructions a', 'href')).toBe('https://docs.example.test/guide');
    expect(await page.textContent('.instructions')).toContain('<script>window.hacked = 1</script>');
    expect(await page.evaluate(() => (window as unknown as { hacked?: number }).hacked)).toBeUndefined();
    // Query, answer, sources and context documents, and the feedback so far.
    expect(await page.textContent('.subject')).toContain('How do I rotate credential 0?');
    expect(await page.textContent('.subject')).toContain('doc-keys-0');
    expect(await page.textContent('.prior summary')).toContain('Feedback so far (1)');

    // `?` lists the keys.
    await page.keyboard.press('?');
    await page.waitForSelector('[role=dialog][aria-label="Keyboard shortcuts"]');
    await page.screenshot({ path: join(SHOTS, 'review-screen-help-1280.png'), fullPage: true });
    await page.keyboard.press('Escape');
    expect(await page.locator('[role=dialog]').count()).toBe(0);

    // Five reviews, keyboard only: a verdict key, `j` to an issue and Space, Ctrl+Enter.
    const plan: Array<{ key: '1' | '2' | '3'; verdict: string; issue?: boolean; accuracy?: string }> = [
      { key: '1', verdict: 'approved' },
      { key: '3', verdict: 'rejected', issue: true },
      { key: '2', verdict: 'changes_requested', accuracy: '60' },
      { key: '1', verdict: 'approved' },
      { key: '3', verdict: 'rejected' },
    ];
    const reviewed: Array<[string, (typeof plan)[number]]> = [];
    for (const step of plan) {
      await page.keyboard.press(step.key);
      expect(await page.isChecked(`input[name=verdict][value=${step.verdict}]`)).toBe(true);
      // j moves through the answer and the form's fields: the answer, three verdicts, five
      // issues, then the quality scores.
      if (step.issue) {
        for (let i = 0; i < 5; i++) await page.keyboard.press('j');
        expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).value)).toBe('hallucination');
        await page.keyboard.press('Space');
        expect(await page.isChecked('input[name=issues][value=hallucination]')).toBe(true);
        await page.keyboard.press('k');
        expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).value)).toBe('rejected');
      }
      if (step.accuracy) {
        for (let i = 0; i < 10; i++) await page.keyboard.press('j');
        expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).name)).toBe('accuracy');
        // In a text field the keys type; Esc leaves it.
        await page.keyboard.type(step.accuracy);
        await page.keyboard.press('Escape');
        expect(await page.inputValue('input[name=accuracy]')).toBe(step.accuracy);
      }
      if (reviewed.length === 2) await page.screenshot({ path: join(SHOTS, 'review-screen-1280.png'), fullPage: true });
      await page.keyboard.press('Control+Enter');
      reviewed.push([item, step]);
      item = await shown(page, item);
    }
    expect(new Set(reviewed.map(([id]) => id)).size).toBe(5);
    expect(await page.textContent('[data-figure=reviewed]')).toBe('5 reviewed in this session');
    for (const [id, step] of reviewed) {
      const mine = (await stored(q.id, id, 'ana')).myReview;
      expect(mine?.label).toBe(step.verdict);
      expect(mine?.body.issues ?? []).toEqual(step.issue ? ['hallucination'] : []);
      if (step.accuracy) expect(mine?.body.qualityScores).toEqual({ accuracy: Number(step.accuracy) });
    }
    // `s` skips: the sixth item goes back for others and another opens.
    const skipped = item;
    await page.keyboard.press('s');
    item = await shown(page, skipped);
    expect(item).not.toBe(skipped);
    expect((await call('GET', `/v1/review-queues/${q.id}`)).progress).toMatchObject({ done: 5, inProgress: 1 });
    // Leaving releases the held item at once.
    await page.goto(`${url}/#/review`);
    await page.waitForSelector('table.queues tbody tr');
    await expect.poll(async () => (await call('GET', `/v1/review-queues/${q.id}`)).progress.inProgress).toBe(0);
    const progress = (await call('GET', `/v1/review-queues/${q.id}`)).progress;
    await page.reload();
    await page.waitForSelector(`tr[data-queue="${q.id}"]`);
    const text = (await page.textContent(`tr[data-queue="${q.id}"]`)) ?? '';
    expect(text).toContain(`${progress.done} of ${progress.total}`);
    expect(progress).toEqual({ total: 8, pending: 3, inProgress: 0, done: 5 });
    await page.screenshot({ path: join(SHOTS, 'review-queues-1280.png'), fullPage: true });
    expect(errors).toEqual([]);

    // The same screens on a phone: nothing wider than the screen.
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await phone.page.goto(`${url}/`);
    await phone.page.fill('#key', ana.key);
    await phone.page.click('button[type=submit]');
    await phone.page.waitForSelector('table.queues tbody tr');
    await noSideways(phone.page);
    await phone.page.screenshot({ path: join(SHOTS, 'review-queues-phone.png'), fullPage: true });
    await phone.page.goto(`${url}/#/review/${q.id}`);
    await shown(phone.page);
    await phone.page.keyboard.press('2');
    await noSideways(phone.page);
    await phone.page.screenshot({ path: join(SHOTS, 'review-screen-phone.png'), fullPage: true });
    expect(phone.errors).toEqual([]);
    await phone.context.close();
    await context.close();
  }, 180_000);

  it('never gives two reviewer sessions at once the same item', async () => {
    const [ben, cy] = [await reviewer('ben'), await reviewer('cy')];
    const q = await queue({ name: 'Race', members: [ben.id, cy.id] });
    await call('POST', `/v1/review-queues/${q.id}/items`, { responseIds: singles.slice(0, 6).map((s) => s.id) });
    const [a, b] = [await login(ben.key), await login(cy.key)];
    await Promise.all([a.page.goto(`${url}/#/review/${q.id}`), b.page.goto(`${url}/#/review/${q.id}`)]);
    const seen: Record<string, string[]> = { ben: [], cy: [] };
    let [ia, ib] = await Promise.all([shown(a.page), shown(b.page)]);
    for (let round = 0; round < 3; round++) {
      expect(ia).not.toBe('');
      expect(ib).not.toBe('');
      expect(ia).not.toBe(ib);
      seen.ben?.push(ia);
      seen.cy?.push(ib);
      await Promise.all([a.page.keyboard.press('1'), b.page.keyboard.press('3')]);
      await Promise.all([a.page.keyboard.press('Control+Enter'), b.page.keyboard.press('Control+Enter')]);
      [ia, ib] = await Promise.all([shown(a.page, ia), shown(b.page, ib)]);
    }
    // Six items, three each, none twice; then nothing is left for either.
    expect(new Set([...(seen.ben ?? []), ...(seen.cy ?? [])]).size).toBe(6);
    expect(await a.page.getAttribute('.review-screen', 'data-state')).toBe('empty');
    expect(await b.page.getAttribute('.review-screen', 'data-state')).toBe('empty');
    const items = (await call('GET', `/v1/review-queues/${q.id}/items?limit=50`)) as { data: Array<{ id: string; reviews: number }>; progress: { done: number } };
    expect(items.data.map((i) => i.reviews)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(items.progress.done).toBe(6);
    for (const id of seen.ben ?? []) expect((await stored(q.id, id, 'ben')).myReview?.label).toBe('approved');
    for (const id of seen.cy ?? []) expect((await stored(q.id, id, 'cy')).myReview?.label).toBe('rejected');
    await b.page.screenshot({ path: join(SHOTS, 'review-screen-empty-1280.png'), fullPage: true });
    expect([...a.errors, ...b.errors]).toEqual([]);
    await a.context.close();
    await b.context.close();
  }, 180_000);

  it('shows a pairwise item in each reviewer\'s own order, and stores the response chosen, not its position', async () => {
    const q = await queue({ name: 'HH-RLHF pairs', kind: 'pairwise', reviewersPerItem: 2, instructions: 'Prefer the **harmless** answer.' });
    await call('POST', `/v1/review-queues/${q.id}/items`, { pairs });
    const first = ((await call('GET', `/v1/review-queues/${q.id}/items`)) as { data: Array<{ id: string; responseId: string; responseBId: string }> }).data[0];
    if (!first) throw new Error('no pairwise item');
    // Two reviewers whose randomized orders of the first item differ (the order is a hash of item and reviewer).
    const names = ['pat', ...Array.from({ length: 40 }, (_, i) => `quinn-${i}`)];
    const orderOf = (n: string) => pairOrder(first.id, n, first.responseId, first.responseBId)[0];
    const other = names.find((n) => orderOf(n) !== orderOf('pat'));
    if (!other) throw new Error('no reviewer name with the other order');
    const [pat, quinn] = [await reviewer('pat'), await reviewer(other)];
    await call('PATCH', `/v1/review-queues/${q.id}`, { members: [pat.id, quinn.id] });

    const seen: Array<{ name: string; order: string[]; key: 'a' | 'b' }> = [];
    for (const [who, key, shot] of [[pat, 'a', '1280'], [quinn, 'a', 'phone']] as const) {
      const { page, errors, context } = await login(who.key, shot === '1280' ? 1280 : 390, shot === '1280' ? 900 : 844);
      await page.goto(`${url}/#/review/${q.id}`);
      expect(await shown(page)).toBe(first.id);
      const order = await page.locator('.answer').evaluateAll((els) => els.map((e) => e.getAttribute('data-response') ?? ''));
      expect(await page.locator('.answer h3').allTextContents()).toEqual(['Answer A', 'Answer B']);
      await page.keyboard.press(key);
      expect(await page.isChecked('input[name=preferred][data-position=A]')).toBe(true);
      await page.screenshot({ path: join(SHOTS, `review-pairwise-${shot}.png`), fullPage: true });
      if (shot === 'phone') await noSideways(page);
      await page.keyboard.press('Control+Enter');
      await shown(page, first.id);
      seen.push({ name: who === pat ? 'pat' : other, order, key });
      expect(errors).toEqual([]);
      await context.close();
    }
    expect(seen[0]?.order).toEqual(pairOrder(first.id, 'pat', first.responseId, first.responseBId));
    expect(seen[1]?.order).toEqual([...(seen[0]?.order ?? [])].reverse());
    // Both pressed `a` (the answer on the left), so they preferred different responses: the
    // stored verdict names each one's left answer by id, with the order each was shown.
    for (const s of seen) {
      const mine = (await stored(q.id, first.id, s.name)).myReview;
      expect(mine?.label).toBe(s.order[0]);
      expect(mine?.body.preferred).toBe(s.order[0]);
      expect(mine?.firstResponseId).toBe(s.order[0]);
    }
    expect((await stored(q.id, first.id, 'pat')).myReview?.label).not.toBe((await stored(q.id, first.id, other)).myReview?.label);

    // The agreement panel: both preferred the answer shown first, so position bias is 2 of 2.
    const report = await call('GET', `/v1/review-queues/${q.id}/agreement`);
    expect(report.positionBias).toMatchObject({ share: 1, n: 2, firstWins: 2 });
    const admin = await login(t.secretKey);
    await admin.page.goto(`${url}/#/queues/${q.id}`);
    await admin.page.waitForSelector('table[aria-label=Agreement]');
    const row = (await admin.page.textContent('table[aria-label=Agreement] tr:has-text("Position bias")')) ?? '';
    expect(row).toContain(`${(100 * report.positionBias.share).toFixed(1)} %`);
    expect(row).toContain(`${(100 * report.positionBias.low).toFixed(1)} % to ${(100 * report.positionBias.high).toFixed(1)} %`);
    expect(row).toContain(`${report.positionBias.n} decided comparisons`);
    expect(admin.errors).toEqual([]);
    await admin.context.close();
  }, 180_000);

  it('shows a queue\'s agreement with the figures of GET /v1/review-queues/:id/agreement', async () => {
    const [eli, fox] = [await reviewer('eli'), await reviewer('fox')];
    const q = await queue({ name: 'Agreement', members: [eli.id, fox.id], reviewersPerItem: 2, rubric: { qualityScores: true } });
    await call('POST', `/v1/review-queues/${q.id}/items`, { responseIds: singles.map((s) => s.id) });
    // Twelve items, both reviewers on each: they agree on nine verdicts; accuracy scores differ a little.
    const verdicts = ['approved', 'rejected', 'changes_requested'];
    for (let i = 0; i < singles.length; i++) {
      for (const [name, shift] of [['eli', 0], ['fox', i % 4 === 3 ? 1 : 0]] as const) {
        const screen = (await call('POST', `/v1/review-queues/${q.id}/next`, { reviewer: name })) as Screen;
        const verdict = verdicts[(i + shift) % 3];
        await call('POST', `/v1/review-queues/${q.id}/items/${screen.item.id}/reviews`, { reviewer: name, verdict, qualityScores: { accuracy: 50 + 3 * i + (name === 'fox' ? 5 : 0) } });
      }
    }
    const report = await call('GET', `/v1/review-queues/${q.id}/agreement`);
    expect(report.items).toEqual({ reviewed: 12, withTwoOrMore: 12 });
    expect(report.percentAgreement.value).toBeCloseTo(0.75, 10);
    const { page, errors, context } = await login(t.secretKey);
    await page.goto(`${url}/#/queues/${q.id}`);
    await page.waitForSelector('table[aria-label=Agreement]');
    const coef = (x: number | null) => (x === null ? '–' : x.toFixed(2));
    const share = (x: number | null) => (x === null ? '–' : `${(100 * x).toFixed(1)} %`);
    const rowOf = async (label: string) => (await page.textContent(`table[aria-label=Agreement] tr:has-text("${label}")`)) ?? '';
    const agrees = async (label: string, e: { value: number | null; low: number | null; high: number | null; n: number }, f: (x: number | null) => string) => {
      const text = await rowOf(label);
      expect(text, label).toContain(f(e.value));
      expect(text, label).toContain(e.low === null ? 'no interval' : `${f(e.low)} to ${f(e.high)}`);
      expect(text, label).toContain(`${e.n} items`);
    };
    expect(await page.textContent('[data-figure=withTwoOrMore]')).toBe(String(report.items.withTwoOrMore));
    await agrees('Percent agreement', report.percentAgreement, share);
    await agrees("Fleiss' kappa", report.fleissKappa, coef);
    await agrees("Krippendorff's alpha (verdicts", report.krippendorffAlpha.labels, coef);
    await agrees("Krippendorff's alpha (accuracy", report.krippendorffAlpha.scores.find((x: { name: string }) => x.name === 'accuracy'), coef);
    await agrees("Cohen's kappa: eli and fox", report.cohenKappa[0], coef);
    for (const r of report.reviewers as Array<{ reviewer: string; itemsDone: number; agreementWithMajority: { rate: number | null; n: number } }>) {
      const text = (await page.textContent(`tr[data-reviewer="${r.reviewer}"]`)) ?? '';
      expect(text).toContain(`${r.reviewer}${r.itemsDone}`);
      expect(text).toContain(share(r.agreementWithMajority.rate));
      expect(text).toContain(`n ${r.agreementWithMajority.n}`);
    }
    // The progress card agrees with the queue's own figures.
    const progress = (await call('GET', `/v1/review-queues/${q.id}`)).progress;
    expect(await page.textContent('[data-figure=progress]')).toBe(`${progress.done} of ${progress.total} items done · ${progress.inProgress} in progress · ${progress.pending} pending`);
    await page.locator('table[aria-label=Agreement]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'review-agreement-1280.png'), fullPage: true });
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await phone.page.goto(`${url}/`);
    await phone.page.fill('#key', t.secretKey);
    await phone.page.click('button[type=submit]');
    await phone.page.waitForSelector('nav');
    await phone.page.goto(`${url}/#/queues/${q.id}`);
    await phone.page.waitForSelector('table[aria-label=Agreement]');
    await noSideways(phone.page);
    await phone.page.screenshot({ path: join(SHOTS, 'review-agreement-phone.png'), fullPage: true });
    expect([...errors, ...phone.errors]).toEqual([]);
    await phone.context.close();
    await context.close();
  }, 180_000);

  it('makes a queue in its settings and fills it from the Responses list: selected rows, then all matching a filter', async () => {
    const dee = await reviewer('dee');
    const { page, errors, context } = await login(t.secretKey);
    await page.goto(`${url}/#/review`);
    await page.click('text=New queue');
    await page.fill('input[name=name]', 'SQL answers');
    await page.fill('textarea[name=instructions]', 'Check the **query** runs.');
    await page.check('input[name=rubric-qualityScores]');
    await page.fill('input[name=reviewersPerItem]', '2');
    await page.check(`input[name=member][value="${dee.id}"]`);
    await page.click('text=Add a rule');
    await page.selectOption('form[aria-label="Rule filter"] select[name=rating]', 'negative');
    await page.click('form[aria-label="Rule filter"] button[type=submit]');
    await page.fill('input[name=sample-0]', '0.5');
    await page.click('button[form=queue-form]');
    await page.waitForURL(/#\/queues\/rq_/);
    const id = decodeURIComponent(page.url().split('#/queues/')[1] ?? '');
    const made = await call('GET', `/v1/review-queues/${id}`);
    expect(made).toMatchObject({ name: 'SQL answers', kind: 'single', reviewersPerItem: 2, members: [dee.id], rules: [{ filter: { rating: 'negative' }, sample: 0.5 }], rubric: { qualityScores: true } });
    await page.waitForSelector('[data-figure=progress]');
    expect(await page.textContent('[data-figure=progress]')).toBe('0 of 0 items done · 0 in progress · 0 pending');
    await page.screenshot({ path: join(SHOTS, 'review-queue-settings-1280.png'), fullPage: true });

    // Two selected rows of the Responses list.
    await page.goto(`${url}/#/responses?agent=sql`);
    await page.waitForSelector('table.responses tbody tr');
    expect(await page.locator('table.responses tbody tr').count()).toBe(4);
    await page.selectOption('#bulk-target', `queue:${id}`);
    await page.check('input[name=pick][value=rv-r8]');
    await page.check('input[name=pick][value=rv-r9]');
    await page.click('button:has-text("Add 2 selected")');
    await page.waitForSelector('text=Queue SQL answers: 2 added, 0 already there.');
    // Then every response matching the filter (agent = sql): four, two of them there already.
    await page.click('button:has-text("Add all matching this filter")');
    await page.waitForSelector('text=Queue SQL answers: 2 added, 2 already there of 4 matching.');
    const items = (await call('GET', `/v1/review-queues/${id}/items`)) as { data: Array<{ responseId: string }>; progress: { total: number } };
    expect(items.data.map((i) => i.responseId).sort()).toEqual(['rv-r10', 'rv-r11', 'rv-r8', 'rv-r9']);
    await page.screenshot({ path: join(SHOTS, 'review-bulk-add-1280.png'), fullPage: true });
    await page.goto(`${url}/#/queues/${id}`);
    await page.waitForSelector('[data-figure=progress]');
    expect(await page.textContent('[data-figure=progress]')).toBe(`0 of ${items.progress.total} items done · 0 in progress · ${items.progress.total} pending`);
    expect(errors.filter((e) => !e.includes('404'))).toEqual([]);
    await context.close();
  }, 180_000);

  it('makes a dataset, adds responses to it from the Responses list, and shows its versions, items and exports', async () => {
    const { page, errors, context } = await login(t.secretKey, 1280, 900);
    await page.goto(`${url}/#/datasets`);
    await page.fill('#ds-name', 'support-sft');
    await page.fill('#ds-desc', 'Approved and corrected support answers');
    await page.click('form[aria-label="New dataset"] button[type=submit]');
    await page.waitForSelector('tr[data-dataset]');
    const [ds] = (await call('GET', '/v1/datasets')).datasets as Array<{ id: string; itemCount: number; latestVersion: number }>;
    expect(ds).toMatchObject({ itemCount: 0, latestVersion: 0 });

    await page.goto(`${url}/#/responses?agent=support`);
    await page.waitForSelector('table.responses tbody tr');
    await page.selectOption('#bulk-target', `dataset:${ds?.id}`);
    await page.check('input[name=pick][value=rv-r1]');
    await page.check('input[name=pick][value=rv-r2]');
    await page.click('button:has-text("Add 2 selected")');
    await page.waitForSelector('text=Dataset support-sft: 2 added, 0 already there.');
    await page.click('button:has-text("Add all matching this filter")');
    await page.waitForSelector('text=Dataset support-sft: 6 added, 2 already there.');

    const detail = await call('GET', `/v1/datasets/${ds?.id}`);
    expect(detail).toMatchObject({ latestVersion: 2, itemCount: 8 });
    await page.goto(`${url}/#/datasets/${ds?.id}`);
    await page.waitForSelector('table.dataset-items tbody tr');
    expect(await page.textContent('[data-figure=latest]')).toBe(`${detail.itemCount} items in version ${detail.latestVersion} (the latest).`);
    const versions = await page.locator('table.versions tbody tr').allTextContents();
    expect(versions.length).toBe(detail.versions.length);
    expect(await page.locator('table.dataset-items tbody tr').count()).toBe(8);
    // Version 1 holds the two chosen first.
    await page.click('table.versions a:text-is("1")');
    await page.waitForFunction(() => document.querySelectorAll('table.dataset-items tbody tr').length === 2);
    const v1 = (await call('GET', `/v1/datasets/${ds?.id}/items?version=1`)).data.map((i: { responseId: string }) => i.responseId).sort();
    expect((await page.locator('table.dataset-items tbody td[data-label=Response]').allTextContents()).sort()).toEqual(v1);
    await page.screenshot({ path: join(SHOTS, 'datasets-detail-1280.png'), fullPage: true });
    // An export of version 1 downloads what the API streams for it.
    const [file] = await Promise.all([page.waitForEvent('download'), page.click('button:text-is("trl-sft")')]);
    expect(file.suggestedFilename()).toBe('support-sft-v1-trl-sft.jsonl');
    const body = await (await t.app.inject({ method: 'GET', url: `/v1/datasets/${ds?.id}/export/trl-sft?version=1`, headers: t.auth })).body;
    const path = await file.path();
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(path, 'utf8')).toBe(body);
    await page.goto(`${url}/#/datasets`);
    await page.waitForSelector(`tr[data-dataset="${ds?.id}"]`);
    expect(await page.textContent(`tr[data-dataset="${ds?.id}"] td[data-label=Items]`)).toBe('8');
    await page.screenshot({ path: join(SHOTS, 'datasets-1280.png'), fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  }, 180_000);
});
