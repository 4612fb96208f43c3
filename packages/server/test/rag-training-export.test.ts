/**
 * Issue 24: `GET /api/rag/feedback/export` (Phase 4.1's TrainingExample) on both stores takes an
 * answer's context from its sources and context documents, and labels it by majority.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`Phase 4.1 training export on ${backend.name}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(await backend.open(), {}, { worker: true });
      const post = (url: string, payload: object) => t.app.inject({ method: 'POST', url, headers: t.auth, payload });
      const res = await post('/v1/responses/batch', {
        responses: [
          { id: 'm-good', query: 'Refund window?', answer: '30 days.', sources: ['https://docs.example/refunds'], contextDocumentIds: ['doc-7'] },
          { id: 'm-bad', query: 'refund  window?', answer: 'There is none.' },
          { id: 'm-split', query: 'Opening hours?', answer: '9 to 5.' },
        ],
      });
      expect(res.statusCode).toBe(207);
      const vote = (responseId: string, type: string, n: number) =>
        Array.from({ length: n }, (_, i) => ({ responseId, type, userId: `${responseId}-${type}-${i}` }));
      const events = [
        ...vote('m-good', 'thumbs_up', 26),
        ...vote('m-good', 'thumbs_down', 3),
        ...vote('m-bad', 'thumbs_down', 2),
        ...vote('m-split', 'thumbs_up', 3),
        ...vote('m-split', 'thumbs_down', 2),
      ];
      expect((await post('/v1/feedback/batch', { events })).statusCode).toBe(207);
      await t.services.pipeline.idle(20_000);
    }, 60_000);
    afterAll(async () => {
      await t.close();
    });

    it('keeps the 26-to-3 answer with its sources and documents as context; a 3-to-2 split stays out', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/rag/feedback/export?format=json', headers: t.auth });
      expect(res.statusCode).toBe(200);
      const examples = res.json() as Array<Record<string, unknown>>;
      expect(examples).toHaveLength(1);
      expect(examples[0]).toMatchObject({
        query: 'Refund window?',
        positiveAnswer: '30 days.',
        negativeAnswer: 'There is none.',
        context: ['https://docs.example/refunds', 'doc-7'],
      });
    });
  });
}
