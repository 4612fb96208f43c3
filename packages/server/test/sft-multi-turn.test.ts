/**
 * Multi-turn SFT on both stores: a rated or corrected answer that is a later turn of a session
 * exports (`openai-chat`, and an `sft` training batch) with the session's earlier turns as
 * context, their answers `weight: 0`, and only itself `weight: 1`; the validator finds the rows
 * valid. A response without a session stays one turn.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'feedloop-multi-turn-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A JSONL row without its `provenance`. */
function withoutProvenance(line: string): { messages: { content: string }[] } {
  const { provenance: _provenance, ...row } = JSON.parse(line) as { messages: { content: string }[]; provenance?: unknown };
  return row;
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`multi-turn SFT (${backend.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(await backend.open(), { FEEDLOOP_TRAINING_BATCH_DIR: join(dir, backend.name), FEEDLOOP_TRAINING_BATCH_INTERVAL_SECONDS: '86400' }, { worker: true });
    });
    afterAll(() => t?.close());

    it('earlier turns of the session are weight 0, the rated answer weight 1', async () => {
      // Minutes ago, inside the feedback window.
      const at = (min: number) => new Date(Date.now() - (10 - min) * 60_000).toISOString();
      const responses = [
        { id: 't1', sessionId: 's-1', query: 'Sales in April?', answer: 'SELECT 10', createdAt: at(0) },
        { id: 't2', sessionId: 's-1', query: 'Per region?', answer: 'GROUP BY region', createdAt: at(1) },
        { id: 't3', sessionId: 's-1', query: 'And in May?', answer: 'SELECT 11', createdAt: at(2) },
        { id: 'other', sessionId: 's-2', query: 'Unrelated?', answer: 'Yes', createdAt: at(3) },
        { id: 'single', query: 'Alone?', answer: 'Alone.', createdAt: at(4) },
      ];
      expect((await t.app.inject({ method: 'POST', url: '/v1/responses/batch', headers: t.auth, payload: { responses } })).statusCode).toBe(207);
      const events = [
        { id: 'fix-t3', responseId: 't3', type: 'correction', userId: 'u1', payload: { corrected: 'SELECT 12' } },
        { id: 'up-t2', responseId: 't2', type: 'thumbs_up', userId: 'u1' },
        { id: 'up-single', responseId: 'single', type: 'thumbs_up', userId: 'u1' },
      ];
      const sent = await t.app.inject({ method: 'POST', url: '/v1/feedback/batch', headers: t.auth, payload: { events } });
      expect(sent.json().results.every((r: { status: string }) => r.status === 'accepted')).toBe(true);
      await t.services.pipeline.idle(60_000);

      const expected = [
        {
          messages: [
            { role: 'user', content: 'Sales in April?' },
            { role: 'assistant', content: 'SELECT 10', weight: 0 },
            { role: 'user', content: 'Per region?' },
            { role: 'assistant', content: 'GROUP BY region', weight: 0 },
            { role: 'user', content: 'And in May?' },
            { role: 'assistant', content: 'SELECT 12', weight: 1 },
          ],
        },
        {
          messages: [
            { role: 'user', content: 'Sales in April?' },
            { role: 'assistant', content: 'SELECT 10', weight: 0 },
            { role: 'user', content: 'Per region?' },
            { role: 'assistant', content: 'GROUP BY region', weight: 1 },
          ],
        },
        { messages: [{ role: 'user', content: 'Alone?' }, { role: 'assistant', content: 'Alone.', weight: 1 }] },
      ];
      const byLast = (rows: { messages: { content: string }[] }[]) => [...rows].sort((a, b) => (a.messages.at(-1)?.content ?? '').localeCompare(b.messages.at(-1)?.content ?? ''));

      const exported = await t.app.inject({ method: 'GET', url: '/v1/exports/openai-chat', headers: t.auth });
      expect(exported.statusCode).toBe(200);
      // Rows carry their provenance (issue 22, poisoning.test.ts); the rest is compared here.
      const rows = exported.body.split('\n').filter(Boolean).map(withoutProvenance);
      expect(byLast(rows)).toEqual(byLast(expected));

      const report = (await t.app.inject({ method: 'GET', url: '/v1/exports/openai-chat?validate=true', headers: t.auth })).json();
      expect(report).toMatchObject({ rows: 3, valid: 3, errors: {} });

      // The sft batch writes the same rows.
      const batch = await t.app.inject({ method: 'POST', url: '/v1/training-batches?kind=sft', headers: t.auth });
      expect(batch.statusCode).toBe(201);
      const batchRows = readFileSync(batch.json().file, 'utf8').split('\n').filter(Boolean).map(withoutProvenance);
      expect(byLast(batchRows)).toEqual(byLast(expected));
    }, 120_000);
  });
}
