/**
 * Training batches of every kind on both stores: claimers of all six kinds running at once put
 * every example in exactly one batch of each kind (an event serves several kinds, once in each),
 * the scheduled job makes the enabled kinds by each workspace's thresholds and sends one
 * `training.batch_ready` per batch naming its kind and format, and `?kind=` lists one kind.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TRAINING_BATCH_KIND_NAMES, type TrainingBatchKindName } from '@feedloop/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTrainingBatch } from '../src/pipeline/training-batch-maker.js';
import type { TrainingBatchView } from '../src/store/training-batches.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';
import { startReceiver } from './webhook-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'feedloop-batch-kinds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Auth = { authorization: string };

/** What `seed` sent, by the kinds each event is an example of. */
interface Seeded {
  byKind: Record<Exclude<TrainingBatchKindName, 'reward'>, Set<string>>;
  /** The KTO row each vote makes (its label and its answer). */
  ktoRows: string[];
}

/** A JSONL row without its `provenance` (checked in poisoning.test.ts), for comparing the rest. */
function withoutProvenance(line: string): string {
  const { provenance: _provenance, ...row } = JSON.parse(line) as Record<string, unknown>;
  return JSON.stringify(row);
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`training batches of every kind (${backend.name})`, () => {
    let t: TestApp;
    const batchDir = join(dir, backend.name);
    beforeAll(async () => {
      t = await startTestApp(
        await backend.open(),
        {
          FEEDLOOP_TRAINING_BATCH_THRESHOLD: '10',
          FEEDLOOP_TRAINING_BATCH_KINDS: 'corrections,kto,sft',
          FEEDLOOP_TRAINING_BATCH_DIR: batchDir,
          FEEDLOOP_WEBHOOK_ALLOW_PRIVATE: 'true',
          FEEDLOOP_TRAINING_BATCH_INTERVAL_SECONDS: '86400',
        },
        { worker: true },
      );
    });
    afterAll(() => t?.close());

    /**
     * `n` responses (pairs of them share a question), each with one vote, rating or correction,
     * and a label correction on every third; waits until the pipeline counted them.
     */
    async function seed(auth: Auth, tag: string, n: number): Promise<Seeded> {
      const responses = Array.from({ length: n }, (_, i) => ({ id: `${tag}-${i}`, query: `question ${tag} ${Math.floor(i / 2)}?`, answer: `answer ${tag} ${i}` }));
      const r1 = await t.app.inject({ method: 'POST', url: '/v1/responses/batch', headers: auth, payload: { responses } });
      expect(r1.statusCode).toBe(207);
      const byKind: Seeded['byKind'] = { corrections: new Set(), sft: new Set(), preference: new Set(), kto: new Set(), nli: new Set() };
      const ktoRows: string[] = [];
      const events: object[] = [];
      const add = (event: { id: string; responseId: string; type: string; targetId?: string; payload?: object }, kinds: (keyof Seeded['byKind'])[]) => {
        events.push({ userId: `u-${event.id}`, ...event });
        for (const k of kinds) byKind[k].add(event.id);
      };
      responses.forEach((r, i) => {
        const id = `${r.id}-e`;
        if (i % 4 === 0) {
          add({ id, responseId: r.id, type: 'thumbs_up' }, ['sft', 'preference', 'kto']);
          ktoRows.push(JSON.stringify({ prompt: r.query, completion: r.answer, label: true }));
        } else if (i % 4 === 1) {
          add({ id, responseId: r.id, type: 'thumbs_down' }, ['preference', 'kto']);
          ktoRows.push(JSON.stringify({ prompt: r.query, completion: r.answer, label: false }));
        } else if (i % 4 === 2) {
          const stars = (i % 5) + 1;
          add({ id, responseId: r.id, type: 'rating', payload: { rating: stars } }, stars >= 4 ? ['sft', 'preference', 'kto'] : stars <= 2 ? ['preference', 'kto'] : []);
          if (stars !== 3) ktoRows.push(JSON.stringify({ prompt: r.query, completion: r.answer, label: stars >= 4 }));
        } else {
          add({ id, responseId: r.id, type: 'correction', payload: { corrected: `fixed ${tag} ${i}` } }, ['corrections', 'sft', 'preference']);
        }
        if (i % 3 === 0) add({ id: `${r.id}-label`, responseId: r.id, type: 'correct_label', targetId: `claim-${i}`, payload: { correct_relation: 'supports', confidence: 0.8 } }, ['nli']);
      });
      const r2 = await t.app.inject({ method: 'POST', url: '/v1/feedback/batch', headers: auth, payload: { events } });
      expect(r2.statusCode).toBe(207);
      expect(r2.json().results.filter((x: { status: string }) => x.status !== 'accepted')).toEqual([]);
      await t.services.pipeline.idle(60_000);
      return { byKind, ktoRows };
    }

    /** The events of a workspace with a learning signal: the examples of `reward`. */
    async function rewardExamples(workspaceId: string): Promise<Set<string>> {
      const rows = await t.db.query<{ event_id: string }>(
        `SELECT event_id FROM feedback_signals WHERE workspace_id = $1 AND status = 'counted' AND learning_signal IS NOT NULL`,
        [workspaceId],
      );
      return new Set(rows.map((r) => r.event_id));
    }

    it('claimers of every kind at once: each example in exactly one batch of each kind, none left, none twice', async () => {
      const ws = await t.otherWorkspace();
      const seeded = await seed({ authorization: `Bearer ${ws.secretKey}` }, 'race', 120);
      const expected: Record<TrainingBatchKindName, Set<string>> = { ...seeded.byKind, reward: await rewardExamples(ws.workspaceId) };
      for (const kind of TRAINING_BATCH_KIND_NAMES) expect(expected[kind].size, kind).toBeGreaterThan(10);

      // Four loops a kind, all 24 at once, each making batches of up to 7 events until none is left.
      const loop = async (kind: TrainingBatchKindName): Promise<TrainingBatchView[]> => {
        const made: TrainingBatchView[] = [];
        for (;;) {
          const created = await createTrainingBatch(t.db, { workspaceId: ws.workspaceId, kind, minEvents: 1, maxEvents: 7, dir: batchDir, stream: false });
          if (!created) return made;
          made.push(created.batch);
        }
      };
      const loops = TRAINING_BATCH_KIND_NAMES.flatMap((kind) => Array.from({ length: 4 }, () => loop(kind).then((batches) => ({ kind, batches }))));
      const results = await Promise.all(loops);

      for (const kind of TRAINING_BATCH_KIND_NAMES) {
        const batches = results.filter((r) => r.kind === kind).flatMap((r) => r.batches);
        expect(batches.every((b) => b.kind === kind && b.eventCount >= 1 && b.eventCount <= 7), kind).toBe(true);
        // The batches' claims add up to the examples, and each example is in one batch: the claims
        // recorded are exactly the expected events, and their count equals the sum of the batches'.
        expect(batches.reduce((n, b) => n + b.eventCount, 0), kind).toBe(expected[kind].size);
        const claims = await t.db.query<{ event_id: string; batch_id: string }>(
          `SELECT event_id, batch_id FROM training_applied_events WHERE workspace_id = $1 AND kind = $2`,
          [ws.workspaceId, kind],
        );
        expect(new Set(claims.map((c) => c.event_id)), kind).toEqual(expected[kind]);
        expect(claims).toHaveLength(expected[kind].size);
        expect(new Set(claims.map((c) => c.batch_id))).toEqual(new Set(batches.map((b) => b.id)));
        // Nothing is left for another batch of this kind.
        expect(await createTrainingBatch(t.db, { workspaceId: ws.workspaceId, kind, minEvents: 1, dir: batchDir, stream: false }), kind).toBeNull();
      }

      const rowsOf = (kind: TrainingBatchKindName): string[] =>
        results.filter((r) => r.kind === kind).flatMap((r) => r.batches).flatMap((b) => readFileSync(b.file as string, 'utf8').split('\n').filter(Boolean)).map(withoutProvenance);
      // KTO: one row per decided vote, all of them, none twice.
      expect(rowsOf('kto').sort()).toEqual([...seeded.ktoRows].sort());
      // NLI: one sample per label correction, its confidence as weight.
      const nli = rowsOf('nli').map((l) => JSON.parse(l));
      expect(nli).toHaveLength(expected.nli.size);
      expect(nli.every((s) => s.label === 'supports' && s.weight === 0.8)).toBe(true);
      // Reward: each learning signal once.
      expect(rowsOf('reward')).toHaveLength(expected.reward.size);
      // SFT: every row an OpenAI chat example trained on its one assistant message.
      const sft = rowsOf('sft').map((l) => JSON.parse(l));
      expect(sft.length).toBeGreaterThan(0);
      for (const row of sft) expect(row.messages.filter((m: { weight?: number }) => m.weight === 1)).toHaveLength(1);
      // Corrections: a DPO pair per correction.
      expect(rowsOf('corrections')).toHaveLength(expected.corrections.size);
      // Preference: DPO pairs from corrections and from contrast pairs (the shared questions).
      const pairs = rowsOf('preference').map((l) => JSON.parse(l));
      expect(pairs.some((p) => p.chosen.startsWith('fixed'))).toBe(true);
      expect(pairs.some((p) => p.chosen.startsWith('answer') && p.rejected.startsWith('answer'))).toBe(true);
      for (const p of pairs) expect(p.chosen).not.toBe(p.rejected);
    }, 240_000);

    it('the job makes the enabled kinds by the workspace thresholds; one message per batch names kind and format', async () => {
      const receiver = await startReceiver(() => 200);
      const hook = await t.app.inject({ method: 'POST', url: '/v1/webhooks', headers: t.auth, payload: { url: receiver.url, events: ['training.batch_ready'] } });
      expect(hook.statusCode).toBe(201);
      const bad = await t.app.inject({ method: 'PATCH', url: '/v1/workspace/settings', headers: t.auth, payload: { trainingBatchThresholds: { bogus: 5 } } });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.field).toContain('trainingBatchThresholds');
      const set = await t.app.inject({ method: 'PATCH', url: '/v1/workspace/settings', headers: t.auth, payload: { trainingBatchThresholds: { kto: 5, sft: 1000 } } });
      expect(set.statusCode).toBe(200);
      expect(set.json().settings.trainingBatchThresholds).toEqual({ kto: 5, sft: 1000 });

      const seeded = await seed(t.auth, 'job', 40);
      expect(seeded.byKind.corrections.size).toBe(10); // the default threshold (env: 10)
      expect(await t.services.pipeline.trainingBatches()).toBe(2);
      const list = (await t.app.inject({ method: 'GET', url: '/v1/training-batches', headers: t.auth })).json().batches as TrainingBatchView[];
      // corrections (10 ≥ 10) and kto (≥ 5); sft is under its 1,000; preference and the others are not enabled.
      expect(list.map((b) => [b.kind, b.format, b.eventCount]).sort()).toEqual([
        ['corrections', 'trl-dpo', 10],
        ['kto', 'trl-kto', seeded.byKind.kto.size],
      ]);
      const kto = await t.app.inject({ method: 'GET', url: '/v1/training-batches?kind=kto', headers: t.auth });
      expect(kto.json().batches.map((b: TrainingBatchView) => b.kind)).toEqual(['kto']);
      expect((await t.app.inject({ method: 'GET', url: '/v1/training-batches?kind=nope', headers: t.auth })).statusCode).toBe(400);
      expect(await t.services.pipeline.trainingBatches()).toBe(0);

      // Exports of the unused: the votes of the kto batch are gone from ?unused=kto, not from ?unused=sft.
      const exportRows = async (query: string): Promise<string[]> => {
        const r = await t.app.inject({ method: 'GET', url: `/v1/exports/trl-kto?dedup=false&${query}`, headers: t.auth });
        expect(r.statusCode).toBe(200);
        return r.body.split('\n').filter(Boolean).map(withoutProvenance);
      };
      expect(await exportRows('unused=kto')).toEqual([]);
      expect((await exportRows('unused=sft')).sort()).toEqual([...seeded.ktoRows].sort());
      const badUnused = await t.app.inject({ method: 'GET', url: '/v1/exports/trl-kto?unused=dpo', headers: t.auth });
      expect(badUnused.statusCode).toBe(400);
      expect(badUnused.json().error.field).toBe('unused');

      // On demand, any kind: the preference examples, unclaimed so far, make a batch now.
      const now = await t.app.inject({ method: 'POST', url: '/v1/training-batches?kind=preference', headers: t.auth });
      expect(now.statusCode).toBe(201);
      expect(now.json()).toMatchObject({ kind: 'preference', format: 'trl-dpo', eventCount: seeded.byKind.preference.size });
      expect((await t.app.inject({ method: 'POST', url: '/v1/training-batches?kind=preference', headers: t.auth })).statusCode).toBe(204);

      await t.services.pipeline.idle(30_000);
      const deadline = Date.now() + 20_000;
      while (receiver.requests.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 300)); // a fourth would be a repeat
      const messages = receiver.requests.map((q) => JSON.parse(q.body));
      const ids = [...list.map((b) => b.id), now.json().id];
      expect(messages.map((m) => m.id).sort()).toEqual(ids.map((id) => `training.batch_ready:${id}`).sort());
      for (const m of messages) {
        const batch = [...list, now.json()].find((b) => b.id === m.data.batchId);
        expect(m).toMatchObject({ type: 'training.batch_ready', data: { kind: batch.kind, format: batch.format, eventCount: batch.eventCount } });
      }
      await receiver.close();
    }, 120_000);
  });
}
