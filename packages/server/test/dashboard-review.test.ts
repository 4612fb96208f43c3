/**
 * Issue 27's reviewing screen in the browser: a reviewer key logs in and sees only the Review
 * pages; a reviewer reviews five items with the keyboard alone; two reviewer sessions at once never
 * hold the same item; a reviewer sent to a queue while the Review page is first drawn lands on
 * its screen; a pairwise item (HH-RLHF's chosen and rejected answers) is shown in a
 * different order to two reviewers and the stored verdict names the response the reviewer chose,
 * not a position. The fixture is dashboard-review-fixture.ts; the screenshots at 1280 and 390 px go
 * to docs/screenshots/review-*.png.
 */
import { join } from 'node:path';
import { pairOrder } from '@feedloop/core';
import { describe, expect, it } from 'vitest';
import { browser, call, login, noSideways, pairs, queue, reviewer, reviewDashboardAvailable, SHOTS, shown, singles, stored, t, url, useReviewDashboard } from './dashboard-review-fixture.js';

describe.skipIf(!reviewDashboardAvailable())('dashboard: reviewing', () => {
  useReviewDashboard();

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

  it('opens the queue a reviewer is sent to while the Review page is first drawn', async () => {
    // The hash changes after the Review page's first render (its code is loaded on demand, so it
    // renders a moment after the shell) and before its effects run: it kept the queue list, and
    // the race test above failed now and then. The observer changes the hash at that very moment.
    const dee = await reviewer('dee');
    const q = await queue({ name: 'Straight in', members: [dee.id] });
    await call('POST', `/v1/review-queues/${q.id}/items`, { responseIds: singles.slice(0, 1).map((s) => s.id) });
    const items = (await call('GET', `/v1/review-queues/${q.id}/items`)) as { data: Array<{ id: string }> };
    const { page, errors, context } = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${url}/`);
    await page.fill('#key', dee.key);
    await page.evaluate((id) => {
      new MutationObserver((_, observer) => {
        if (!document.querySelector('section[aria-label="Queues"]')) return;
        observer.disconnect();
        location.hash = `#/review/${id}`;
      }).observe(document.body, { childList: true, subtree: true });
    }, q.id);
    await page.click('button[type=submit]');
    const landed = await page
      .waitForSelector('.review-screen[data-state=item]', { timeout: 10_000 })
      .then(() => page.getAttribute('.review-screen', 'data-item'))
      .catch(() => page.textContent('main'));
    expect(landed).toBe(items.data[0]?.id);
    expect(errors).toEqual([]);
    await context.close();
  });

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
});
