/**
 * Issue 22, edge validation: every limit applies per item on every route (a batch judges each item
 * alone, before any write), nothing the store cannot hold reaches it from a query parameter or a
 * body field, and input that would be altered in silence (invalid UTF-8, 1e309, 1e-400, integers
 * beyond 2^53) is refused with a coded 400. On both stores.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

/** `{"a":{"a":…}}` nested `n` deep, as JSON text (JSON.stringify would recurse). */
const deepJson = (n: number): string => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`edge validation on ${backend.name}`, () => {
    let t: TestApp;
    const raw = (method: 'POST' | 'PUT' | 'GET', url: string, payload?: string | Buffer) =>
      t.app.inject({ method, url, headers: { ...t.auth, 'content-type': 'application/json' }, ...(payload === undefined ? {} : { payload }) });
    const count = async (table: string, id: string) =>
      (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE workspace_id = $1 AND id = $2`, [t.workspaceId, id]))[0]?.n;
    const codeOf = (body: string) => (JSON.parse(body) as { error?: { code?: string; field?: string } }).error;

    beforeAll(async () => {
      t = await startTestApp(await backend.open());
      expect((await raw('POST', '/v1/responses', JSON.stringify({ id: 'ev-r', query: 'q', answer: 'a' }))).statusCode).toBe(201);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('a batch of [valid, metadata 5,000 deep] keeps the valid event and refuses the deep one alone', async () => {
      const body = `{"events":[{"id":"ev-ok","responseId":"ev-r","type":"thumbs_up"},{"id":"ev-deep","responseId":"ev-r","type":"thumbs_up","metadata":${deepJson(5_000)}}]}`;
      const res = await raw('POST', '/v1/feedback/batch', body);
      expect(res.statusCode, res.body).toBe(207);
      const [ok, deep] = res.json().results;
      expect(ok).toMatchObject({ id: 'ev-ok', status: 'accepted' });
      expect(deep).toMatchObject({ id: 'ev-deep', status: 'rejected', error: { code: 'FEEDLOOP_ERR_VALIDATION_TOO_DEEP' } });
      expect(await count('feedback_events', 'ev-deep')).toBe(0);
      // The same event alone: 400, nothing stored.
      const single = await raw('POST', '/v1/feedback', `{"id":"ev-deep1","responseId":"ev-r","type":"thumbs_up","metadata":${deepJson(5_000)}}`);
      expect(single.statusCode, single.body).toBe(400);
      expect(codeOf(single.body)?.code).toBe('FEEDLOOP_ERR_VALIDATION_TOO_DEEP');
      // Responses too, in a batch and alone.
      const responses = await raw('POST', '/v1/responses/batch', `{"responses":[{"id":"ev-r2","query":"q","answer":"a"},{"id":"ev-r3","query":"q","answer":"a","metadata":${deepJson(5_000)}}]}`);
      expect(responses.statusCode, responses.body).toBe(207);
      expect(responses.json().results.map((r: { status: string }) => r.status)).toEqual(['created', 'rejected']);
      expect(await count('responses', 'ev-r3')).toBe(0);
    });

    it('an event larger than a single request may be is refused inside a batch too, alone', async () => {
      const big = { id: 'ev-big', responseId: 'ev-r', type: 'thumbs_up', metadata: Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, 'x'.repeat(190_000)])) };
      expect((await raw('POST', '/v1/feedback', JSON.stringify(big))).statusCode).toBe(413);
      const res = await raw('POST', '/v1/feedback/batch', JSON.stringify({ events: [{ id: 'ev-small', responseId: 'ev-r', type: 'thumbs_up', userId: 'small' }, big] }));
      expect(res.statusCode, res.body.slice(0, 300)).toBe(207);
      expect(res.json().results.map((r: { status: string; error?: { code: string } }) => r.error?.code ?? r.status)).toEqual(['accepted', 'FEEDLOOP_ERR_VALIDATION_ITEM_TOO_LARGE']);
      expect(await count('feedback_events', 'ev-big')).toBe(0);
    });

    it('metadata strings obey the 200,000-character text limit, per item', async () => {
      const long = { id: 'ev-long', responseId: 'ev-r', type: 'thumbs_up', metadata: { note: 'x'.repeat(200_001) } };
      const single = await raw('POST', '/v1/feedback', JSON.stringify(long));
      expect(single.statusCode).toBe(400);
      expect(codeOf(single.body)).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field: 'metadata.note' });
      const batch = await raw('POST', '/v1/feedback/batch', JSON.stringify({ events: [long, { id: 'ev-short', responseId: 'ev-r', type: 'thumbs_down', userId: 'short' }] }));
      expect(batch.json().results.map((r: { status: string }) => r.status)).toEqual(['rejected', 'accepted']);
    });

    it('NUL in query parameters and body fields is a coded 400 everywhere, never a 500', async () => {
      const cases: Array<[string, string, string?]> = [
        ['GET', '/v1/responses?agent=a%00b'],
        ['GET', '/v1/responses?comment=abc%00'],
        ['GET', '/v1/stats?agent=%00'],
        ['GET', '/v1/stats?userId=u%00'],
        ['GET', '/v1/audit?action=%00'],
        ['GET', '/v1/feedback?type=thumbs_up%00'],
        ['POST', '/v1/documents/scores', JSON.stringify({ documentIds: ['doc\u0000'] })],
        ['PUT', '/v1/experiments/exp-nul', JSON.stringify({ control: 'c\u0000' })],
        ['POST', '/v1/webhooks', JSON.stringify({ url: 'https://example.com/\u0000' })],
      ];
      for (const [method, url, payload] of cases) {
        const res = await raw(method as 'GET', url, payload);
        expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(400);
        expect(codeOf(res.body)?.code, `${method} ${url}`).toBe('FEEDLOOP_ERR_VALIDATION_UNSTORABLE');
      }
    });

    it('invalid UTF-8 is refused, not stored as U+FFFD', async () => {
      const body = Buffer.concat([Buffer.from('{"id":"ev-utf","responseId":"ev-r","type":"thumbs_down","payload":{"comment":"bad '), Buffer.from([0xc3, 0x28]), Buffer.from('"}}')]);
      const res = await raw('POST', '/v1/feedback', body);
      expect(res.statusCode).toBe(400);
      expect(codeOf(res.body)?.code).toBe('FEEDLOOP_ERR_VALIDATION_INVALID_ENCODING');
      expect(await count('feedback_events', 'ev-utf')).toBe(0);
    });

    it('1e309, 1e-400 and integers beyond 2^53 are refused, not altered; per item in a batch', async () => {
      for (const [n, value] of [['1', '1e309'], ['2', '1e-400'], ['3', '12345678901234567890'], ['4', '-1E+400']] as const) {
        const res = await raw('POST', '/v1/feedback', `{"id":"ev-num${n}","responseId":"ev-r","type":"thumbs_up","metadata":{"x":${value}}}`);
        expect(res.statusCode, value).toBe(400);
        expect(codeOf(res.body), value).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_UNFAITHFUL_NUMBER', field: 'metadata.x' });
        expect(await count('feedback_events', `ev-num${n}`)).toBe(0);
      }
      // Faithful numbers (and look-alikes in strings) pass.
      const fine = await raw('POST', '/v1/feedback', '{"id":"ev-num-ok","responseId":"ev-r","type":"thumbs_up","userId":"nums","metadata":{"a":1e308,"b":9007199254740991,"c":0.000001,"d":"1e309","e":0e5}}');
      expect(fine.statusCode, fine.body).toBe(202);
      const batch = await raw(
        'POST',
        '/v1/feedback/batch',
        '{"events":[{"id":"ev-nb1","responseId":"ev-r","type":"thumbs_up","userId":"nb1"},{"id":"ev-nb2","responseId":"ev-r","type":"thumbs_up","userId":"nb2","metadata":{"big":1e309}}]}',
      );
      expect(batch.statusCode).toBe(207);
      expect(batch.json().results.map((r: { status: string; error?: { code: string; field?: string } }) => r.error ?? r.status)).toEqual([
        'accepted',
        expect.objectContaining({ code: 'FEEDLOOP_ERR_VALIDATION_UNFAITHFUL_NUMBER', field: 'metadata.big' }),
      ]);
    });
  });
}
