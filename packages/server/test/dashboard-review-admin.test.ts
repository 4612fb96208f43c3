/**
 * Issue 27's review administration in the browser: a queue's agreement panel shows the figures of
 * `GET /v1/review-queues/:id/agreement`; a queue is made in its settings and filled from the
 * Responses list (selected rows and all matching a filter); a dataset gets responses from the
 * Responses list and shows its versions, items and exports. The fixture is
 * dashboard-review-fixture.ts; the screenshots go to docs/screenshots/.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { browser, call, login, noSideways, queue, reviewer, reviewDashboardAvailable, SHOTS, singles, t, url, useReviewDashboard, type Screen } from './dashboard-review-fixture.js';

describe.skipIf(!reviewDashboardAvailable())('dashboard: review administration', () => {
  useReviewDashboard();

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

  it("keeps a rule's filter chosen while its form is first drawn", async () => {
    // The filter form synced its draft to its props in an effect that also ran after its first
    // draw: a rating picked before that effect ran was set back to "any", and the queue above was
    // now and then saved with no filter. The observer picks the rating at that very moment.
    const { page, errors, context } = await login(t.secretKey);
    await page.goto(`${url}/#/review`);
    await page.click('text=New queue');
    await page.fill('input[name=name]', 'Picked at once');
    await page.evaluate(() => {
      new MutationObserver((_, observer) => {
        const select = document.querySelector<HTMLSelectElement>('form[aria-label="Rule filter"] select[name=rating]');
        if (!select) return;
        observer.disconnect();
        select.value = 'negative';
        select.dispatchEvent(new Event('change', { bubbles: true }));
      }).observe(document.body, { childList: true, subtree: true });
    });
    await page.click('text=Add a rule');
    await page.click('form[aria-label="Rule filter"] button[type=submit]');
    await page.click('button[form=queue-form]');
    await page.waitForURL(/#\/queues\/rq_/);
    const id = decodeURIComponent(page.url().split('#/queues/')[1] ?? '');
    expect((await call('GET', `/v1/review-queues/${id}`)).rules).toEqual([{ filter: { rating: 'negative' }, sample: 1 }]);
    expect(errors).toEqual([]);
    await context.close();
  });

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
