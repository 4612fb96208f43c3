/**
 * Issue 27's datasets on real data, on both stores: OASST assistant answers go through a review
 * queue whose `datasetId` names a dataset. The reviewer gives each answer the verdict its sibling
 * rank gives (rank 0 approved, the last rank rejected); an answer ranked between is corrected with
 * its best-ranked sibling's text. The queue's hook adds the approved and corrected answers,
 * a version each, and the dataset exports as trl-sft and trl-dpo lines computed here from the
 * source file, not from the server's rules. Also: a queue's `datasetId` must name a dataset.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportRecord } from '../src/cli/import-replay.js';
import { readOasst } from '../src/cli/import-oasst.js';
import { DATASETS_DIR, datasetsAvailable } from './datasets.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const hasData = datasetsAvailable();
const OASST = join(DATASETS_DIR, 'oasst-en100-trees/en_100_tree.jsonl');
/** Ranked answers reviewed (whole sibling groups, so each has its rank-0 sibling when there is one). */
const ANSWERS = 60;

interface Reviewed {
  id: string;
  query: string;
  answer: string;
  verdict: 'approved' | 'changes_requested' | 'rejected';
  /** The best sibling's text, the correction of an answer ranked between the best and the worst. */
  correction?: string;
}

/** The first ranked answers of the file, in whole sibling groups, with what the reviewer will say. */
async function rankedAnswers(): Promise<Reviewed[]> {
  const records: ImportRecord[] = [];
  for await (const r of readOasst(OASST)) {
    if (!r.events.some((e) => e.type === 'review')) continue;
    const lastQuery = records.at(-1)?.response.query;
    if (records.length >= ANSWERS && r.response.query !== lastQuery) break;
    records.push(r);
  }
  const rank = (r: ImportRecord) => (r.events.find((e) => e.type === 'review')?.payload as { verdict: Reviewed['verdict'] }).verdict;
  const best = new Map<string, string>();
  for (const r of records) if (rank(r) === 'approved') best.set(r.response.query, r.response.answer);
  return records.map((r) => {
    const verdict = rank(r);
    // The middle ranks are corrected; the worst rank is rejected as it is.
    const correction = verdict === 'changes_requested' ? best.get(r.response.query) : undefined;
    return {
      id: r.response.id,
      query: r.response.query,
      answer: r.response.answer,
      verdict: correction === undefined ? verdict : 'changes_requested',
      ...(correction === undefined ? {} : { correction }),
    };
  });
}

/** A JSONL body's rows, without provenance. */
function jsonl(body: string): Array<Record<string, unknown>> {
  if (body === '') return [];
  expect(body.endsWith('\n')).toBe(true);
  return body
    .slice(0, -1)
    .split('\n')
    .map((line) => {
      const { provenance: _provenance, ...row } = JSON.parse(line) as Record<string, unknown>;
      return row;
    });
}

