/**
 * `/v1/experiments` over both stores: declaring, reading, validation, workspace isolation, a real
 * difference and a sample-ratio mismatch; and the Phase 4.1 FeedbackEntry tagging its response.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rescoreDirtyResponses } from '../src/pipeline/rescore.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`experiments API on ${backend.name}`, () => {
    let t: TestApp;
    const send = (method: 'GET' | 'PUT' | 'POST', url: string, payload?: unknown, headers: Record<string, string> = t.auth) =>
      t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

    /** Registers `count` responses of a variant, the first `positive` voted up and the next `negative` down. */
    const variant = async (experimentId: string, name: string, count: number, positive: number, negative: number) => {
      const ids = Array.from({ length: count }, (_, i) => `${experimentId}-${name}-${i}`);
      const res = await send('POST', '/v1/responses/batch', {
        responses: ids.map((id) => ({ id, query: `q ${id}`, answer: `a ${id}`, experimentId, variant: name })),
      });
      expect(res.statusCode).toBe(207);
      const events = ids.slice(0, positive + negative).map((id, i) => ({
        id: `ev-${id}`,
        responseId: id,
        type: i < positive ? 'thumbs_up' : 'thumbs_down',
        userId: `u-${id}`,
      }));
      if (events.length > 0) expect((await send('POST', '/v1/feedback/batch', { events })).statusCode).toBe(207);
    };

    /** Processing done and every dirty response rescored (the rescore keeps the experiment totals). */
    const settle = async () => {
      await t.services.pipeline.idle(20_000);
      await rescoreDirtyResponses(t.db);
    };

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), {}, { worker: true });
      // A real difference: 50 % against 90 % satisfaction on 150 rated responses each.
      await variant('exp-real', 'control', 150, 75, 75);
      await variant('exp-real', 'B', 150, 135, 15);
      // A skewed split with no declared weights: 100 against 200 responses.
      await variant('exp-srm', 'control', 100, 0, 0);
      await variant('exp-srm', 'B', 200, 0, 0);
      // Issue 24: 0 % against 80 % on 20 rated responses each (no relative lift exists).
      await variant('exp-zero', 'control', 20, 0, 20);
      await variant('exp-zero', 'B', 20, 16, 4);
      await settle();
    }, 120_000);
    afterAll(async () => {
      await t.close();
    });

    it('a real difference reads as "treatment is better", with every statistic beside it', async () => {
      const res = await send('GET', '/v1/experiments/exp-real');
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ id: 'exp-real', declared: false, control: 'control', metric: 'satisfaction', minSample: 100, verdict: 'treatment is better' });
      expect(body.variants.map((v: { variant: string; responses: number; rated: number; positive: number }) => [v.variant, v.responses, v.rated, v.positive])).toEqual([
        ['control', 150, 150, 75],
        ['B', 150, 150, 135],
      ]);
      // Rates in percent: 50 % with its Wilson interval.
      expect(body.variants[0].satisfaction.rate).toBeCloseTo(50, 10);
      expect(body.variants[0].satisfaction.lower).toBeLessThan(50);
      expect(body.variants[0].correctionRate).toBe(0);
      const [c] = body.comparisons;
      // (0.9 − 0.5) / 0.5 = 80 %.
      expect(c.lift).toBeCloseTo(80, 6);
      expect(c.sequential.ci[0]).toBeGreaterThan(0);
      // The always-valid interval is wider than the fixed-horizon one.
      expect(c.sequential.ci[0]).toBeLessThan(c.fixedHorizon.ci[0]);
      expect(c.fixedHorizon.pValue).toBeLessThan(0.001);
      expect(c.bayesian.chanceToWin).toBeGreaterThan(0.99);
      expect(body.sampleRatio.mismatch).toBe(false);
    });

    it('0 % against 80 % gets a verdict from the exact test, with the absolute difference; below minSample it is preliminary', async () => {
      const before = (await send('GET', '/v1/experiments/exp-zero')).json();
      expect(before.verdict).toBe('not enough data');
      expect(before.comparisons[0]).toMatchObject({ preliminary: true, lift: null, decidedBy: 'fisher_exact' });
      expect(before.comparisons[0].difference).toBeCloseTo(80, 6);
      expect((await send('PUT', '/v1/experiments/exp-zero', { minSample: 20 })).statusCode).toBe(200);
      const body = (await send('GET', '/v1/experiments/exp-zero')).json();
      expect(body.verdict).toBe('treatment is better');
      const [c] = body.comparisons;
      expect(c).toMatchObject({ preliminary: false, lift: null, decidedBy: 'fisher_exact', exact: { test: 'fisher' } });
      expect(c.exact.pValue).toBeLessThan(1e-6);
      expect(c.differenceCi[0]).toBeGreaterThan(0);
      await send('PUT', '/v1/experiments/exp-zero', {});
    });

    it('a skewed split is flagged as a sample ratio mismatch', async () => {
      const body = (await send('GET', '/v1/experiments/exp-srm')).json();
      expect(body.sampleRatio.mismatch).toBe(true);
      expect(body.sampleRatio.pValue).toBeLessThan(0.001);
      expect(body.verdict).toBe('sample ratio mismatch: results unreliable');
    });

    it('declaring the expected shares and another control changes the reading', async () => {
      const put = await send('PUT', '/v1/experiments/exp-srm', { control: 'control', weights: { control: 1, B: 2 } });
      expect(put.statusCode).toBe(200);
      expect(put.json()).toMatchObject({ id: 'exp-srm', control: 'control', weights: { control: 1, B: 2 }, metric: 'satisfaction', minSample: 100 });
      const body = (await send('GET', '/v1/experiments/exp-srm')).json();
      expect(body.declared).toBe(true);
      expect(body.sampleRatio.mismatch).toBe(false);
      expect(body.variants.map((v: { expectedShare: number }) => Math.round(v.expectedShare))).toEqual([33, 67]);
      // No ratings yet: nothing to decide on.
      expect(body.verdict).toBe('not enough data');

      expect((await send('PUT', '/v1/experiments/exp-real', { control: 'B', metric: 'correction_rate', minSample: 50 })).statusCode).toBe(200);
      const real = (await send('GET', '/v1/experiments/exp-real')).json();
      expect(real.variants.map((v: { variant: string }) => v.variant)).toEqual(['B', 'control']);
      // Neither variant has a correction: a rate of 0 carries no relative lift.
      expect(real.comparisons[0].lift).toBeNull();
      expect(real.verdict).toBe('no detectable difference yet');
      await send('PUT', '/v1/experiments/exp-real', {});
    });

    it('lists every experiment with its verdict', async () => {
      await send('PUT', '/v1/experiments/exp-declared-only', { metric: 'composite_score' });
      const body = (await send('GET', '/v1/experiments')).json();
      expect(body.experiments.map((e: { id: string; verdict: string; responses: number }) => [e.id, e.verdict, e.responses])).toEqual([
        ['exp-declared-only', 'not enough data', 0],
        ['exp-real', 'treatment is better', 300],
        ['exp-srm', 'not enough data', 300],
        ['exp-zero', 'not enough data', 40],
      ]);
    });

    it('refuses bad declarations with 400 naming the field, and changes nothing', async () => {
      const cases: Array<[unknown, string]> = [
        [{ metric: 'revenue' }, 'metric'],
        [{ weights: { A: 1, B: 1 } }, 'weights'],
        [{ weights: { control: 1 } }, 'weights'],
        [{ weights: { control: 1, B: -1 } }, 'weights.B'],
        [{ minSample: 1 }, 'minSample'],
        [{ control: '' }, 'control'],
        [{ colour: 'red' }, 'colour'],
      ];
      for (const [payload, field] of cases) {
        const res = await send('PUT', '/v1/experiments/exp-bad', payload);
        const { error } = res.json();
        expect({ status: res.statusCode, code: error.code, field: error.field }).toEqual({
          status: 400,
          code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD',
          field,
        });
      }
      expect((await send('GET', '/v1/experiments/exp-bad')).json().error.code).toBe('FEEDLOOP_ERR_EXPERIMENT_NOT_FOUND');
      expect((await send('GET', '/v1/experiments/nope')).statusCode).toBe(404);
    });

    it("a workspace never sees another's experiments", async () => {
      const other = await t.otherWorkspace();
      const headers = { authorization: `Bearer ${other.secretKey}` };
      expect((await send('GET', '/v1/experiments/exp-real', undefined, headers)).statusCode).toBe(404);
      expect((await send('GET', '/v1/experiments', undefined, headers)).json()).toEqual({ experiments: [] });
      // Its own declaration of the same id is its own.
      expect((await send('PUT', '/v1/experiments/exp-real', { control: 'B' }, headers)).statusCode).toBe(200);
      expect((await send('GET', '/v1/experiments/exp-real')).json().control).toBe('control');
      const theirs = (await send('GET', '/v1/experiments/exp-real', undefined, headers)).json();
      expect(theirs.variants.every((v: { responses: number }) => v.responses === 0)).toBe(true);
    });

    it("a Phase 4.1 entry's experimentId and variant tag a response that carries none, never one that does", async () => {
      await send('POST', '/v1/responses', { id: 'rag-untagged', query: 'q', answer: 'a' });
      await send('POST', '/v1/responses', { id: 'rag-tagged', query: 'q', answer: 'a', experimentId: 'exp-own', variant: 'A' });
      await send('POST', '/v1/responses', { id: 'rag-refused', query: 'q', answer: 'a' });
      const entry = (queryId: string, extra: Record<string, unknown> = {}) =>
        send('POST', '/api/rag/feedback', { queryId, rating: 'positive', experimentId: 'exp-rag', variant: 'B', ...extra });
      expect((await entry('rag-untagged')).statusCode).toBe(201);
      expect((await entry('rag-tagged')).statusCode).toBe(201);
      expect((await entry('rag-refused', { rating: 'meh' })).statusCode).toBe(400);
      const tags = async (id: string) => {
        const r = (await send('GET', `/v1/responses/${id}`)).json();
        return [r.experimentId, r.variant];
      };
      expect(await tags('rag-untagged')).toEqual(['exp-rag', 'B']);
      expect(await tags('rag-tagged')).toEqual(['exp-own', 'A']);
      expect(await tags('rag-refused')).toEqual([null, null]);
      await settle();
      const body = (await send('GET', '/v1/experiments/exp-rag')).json();
      expect(body.variants.find((v: { variant: string }) => v.variant === 'B')).toMatchObject({ responses: 1, rated: 1, positive: 1 });
    });

    it('a replaced vote moves the totals: a user who turns a thumbs up into a thumbs down is rated, not positive', async () => {
      await send('POST', '/v1/responses', { id: 'flip-1', query: 'q', answer: 'a', experimentId: 'exp-flip', variant: 'control' });
      await send('POST', '/v1/feedback', { id: 'flip-up', responseId: 'flip-1', type: 'thumbs_up', userId: 'u-flip' });
      await settle();
      const before = (await send('GET', '/v1/experiments/exp-flip')).json().variants[0];
      expect([before.rated, before.positive]).toEqual([1, 1]);
      await send('POST', '/v1/feedback', { id: 'flip-down', responseId: 'flip-1', type: 'thumbs_down', userId: 'u-flip' });
      await settle();
      const after = (await send('GET', '/v1/experiments/exp-flip')).json().variants[0];
      expect([after.responses, after.rated, after.positive]).toEqual([1, 1, 0]);
      expect(after.compositeScore).toBeLessThan(0);
    });
  });
}
