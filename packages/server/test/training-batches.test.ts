/**
 * Training batches on both stores: the threshold makes a batch (file written, events marked
 * `applied_to_training`, `training.batch_ready` delivered), a second run never repeats an event,
 * the listing and the file route are the workspace's own, and claimers running at once never share
 * an event; a scheduled run's batches are capped and paced (embedded: 100 a batch, so that its transaction
 * never holds the one connection long).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTrainingBatch, makeDueTrainingBatches, scheduledBatchMax, TRAINING_BATCH_MAX_EVENTS } from '../src/pipeline/training-batch-maker.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';
import { startReceiver } from './webhook-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'feedloop-batches-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const THRESHOLD = 50;

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`training batches (${backend.name})`, () => {
    let t: TestApp;
    const batchDir = join(dir, backend.name);
    beforeAll(async () => {
      t = await startTestApp(
        await backend.open(),
        { FEEDLOOP_TRAINING_BATCH_THRESHOLD: String(THRESHOLD), FEEDLOOP_TRAINING_BATCH_DIR: batchDir, FEEDLOOP_WEBHOOK_ALLOW_PRIVATE: 'true',
          // The job runs when the test calls it: the schedule's first run (at start) finds nothing, its next is a day away.
          FEEDLOOP_TRAINING_BATCH_INTERVAL_SECONDS: '86400' },
        { worker: true },
      );
    });
    afterAll(() => t?.close());

    /** Registers `n` responses and corrects each once; returns the pairs the corrections make. */
    async function correct(auth: { authorization: string }, tag: string, n: number): Promise<string[]> {
      const responses = Array.from({ length: n }, (_, i) => ({ id: `${tag}-${i}`, query: `question ${tag} ${i}?`, answer: `wrong ${i}` }));
      const r1 = await t.app.inject({ method: 'POST', url: '/v1/responses/batch', headers: auth, payload: { responses } });
      expect(r1.statusCode).toBe(207);
      const events = responses.flatMap((r, i) => [
        { id: `${r.id}-fix`, responseId: r.id, type: 'correction', userId: `u-${i}`, payload: { corrected: `right ${i}` } },
        { id: `${r.id}-down`, responseId: r.id, type: 'thumbs_down', userId: `u-${i}` },
      ]);
      const r2 = await t.app.inject({ method: 'POST', url: '/v1/feedback/batch', headers: auth, payload: { events } });
      expect(r2.statusCode).toBe(207);
      expect(r2.json().results.every((x: { status: string }) => x.status === 'accepted')).toBe(true);
      // Generous: 600 events on PGlite took 53 s on the shared 2-core machine under load.
      await t.services.pipeline.idle(180_000);
      // Each corrections row says it is one verified correction (issue 22).
      const provenance = { trust: 'verified', verifiedEvents: 1, unverifiedEvents: 0 };
      return responses.map((r, i) => JSON.stringify({ prompt: r.query, chosen: `right ${i}`, rejected: r.answer, provenance }));
    }

    it('the threshold makes one batch: file, marks, webhook; a second run repeats nothing', async () => {
      const receiver = await startReceiver(() => 200);
      const hook = await t.app.inject({ method: 'POST', url: '/v1/webhooks', headers: t.auth, payload: { url: receiver.url, events: ['training.batch_ready'] } });
      expect(hook.statusCode).toBe(201);

      const first = await correct(t.auth, 'a', THRESHOLD - 1);
      expect(await t.services.pipeline.trainingBatches()).toBe(0); // 49 unused: below the threshold
      const more = await correct(t.auth, 'b', 11);
      expect(await t.services.pipeline.trainingBatches()).toBe(1);

      const list = (await t.app.inject({ method: 'GET', url: '/v1/training-batches', headers: t.auth })).json().batches;
      expect(list).toHaveLength(1);
      const [batch] = list;
      expect(batch).toMatchObject({ kind: 'corrections', format: 'trl-dpo', eventCount: 60, rowCount: 60 });
      expect(batch.file).toBe(join(batchDir, t.workspaceId, `${batch.id}.jsonl`));
      const lines = readFileSync(batch.file, 'utf8').split('\n').filter(Boolean);
      expect(lines.sort()).toEqual([...first, ...more].sort());
      const served = await t.app.inject({ method: 'GET', url: `/v1/training-batches/${batch.id}/file`, headers: t.auth });
      expect(served.statusCode).toBe(200);
      expect(served.body.split('\n').filter(Boolean).sort()).toEqual(lines.sort());

      const marks = await t.db.query<{ batch: string | null; n: number }>(
        `SELECT applied_to_training AS batch, count(*)::int AS n FROM feedback_events WHERE workspace_id = $1 GROUP BY 1 ORDER BY 1`,
        [t.workspaceId],
      );
      expect(marks).toEqual([
        { batch: batch.id, n: 60 },
        { batch: null, n: 60 }, // the thumbs are not examples of this kind
      ]);

      // Nothing unused is left: neither the job nor a batch on demand repeats an event.
      expect(await t.services.pipeline.trainingBatches()).toBe(0);
      expect((await t.app.inject({ method: 'POST', url: '/v1/training-batches', headers: t.auth })).statusCode).toBe(204);
      const few = await correct(t.auth, 'c', 3);
      const onDemand = await t.app.inject({ method: 'POST', url: '/v1/training-batches', headers: t.auth });
      expect(onDemand.statusCode).toBe(201);
      expect(onDemand.json()).toMatchObject({ eventCount: 3, rowCount: 3 });
      expect(readFileSync(onDemand.json().file, 'utf8').split('\n').filter(Boolean).sort()).toEqual(few.sort());

      // The message went out once per batch, with a stable id.
      await t.services.pipeline.idle(30_000);
      const deadline = Date.now() + 20_000;
      while (receiver.requests.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const messages = receiver.requests.map((q) => JSON.parse(q.body));
      expect(messages.map((m) => m.id).sort()).toEqual([`training.batch_ready:${batch.id}`, `training.batch_ready:${onDemand.json().id}`].sort());
      expect(messages.find((m) => m.data.batchId === batch.id)).toMatchObject({ type: 'training.batch_ready', workspaceId: t.workspaceId, data: { eventCount: 60, rowCount: 60, format: 'trl-dpo' } });
      await receiver.close();
    }, 120_000);

    it('a workspace sees only its own batches', async () => {
      const other = await t.otherWorkspace();
      const auth = { authorization: `Bearer ${other.secretKey}` };
      const [mine] = (await t.app.inject({ method: 'GET', url: '/v1/training-batches', headers: t.auth })).json().batches;
      expect((await t.app.inject({ method: 'GET', url: '/v1/training-batches', headers: auth })).json()).toEqual({ batches: [] });
      for (const url of [`/v1/training-batches/${mine.id}`, `/v1/training-batches/${mine.id}/file`]) {
        const r = await t.app.inject({ method: 'GET', url, headers: auth });
        expect(r.statusCode).toBe(404);
        expect(r.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_TRAINING_BATCH_NOT_FOUND', field: 'id' });
      }
      const bad = await t.app.inject({ method: 'GET', url: '/v1/training-batches/x%00y', headers: t.auth });
      expect(bad.statusCode).toBe(400);
      expect((await t.app.inject({ method: 'GET', url: '/v1/training-batches', headers: { authorization: `Bearer ${t.publicKey}` } })).statusCode).toBe(403);
    });

    it('a tie (the corrected text the same as the text corrected) never becomes a line', async () => {
      const other = await t.otherWorkspace();
      const auth = { authorization: `Bearer ${other.secretKey}` };
      const responses = ['same-answer', 'same-original', 'same-trimmed', 'real'].map((id) => ({ id: `tie-${id}`, query: `question ${id}?`, answer: 'the answer' }));
      expect((await t.app.inject({ method: 'POST', url: '/v1/responses/batch', headers: auth, payload: { responses } })).statusCode).toBe(207);
      const events = [
        { id: 'tie-1', responseId: 'tie-same-answer', type: 'correction', userId: 'u-1', payload: { corrected: 'the answer' } },
        { id: 'tie-2', responseId: 'tie-same-original', type: 'correction', userId: 'u-2', payload: { original: 'SELECT 1', corrected: 'SELECT 1' } },
        { id: 'tie-3', responseId: 'tie-same-trimmed', type: 'correction', userId: 'u-3', payload: { corrected: '  the answer\n' } },
        { id: 'tie-4', responseId: 'tie-real', type: 'correction', userId: 'u-4', payload: { corrected: 'the right answer' } },
      ];
      const sent = await t.app.inject({ method: 'POST', url: '/v1/feedback/batch', headers: auth, payload: { events } });
      expect(sent.json().results.map((x: { status: string }) => x.status)).toEqual(['accepted', 'accepted', 'accepted', 'accepted']);
      await t.services.pipeline.idle(60_000);

      const made = await createTrainingBatch(t.db, { workspaceId: other.workspaceId, kind: 'corrections', minEvents: 1, dir: batchDir, stream: false });
      // All four corrections are claimed (each is in the batch once); only the real one is a line.
      expect(made?.batch).toMatchObject({ eventCount: 4, rowCount: 1 });
      const real = { prompt: 'question real?', chosen: 'the right answer', rejected: 'the answer', provenance: { trust: 'verified', verifiedEvents: 1, unverifiedEvents: 0 } };
      expect(readFileSync(made?.batch.file as string, 'utf8')).toBe(`${JSON.stringify(real)}\n`);
      const served = await t.app.inject({ method: 'GET', url: `/v1/training-batches/${made?.batch.id}/file`, headers: auth });
      expect(served.body).toBe(`${JSON.stringify(real)}\n`);
    }, 120_000);

    it('claimers running at once never share an event, and together take every one', async () => {
      const other = await t.otherWorkspace();
      const auth = { authorization: `Bearer ${other.secretKey}` };
      const expected = await correct(auth, 'race', 300);
      // Six loops, each making batches of up to 7 events until none is left, at once (on Postgres
      // each transaction on its own connection).
      const loop = async () => {
        const made = [];
        for (;;) {
          const created = await createTrainingBatch(t.db, { workspaceId: other.workspaceId, kind: 'corrections', minEvents: 1, maxEvents: 7, dir: batchDir, stream: false });
          if (!created) return made;
          made.push(created.batch);
        }
      };
      const batches = (await Promise.all(Array.from({ length: 6 }, loop))).flat();
      expect(batches.reduce((n, b) => n + b.eventCount, 0)).toBe(300);
      const rows = batches.flatMap((b) => readFileSync(b.file as string, 'utf8').split('\n').filter(Boolean));
      expect(rows).toHaveLength(300);
      expect(new Set(rows).size).toBe(300);
      expect(rows.sort()).toEqual(expected.sort());
      const [unused] = await t.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM feedback_events WHERE workspace_id = $1 AND type = 'correction' AND applied_to_training IS NULL`,
        [other.workspaceId],
      );
      expect(unused?.n).toBe(0);
    }, 300_000);

    it("a scheduled run makes batches of at most its cap (embedded: 100 or the threshold), each of at least the threshold", async () => {
      expect([scheduledBatchMax('pglite', 50), scheduledBatchMax('pglite', 800), scheduledBatchMax('postgres', 50)]).toEqual([100, 800, TRAINING_BATCH_MAX_EVENTS]);
      const other = await t.otherWorkspace();
      await correct({ authorization: `Bearer ${other.secretKey}` }, 'cap', 12);
      const made: number[] = [];
      const count = await makeDueTrainingBatches(t.db, { kinds: ['corrections'], threshold: 4, maxEvents: 5, dir: batchDir, stream: false }, async (created) => {
        made.push(created.batch.eventCount);
      });
      // 12 unused: two batches of 5; the 2 left are below the threshold and wait for more.
      expect(count).toBe(2);
      expect(made).toEqual([5, 5]);
      const [unused] = await t.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM feedback_events WHERE workspace_id = $1 AND type = 'correction' AND applied_to_training IS NULL`,
        [other.workspaceId],
      );
      expect(unused?.n).toBe(2);
    }, 120_000);
  });
}