const sortRows = (rows: Array<Record<string, unknown>>) => rows.map((r) => JSON.stringify(r)).sort();

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available || !hasData)(`datasets on OASST through a review queue on ${backend.name}`, () => {
    let t: TestApp;
    const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown, headers: Record<string, string> = t.auth) =>
      t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

    beforeAll(async () => {
      t = await startTestApp(await backend.open());
    });
    afterAll(async () => {
      await t?.close();
    });

    it("refuses a queue's datasetId that names no dataset of the workspace, on create and on change", async () => {
      const bad = await call('POST', '/v1/review-queues', { name: 'q-bad', datasetId: 'ds_none' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field: 'datasetId' });
      const other = await t.otherWorkspace();
      const theirs = (await call('POST', '/v1/datasets', { name: 'theirs' }, { authorization: `Bearer ${other.secretKey}` })).json() as { id: string };
      expect((await call('POST', '/v1/review-queues', { name: 'q-foreign', datasetId: theirs.id })).json().error.field).toBe('datasetId');
      const q = await call('POST', '/v1/review-queues', { name: 'q-none' });
      expect(q.statusCode).toBe(201);
      const patched = await call('PATCH', `/v1/review-queues/${q.json().id}`, { datasetId: 'ds_none' });
      expect(patched.statusCode).toBe(400);
      expect(patched.json().error.field).toBe('datasetId');
      const mine = (await call('POST', '/v1/datasets', { name: 'mine' })).json() as { id: string };
      const ok = await call('PATCH', `/v1/review-queues/${q.json().id}`, { datasetId: mine.id });
      expect(ok.statusCode, ok.body).toBe(200);
      expect(ok.json().datasetId).toBe(mine.id);
      expect((await call('PATCH', `/v1/review-queues/${q.json().id}`, { datasetId: null })).json().datasetId).toBeNull();
    });

    it('adds the approved and corrected answers a review completes, and exports them as trl-sft and trl-dpo lines', async () => {
      const answers = await rankedAnswers();
      const corrected = answers.filter((a) => a.correction !== undefined);
      const approved = answers.filter((a) => a.verdict === 'approved');
      const rejected = answers.filter((a) => a.verdict !== 'approved' && a.correction === undefined);
      // The sample has each kind, or the test proves less than it says.
      expect(approved.length).toBeGreaterThan(5);
      expect(corrected.length).toBeGreaterThan(5);
      expect(rejected.length).toBeGreaterThan(0);

      const reg = await call('POST', '/v1/responses/batch', {
        responses: answers.map((a) => ({ id: a.id, query: a.query, answer: a.answer, agent: 'oasst' })),
      });
      expect(reg.json().results.filter((r: { status: string }) => r.status !== 'created')).toEqual([]);
      const dataset = (await call('POST', '/v1/datasets', { name: 'oasst-gold', description: 'Reviewed OASST answers' })).json() as { id: string };
      const key = await call('POST', '/v1/keys', { kind: 'reviewer', name: 'oasst-rev' });
      const reviewer = { id: key.json().id as string, key: key.json().key as string };
      const q = await call('POST', '/v1/review-queues', { name: 'oasst-to-dataset', members: [reviewer.id], datasetId: dataset.id });
      expect(q.statusCode, q.body).toBe(201);
      const queueId = q.json().id as string;
      expect((await call('POST', `/v1/review-queues/${queueId}/items`, { responseIds: answers.map((a) => a.id) })).statusCode).toBe(207);

      const byId = new Map(answers.map((a) => [a.id, a]));
      const bearer = { authorization: `Bearer ${reviewer.key}` };
      let reviewed = 0;
      for (;;) {
        const next = await call('POST', `/v1/review-queues/${queueId}/next`, {}, bearer);
        if (next.statusCode === 204) break;
        expect(next.statusCode, next.body).toBe(200);
        const a = byId.get(next.json().responses[0].id as string);
        if (!a) throw new Error('an item of no answer');
        const body = a.correction === undefined ? { verdict: a.verdict } : { verdict: a.verdict, correction: a.correction };
        const res = await call('POST', `/v1/review-queues/${queueId}/items/${next.json().item.id}/reviews`, body, bearer);
        expect(res.statusCode, res.body).toBe(201);
        reviewed++;
      }
      expect(reviewed).toBe(answers.length);

      // One version a completed item with an expected output, made by the queue; none for the rejected.
      const got = (await call('GET', `/v1/datasets/${dataset.id}`)).json();
      expect(got.itemCount).toBe(approved.length + corrected.length);
      expect(got.latestVersion).toBe(approved.length + corrected.length);
      for (const v of got.versions) expect(v).toMatchObject({ via: 'queue', queueId, added: 1, removed: 0, actorKeyId: null });
      const items = (await call('GET', `/v1/datasets/${dataset.id}/items?limit=500`)).json().data as Array<{ responseId: string; expectedSource: string; expectedOutput: string }>;
      expect(items.map((i) => i.responseId).sort()).toEqual([...approved, ...corrected].map((a) => a.id).sort());
      for (const i of items) {
        const a = byId.get(i.responseId);
        expect(i).toMatchObject(a?.correction === undefined ? { expectedSource: 'approved', expectedOutput: a?.answer } : { expectedSource: 'correction', expectedOutput: a.correction });
      }

      // trl-sft, every row: the prompt and its expected output.
      const sft = await call('GET', `/v1/datasets/${dataset.id}/export/trl-sft?dedup=false`);
      expect(sft.statusCode).toBe(200);
      const expectedSft = [...approved, ...corrected].map((a) => ({ prompt: a.query, completion: a.correction ?? a.answer }));
      expect(sortRows(jsonl(sft.body))).toEqual(sortRows(expectedSft));

      // trl-dpo, every pair: each correction over the answer it fixed, then per prompt the approved
      // answers paired one to one with the corrected (negatively judged) answers.
      const dpo = jsonl((await call('GET', `/v1/datasets/${dataset.id}/export/trl-dpo?dedup=false`)).body);
      const correctionPairs = corrected.filter((a) => a.correction?.trim() !== a.answer.trim()).map((a) => ({ prompt: a.query, chosen: a.correction, rejected: a.answer }));
      for (const pair of correctionPairs) expect(dpo).toContainEqual(pair);
      const prompts = new Set(answers.map((a) => a.query));
      let contrast = 0;
      for (const p of prompts) contrast += Math.min(approved.filter((a) => a.query === p).length, corrected.filter((a) => a.query === p).length);
      expect(dpo).toHaveLength(correctionPairs.length + contrast);
      for (const row of dpo) {
        expect(Object.keys(row).sort()).toEqual(['chosen', 'prompt', 'rejected']);
        expect(approved.some((a) => a.query === row.prompt && a.answer === row.chosen)).toBe(true);
        expect(corrected.some((a) => a.query === row.prompt && a.answer === row.rejected)).toBe(true);
      }
      // Validated as /v1/exports validates: every row valid.
      for (const format of ['trl-sft', 'trl-dpo', 'openai-chat', 'openai-preference', 'trl-kto']) {
        const report = (await call('GET', `/v1/datasets/${dataset.id}/export/${format}?validate=true&dedup=false`)).json();
        expect(report.rows, format).toBeGreaterThan(0);
        expect(report.valid, format).toBe(report.rows);
        expect(report.read.responses).toBe(approved.length + corrected.length);
      }
    });
  });
}
