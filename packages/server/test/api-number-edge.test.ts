import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

/** Paths of numbers with more than 6 significant digits (float noise such as 2.999999395903041). */
function longNumbers(body: unknown): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  const walk = (v: unknown, path: string): void => {
    if (typeof v === 'number' && Number(v.toPrecision(6)) !== v) out.push([path, v]);
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`));
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
  };
  walk(body, '');
  return out;
}

for (const backend of BACKENDS.slice(0, 1)) {
  describe.skipIf(!backend.available)(`numbers at the API edge on ${backend.name}`, () => {
    let t: TestApp;
    const post = (url: string, payload: unknown) => t.app.inject({ method: 'POST', url, headers: t.auth, payload: payload as object });
    const get = (url: string) => t.app.inject({ method: 'GET', url, headers: t.auth });

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), {}, { worker: true });
      await post('/v1/responses', { id: 'n-r1', query: 'what is our refund policy?', answer: 'Refunds are possible within 30 days of purchase for all items.' });
      const at = Date.now();
      await post('/v1/feedback/batch', {
        events: [
          // Decayed weights and edit-distance rewards are long floats until rounded at the edge.
          { id: 'n-e1', responseId: 'n-r1', type: 'thumbs_up', userId: 'u1', occurredAt: new Date(at - 3_333_333).toISOString() },
          { id: 'n-e2', responseId: 'n-r1', type: 'correction', userId: 'u2', occurredAt: new Date(at - 1_234_567).toISOString(), payload: { corrected: 'Refunds within 14 days, unused items only.' } },
          { id: 'n-e3', responseId: 'n-r1', type: 'rating', userId: 'u3', payload: { rating: 4 } },
        ],
      });
      await t.services.pipeline.idle(10_000);
    });
    afterAll(async () => {
      await t.close();
    });

    it('answers no float noise: every number has 6 significant digits at most', async () => {
      for (const url of ['/v1/responses/n-r1', '/v1/responses?limit=10', '/v1/stats', '/v1/users/u2/context', '/v1/insights']) {
        const res = await get(url);
        expect(res.statusCode, url).toBe(200);
        expect(longNumbers(res.json()), url).toEqual([]);
      }
    });
  });
}
