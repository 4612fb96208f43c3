/**
 * Issue 27's datasets through the HTTP API, on both stores: create and list, add by ids (207 per
 * id) and by the response list's filter, expected outputs (a correction, else an approved answer;
 * unverified feedback never), versions that never change once made (frozen items, removal as a
 * new version), item pages with a cursor, exports of a version in the training formats (validated
 * as /v1/exports), the audit log, and every refusal (field named, nothing stored).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const SQL_QUERY = 'What were sales last month?';
const SQL_ANSWER = 'SELECT * FROM sales';
const SQL_FIX = "SELECT * FROM sales WHERE region = 'US'";

interface Item {
  responseId: string;
  addedInVersion: number;
  query: string;
  answer: string;
  expectedOutput: string | null;
  expectedSource: 'correction' | 'approved' | null;
  expectedEventId: string | null;
}

/** A JSONL body's rows, without their provenance column. */
function jsonl(body: string): Record<string, unknown>[] {
  if (body === '') return [];
  expect(body.endsWith('\n')).toBe(true);
  return body
    .slice(0, -1)
    .split('\n')
    .map((line) => {
      const { provenance, ...rest } = JSON.parse(line) as Record<string, unknown>;
      expect(provenance).toMatchObject({ trust: 'verified' });
      return rest;
    });
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`datasets API on ${backend.name}`, () => {
    let t: TestApp;
    const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = t.auth) =>
      t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    const create = async (name: string) => {
      const res = await call('POST', '/v1/datasets', { name, description: `${name} set` });
      expect(res.statusCode, res.body).toBe(201);
      return res.json() as { id: string; latestVersion: number; itemCount: number };
    };
    const items = async (id: string, query = ''): Promise<Item[]> => {
      const res = await call('GET', `/v1/datasets/${id}/items?limit=500${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data as Item[];
    };
    const rows = async (url: string) => {
      const res = await call('GET', url);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
      return jsonl(res.body);
    };
    const tableCount = async (table: string) =>
      (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE workspace_id = $1`, [t.workspaceId]))[0]?.n;

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), {}, { worker: true });
      const res = await call('POST', '/v1/responses/batch', {
        responses: [
          { id: 'd-fix', query: SQL_QUERY, answer: SQL_ANSWER, agent: 'sql', model: 'gpt-4o', contextDocumentIds: ['schema:sales'] },
          { id: 'd-ok', query: 'Top customers?', answer: 'Acme and Globex.', agent: 'chat' },
          { id: 'd-bad', query: '  top   CUSTOMERS? ', answer: 'I do not know.', agent: 'chat' },
          { id: 'd-rej', query: 'Refund policy?', answer: 'Maybe.', agent: 'chat' },
          { id: 'd-pub', query: 'Opening hours?', answer: '9 to 5.', agent: 'chat' },
          { id: 'd-plain', query: 'Weather?', answer: 'Sunny.', agent: 'weather' },
        ],
      });
      expect(res.statusCode).toBe(207);
      const feedback = await call('POST', '/v1/feedback/batch', {
        events: [
          { id: 'ev-fix', responseId: 'd-fix', type: 'correction', userId: 'u1', payload: { corrected: SQL_FIX, format: 'sql' } },
          { id: 'ev-ok', responseId: 'd-ok', type: 'review', userId: 'rev', payload: { verdict: 'approved' } },
          { id: 'ev-bad', responseId: 'd-bad', type: 'review', userId: 'rev', payload: { verdict: 'rejected', issues: ['hallucination'] } },
          { id: 'ev-rej', responseId: 'd-rej', type: 'review', userId: 'rev', payload: { verdict: 'changes_requested' } },
        ],
      });
      expect(feedback.json().results.filter((r: { status: string }) => r.status !== 'accepted')).toEqual([]);
      // A public key's correction is unverified: never an expected output.
      const pub = await call('POST', '/v1/feedback', { responseId: 'd-pub', type: 'correction', userId: 'u9', payload: { corrected: 'Always open.' } }, {
        authorization: `Bearer ${t.publicKey}`,
      });
      expect(pub.statusCode, pub.body).toBe(202);
      await t.services.pipeline.idle(10_000);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('creates, lists and reads datasets; names are unique per workspace; another workspace sees none', async () => {
      const d = await create('gold');
      expect(d).toMatchObject({ name: 'gold', description: 'gold set', latestVersion: 0, itemCount: 0 });
      expect(d.id).toMatch(/^ds_[0-9a-f]{32}$/);
      const dup = await call('POST', '/v1/datasets', { name: 'gold' });
      expect(dup.statusCode).toBe(409);
      expect(dup.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_DATASET_CONFLICT', field: 'name' });
      expect((await call('GET', '/v1/datasets')).json().datasets.map((x: { name: string }) => x.name)).toContain('gold');
      const got = (await call('GET', `/v1/datasets/${d.id}`)).json();
      expect(got).toMatchObject({ id: d.id, versions: [], nextVersionsBefore: null });
      const other = await t.otherWorkspace();
      const theirs = { authorization: `Bearer ${other.secretKey}` };
      expect((await call('GET', '/v1/datasets', undefined, theirs)).json().datasets).toEqual([]);
      const foreign = await call('GET', `/v1/datasets/${d.id}`, undefined, theirs);
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_DATASET_NOT_FOUND', field: 'id' });
      // Their workspace may use the same name.
      expect((await call('POST', '/v1/datasets', { name: 'gold' }, theirs)).statusCode).toBe(201);
      // A public key reads nothing; nor does a reviewer key (it sees the review routes only).
      expect((await call('GET', '/v1/datasets', undefined, { authorization: `Bearer ${t.publicKey}` })).statusCode).toBe(403);
      const reviewer = (await call('POST', '/v1/keys', { kind: 'reviewer', name: 'ds-rev' })).json() as { key: string };
      const asReviewer = await call('GET', `/v1/datasets/${d.id}/items`, undefined, { authorization: `Bearer ${reviewer.key}` });
      expect(asReviewer.statusCode).toBe(403);
      expect(asReviewer.json().error.code).toBe('FEEDLOOP_ERR_REVIEWER_FORBIDDEN');
    });

    it('adds by ids, each judged alone (207); a response is in once; nothing new makes no version', async () => {
      const d = await create('by-ids');
      const res = await call('POST', `/v1/datasets/${d.id}/items`, { responseIds: ['d-fix', 'd-ok', 'd-fix', 'nope', 'bad id!', 42, 'd-rej', 'd-pub'] });
      expect(res.statusCode, res.body).toBe(207);
      const body = res.json();
      expect(body.version).toBe(1);
      expect(body.results.map((r: { responseId: string | null; status: string; error?: { code: string; field?: string } }) => [r.responseId, r.status, r.error?.code, r.error?.field])).toEqual([
        ['d-fix', 'added', undefined, undefined],
        ['d-ok', 'added', undefined, undefined],
        ['d-fix', 'duplicate', undefined, undefined],
        ['nope', 'rejected', 'FEEDLOOP_ERR_RESPONSE_NOT_FOUND', 'responseIds[3]'],
        ['bad id!', 'rejected', 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'responseIds[4]'],
        [null, 'rejected', 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'responseIds[5]'],
        ['d-rej', 'added', undefined, undefined],
        ['d-pub', 'added', undefined, undefined],
      ]);
      const again = await call('POST', `/v1/datasets/${d.id}/items`, { responseIds: ['d-ok'] });
      expect(again.json()).toEqual({ version: null, results: [{ responseId: 'd-ok', status: 'duplicate' }] });
      const got = (await call('GET', `/v1/datasets/${d.id}`)).json();
      expect(got).toMatchObject({ latestVersion: 1, itemCount: 4 });
      expect(got.versions).toHaveLength(1);
      expect(got.versions[0]).toMatchObject({ version: 1, via: 'responseIds', added: 4, removed: 0, itemCount: 4, queueId: null });
      expect(typeof got.versions[0].actorKeyId).toBe('string');
    });

    it('gives each item its expected output: the correction, else the approved answer, else none (unverified feedback never)', async () => {
      const d = await create('expected');
      await call('POST', `/v1/datasets/${d.id}/items`, { responseIds: ['d-fix', 'd-ok', 'd-bad', 'd-rej', 'd-pub', 'd-plain'] });
      const byId = new Map((await items(d.id)).map((i) => [i.responseId, i]));
      expect(byId.get('d-fix')).toMatchObject({ expectedOutput: SQL_FIX, expectedSource: 'correction', expectedEventId: 'ev-fix', query: SQL_QUERY, answer: SQL_ANSWER });
      expect(byId.get('d-ok')).toMatchObject({ expectedOutput: 'Acme and Globex.', expectedSource: 'approved', expectedEventId: 'ev-ok' });
      for (const id of ['d-bad', 'd-rej', 'd-pub', 'd-plain']) expect(byId.get(id)).toMatchObject({ expectedOutput: null, expectedSource: null, expectedEventId: null });
      expect(byId.get('d-bad')).toMatchObject({ answer: 'I do not know.', query: '  top   CUSTOMERS? ' });
    });

    it('pages a version with a cursor, in normalized-prompt order, every item once', async () => {
      const d = await create('pages');
      await call('POST', `/v1/datasets/${d.id}/items`, { responseIds: ['d-fix', 'd-ok', 'd-bad', 'd-rej', 'd-pub', 'd-plain'] });
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res = await call('GET', `/v1/datasets/${d.id}/items?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.statusCode).toBe(200);
        const page = res.json();
        expect(page.version).toBe(1);
        seen.push(...page.data.map((i: Item) => i.responseId));
        cursor = page.nextCursor;
        pages++;
      } while (cursor !== null);
      expect(pages).toBe(2);
      expect([...seen].sort()).toEqual(['d-bad', 'd-fix', 'd-ok', 'd-plain', 'd-pub', 'd-rej']);
      // The two answers to one normalized prompt ("Top customers?") are neighbours.
      expect(Math.abs(seen.indexOf('d-ok') - seen.indexOf('d-bad'))).toBe(1);
      const bad = await call('GET', `/v1/datasets/${d.id}/items?cursor=not-ours`);
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field: 'cursor' });
    });

    it('keeps every version as it was: items are frozen when added; a removal is a new version; a re-add freezes anew', async () => {
      const d = await create('history');
      await call('POST', `/v1/datasets/${d.id}/items`, { responseIds: ['d-rej', 'd-plain'] });
      // d-rej is corrected after it was added: version 1 keeps it without an expected output.
      const fix = await call('POST', '/v1/feedback', { id: 'ev-rej-fix', responseId: 'd-rej', type: 'correction', userId: 'rev', payload: { corrected: 'Refunds within 30 days.' } });
      expect(fix.statusCode).toBe(202);
      expect((await items(d.id)).find((i) => i.responseId === 'd-rej')).toMatchObject({ expectedOutput: null, addedInVersion: 1 });
      const removed = await call('DELETE', `/v1/datasets/${d.id}/items/d-rej`);
      expect(removed.statusCode, removed.body).toBe(200);
      expect(removed.json()).toEqual({ version: 2, removed: 'd-rej' });
      const again = await call('DELETE', `/v1/datasets/${d.id}/items/d-rej`);
      expect(again.statusCode).toBe(404);
      expect(again.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_DATASET_ITEM_NOT_FOUND', field: 'responseId' });
      expect((await items(d.id)).map((i) => i.responseId)).toEqual(['d-plain']);
      expect((await items(d.id, '&version=1')).map((i) => i.responseId).sort()).toEqual(['d-plain', 'd-rej']);
      await call('POST', `/v1/datasets/${d.id}/items`, { responseIds: ['d-rej'] });
      const v3 = await items(d.id);
      expect(v3.find((i) => i.responseId === 'd-rej')).toMatchObject({ expectedOutput: 'Refunds within 30 days.', expectedSource: 'correction', addedInVersion: 3 });
      expect((await items(d.id, '&version=1')).find((i) => i.responseId === 'd-rej')).toMatchObject({ expectedOutput: null });
      const got = (await call('GET', `/v1/datasets/${d.id}`)).json();
      expect(got.versions.map((v: { version: number; via: string; added: number; removed: number; itemCount: number }) => [v.version, v.via, v.added, v.removed, v.itemCount])).toEqual([
        [3, 'responseIds', 1, 0, 2],
        [2, 'remove', 0, 1, 1],
        [1, 'responseIds', 2, 0, 2],
      ]);
      const paged = (await call('GET', `/v1/datasets/${d.id}/versions?limit=2`)).json();
      expect(paged.versions.map((v: { version: number }) => v.version)).toEqual([3, 2]);
      expect(paged.nextBefore).toBe(2);
      expect((await call('GET', `/v1/datasets/${d.id}/versions?before=2`)).json().versions.map((v: { version: number }) => v.version)).toEqual([1]);
      const missing = await call('GET', `/v1/datasets/${d.id}/items?version=4`);
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_DATASET_VERSION_NOT_FOUND', field: 'version' });
      expect((await call('GET', `/v1/datasets/${d.id}/items?version=0`)).statusCode).toBe(400);
      // The audit log names each change.
      const audit = (await call('GET', '/v1/audit?action=dataset.changed&limit=100')).json();
      const mine = audit.entries.filter((e: { subject: string }) => e.subject === d.id);
      expect(mine.map((e: { details: { version: number; via: string; responseIds?: string[] } }) => [e.details.version, e.details.via, e.details.responseIds])).toEqual([
        [3, 'responseIds', ['d-rej']],
        [2, 'remove', ['d-rej']],
        [1, 'responseIds', ['d-plain', 'd-rej']],
      ]);
      const created = (await call('GET', '/v1/audit?action=dataset.created&limit=100')).json();
      expect(created.entries.some((e: { subject: string; details: { name: string } }) => e.subject === d.id && e.details.name === 'history')).toBe(true);
    });

    it('adds every response matching a filter of the response list, once; a bad filter is refused naming its field', async () => {
      const d = await create('by-filter');
      const res = await call('POST', `/v1/datasets/${d.id}/items`, { filter: { agent: 'chat' } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ version: 1, added: 4, alreadyIn: 0, truncated: false });
      expect((await items(d.id)).map((i) => i.responseId).sort()).toEqual(['d-bad', 'd-ok', 'd-pub', 'd-rej']);
      const negative = await call('POST', `/v1/datasets/${d.id}/items`, { filter: { rating: 'negative' } });
      // d-fix (corrected) is new; d-bad and d-rej (rejected reviews) are in already.
      expect(negative.json()).toMatchObject({ version: 2, added: 1 });
      expect((await items(d.id)).map((i) => i.responseId)).toContain('d-fix');
      const same = await call('POST', `/v1/datasets/${d.id}/items`, { filter: { agent: 'chat' } });
      expect(same.json()).toEqual({ version: null, added: 0, alreadyIn: 4, truncated: false });
      const before = await tableCount('dataset_item_changes');
      for (const [filter, field] of [
        [{ rating: 'awful' }, 'filter.rating'],
        [{ nope: 1 }, 'filter.nope'],
        [{ minScore: 0.5, maxScore: 0.1 }, 'filter.minScore'],
        [{ scoreMin: 1 }, 'filter.scoreMin'],
        [{ comment: 'ab' }, 'filter.comment'],
      ] as const) {
        const bad = await call('POST', `/v1/datasets/${d.id}/items`, { filter });
        expect(bad.statusCode, JSON.stringify(filter)).toBe(400);
        expect(bad.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field });
      }
      for (const body of [{}, { responseIds: [] }, { responseIds: ['d-ok'], filter: {} }, { responseIds: Array.from({ length: 1_001 }, (_, i) => `r${i}`) }]) {
        expect((await call('POST', `/v1/datasets/${d.id}/items`, body)).statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      }
      const unknown = await call('POST', '/v1/datasets/ds_nope/items', { responseIds: ['d-ok'] });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().error.code).toBe('FEEDLOOP_ERR_DATASET_NOT_FOUND');
      expect(await tableCount('dataset_item_changes')).toBe(before);
    });

    it('exports a version in the training formats, validated as /v1/exports; an earlier version exports as it was', async () => {
      const d = await create('export');
      await call('POST', `/v1/datasets/${d.id}/items`, { responseIds: ['d-fix', 'd-ok', 'd-bad', 'd-plain'] });
      const sft = await rows(`/v1/datasets/${d.id}/export/trl-sft`);
      expect(sft.sort((a, b) => String(a.prompt).localeCompare(String(b.prompt)))).toEqual([
        { prompt: 'Top customers?', completion: 'Acme and Globex.' },
        { prompt: SQL_QUERY, completion: SQL_FIX },
      ]);
      const chat = await rows(`/v1/datasets/${d.id}/export/openai-chat?system=Be%20brief.`);
      expect(chat).toContainEqual({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: SQL_QUERY },
          { role: 'assistant', content: SQL_FIX, weight: 1 },
        ],
      });
      const dpo = await rows(`/v1/datasets/${d.id}/export/trl-dpo?dedup=false`);
      expect(dpo).toContainEqual({ prompt: SQL_QUERY, chosen: SQL_FIX, rejected: SQL_ANSWER });
      // The approved answer over the rejected one to the same normalized prompt.
      expect(dpo).toContainEqual({ prompt: 'Top customers?', chosen: 'Acme and Globex.', rejected: 'I do not know.' });
      const kto = await rows(`/v1/datasets/${d.id}/export/trl-kto`);
      expect(kto).toEqual(
        expect.arrayContaining([
          { prompt: SQL_QUERY, completion: SQL_FIX, label: true },
          { prompt: SQL_QUERY, completion: SQL_ANSWER, label: false },
          { prompt: 'Top customers?', completion: 'Acme and Globex.', label: true },
          // A rejected answer (no correction) is undesirable.
          { prompt: '  top   CUSTOMERS? ', completion: 'I do not know.', label: false },
        ]),
      );
      expect(kto).toHaveLength(4);
      // The pipeline's learning signal of each deciding event, frozen with the item.
      const signals = await rows(`/v1/datasets/${d.id}/export/learning-signals`);
      expect(signals).toHaveLength(3);
      expect(signals).toContainEqual(expect.objectContaining({ input: SQL_QUERY, expected_output: SQL_FIX, actual_output: SQL_ANSWER }));
      const anonymized = await rows(`/v1/datasets/${d.id}/export/anonymized`);
      expect(anonymized.map((r) => r.rating).sort()).toEqual(['negative', 'negative', 'positive']);
      expect(await rows(`/v1/datasets/${d.id}/export/nli`)).toEqual([]);
      const report = (await call('GET', `/v1/datasets/${d.id}/export/openai-preference?validate=true`)).json();
      expect(report).toMatchObject({ format: 'openai-preference', rows: 2, valid: 2, errors: {} });
      expect(report.read).toMatchObject({ responses: 4, events: 3 });
      // Version 1 keeps its rows after a removal.
      await call('DELETE', `/v1/datasets/${d.id}/items/d-fix`);
      expect(await rows(`/v1/datasets/${d.id}/export/trl-sft`)).toEqual([{ prompt: 'Top customers?', completion: 'Acme and Globex.' }]);
      expect(await rows(`/v1/datasets/${d.id}/export/trl-sft?version=1`)).toHaveLength(2);
      const unknown = await call('GET', `/v1/datasets/${d.id}/export/alpaca`);
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_EXPORT_UNKNOWN_FORMAT', field: 'format' });
      expect((await call('GET', `/v1/datasets/${d.id}/export/trl-sft?style=fancy`)).json().error.field).toBe('style');
      expect((await call('GET', `/v1/datasets/${d.id}/export/trl-sft?version=9`)).statusCode).toBe(404);
      const empty = await create('empty');
      expect(await rows(`/v1/datasets/${empty.id}/export/openai-chat`)).toEqual([]);
    });

    it('serializes concurrent changes: dense versions, every response in once', async () => {
      const d = await create('concurrent');
      const ids = ['d-fix', 'd-ok', 'd-bad', 'd-rej', 'd-pub', 'd-plain'];
      const answers = await Promise.all(ids.flatMap((id) => [id, id]).map((id) => call('POST', `/v1/datasets/${d.id}/items`, { responseIds: [id] })));
      const statuses = answers.map((a) => a.json().results[0].status as string);
      expect(statuses.filter((s) => s === 'added')).toHaveLength(6);
      expect(statuses.filter((s) => s === 'duplicate')).toHaveLength(6);
      const got = (await call('GET', `/v1/datasets/${d.id}`)).json();
      expect(got).toMatchObject({ latestVersion: 6, itemCount: 6 });
      expect(got.versions.map((v: { version: number }) => v.version)).toEqual([6, 5, 4, 3, 2, 1]);
      expect((await items(d.id)).map((i) => i.responseId).sort()).toEqual([...ids].sort());
    });
  });
}
