import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../src/store/api-keys.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';
import { SEED_RLHF_EVENT as SEED_EVENT } from '../../core/test/seed-fixtures.js';


interface StoredRow {
  type: string;
  source: string;
  user_id: string | null;
  session_id: string | null;
  payload: unknown;
  metadata: unknown;
  edit_distance: number | null;
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`seed-compatible API on ${backend.name}`, () => {
    let t: TestApp;
    const post = (url: string, payload: unknown, headers: Record<string, string> = t.auth) =>
      t.app.inject({ method: 'POST', url, headers, payload: payload as object });
    const summary = (sessionId: string, headers: Record<string, string> = t.auth) =>
      t.app.inject({ method: 'GET', url: `/api/v1/feedback/summary?session_id=${encodeURIComponent(sessionId)}`, headers });
    const registerResponse = async (id: string, extra: Record<string, unknown> = {}) => {
      const res = await post('/v1/responses', { id, query: `question ${id}`, answer: 'SELECT 1', ...extra });
      expect(res.statusCode).toBe(201);
    };
    const stored = async (id: string) => {
      const rows = await t.db.query<StoredRow>(
        'SELECT type, source, user_id, session_id, payload, metadata, edit_distance FROM feedback_events WHERE workspace_id = $1 AND id = $2',
        [t.workspaceId, id],
      );
      return rows[0];
    };
    const count = async () =>
      (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM feedback_events WHERE workspace_id = $1', [t.workspaceId]))[0]?.n;

    beforeAll(async () => {
      t = await startTestApp(await backend.open());
    });
    afterAll(async () => {
      await t.close();
    });

    it("stores the seed's own example as a correction, with its edit distance, once", async () => {
      // The answer differs from data.original_sql: the distance must come from what the client sent.
      await registerResponse('resp-001', { createdAt: '2025-03-15T10:00:00Z', sessionId: 'sess-xyz789' });
      const res = await post('/api/v1/feedback/submit', SEED_EVENT);
      expect(res.statusCode).toBe(202);
      expect(res.json()).toEqual({ event_id: 'fb-abc123', id: 'fb-abc123', status: 'accepted' });
      expect(await stored('fb-abc123')).toEqual({
        type: 'correction',
        source: 'explicit',
        user_id: 'user-456',
        session_id: 'sess-xyz789',
        payload: {
          original: 'SELECT * FROM sales',
          corrected: "SELECT * FROM sales WHERE region = 'US'",
          comment: 'Need to filter by US region',
          format: 'sql',
        },
        metadata: { tenant_id: 'acme-corp' },
        // 19 common characters of 39: (20 added) / (19 + 20) = 51 %.
        edit_distance: 51,
      });
      const occurred = await t.db.query<{ occurred_at: Date }>('SELECT occurred_at FROM feedback_events WHERE workspace_id = $1 AND id = $2', [
        t.workspaceId,
        'fb-abc123',
      ]);
      expect(occurred[0]?.occurred_at.toISOString()).toBe('2025-03-15T10:05:00.000Z');
      // A retry, on this or the typed endpoint, is a duplicate by event_id.
      for (const url of ['/api/v1/feedback/submit', '/api/v1/feedback/correction']) {
        const again = await post(url, SEED_EVENT);
        expect({ status: again.statusCode, body: again.json() }).toEqual({ status: 202, body: { event_id: 'fb-abc123', id: 'fb-abc123', status: 'duplicate' } });
      }
      const rows = await t.db.query('SELECT id FROM feedback_events WHERE workspace_id = $1 AND id = $2', [t.workspaceId, 'fb-abc123']);
      expect(rows).toHaveLength(1);
    });

    it('maps every seed feedback type onto its feedloop type and payload', async () => {
      await registerResponse('r-types');
      const cases: Array<[string, string, Record<string, unknown>, string, unknown]> = [
        ['/api/v1/feedback/submit', 'thumbs_up', { feedback_type: 'thumbs_up' }, 'thumbs_up', {}],
        ['/api/v1/feedback/submit', 'thumbs_down', { feedback_type: 'thumbs_down', data: { comment: 'wrong table' } }, 'thumbs_down', { comment: 'wrong table' }],
        ['/api/v1/feedback/correction', 'corr', { data: { corrected: 'SELECT 2' } }, 'correction', { corrected: 'SELECT 2' }],
        ['/api/v1/feedback/rating', 'rate', { data: { score: 4, aspect: 'clarity' } }, 'rating', { rating: 4, aspect: 'clarity' }],
        ['/api/v1/feedback/submit', 'accept', { feedback_type: 'implicit_accept', data: { action: 'executed', rows: 12 } }, 'implicit_accept', { action: 'executed', details: { rows: 12 } }],
        ['/api/v1/feedback/submit', 'reject', { feedback_type: 'implicit_reject', data: { follow_up_query: 'only US' } }, 'implicit_reject', { followUpQuery: 'only US' }],
        ['/api/v1/feedback/submit', 'esc', { feedback_type: 'escalation', data: { reason: 'stuck', channel: 'chat' } }, 'escalation', { reason: 'stuck', channel: 'chat' }],
      ];
      for (const [url, id, body, type, payload] of cases) {
        const res = await post(url, { event_id: `t-${id}`, response_id: 'r-types', user_id: `u-${id}`, ...body });
        expect({ status: res.statusCode, body: res.json() }, id).toEqual({ status: 202, body: { event_id: `t-${id}`, id: `t-${id}`, status: 'accepted' } });
        expect(await stored(`t-${id}`), id).toMatchObject({ type, payload });
      }
      // A correction without the original is measured against the registered answer 'SELECT 1':
      // 7 common characters, 1 removed and 1 added: 2 / 9 = 22 %.
      expect((await stored('t-corr'))?.edit_distance).toBe(22);
      // Without an event_id the server makes one and answers it.
      const anon = await post('/api/v1/feedback/submit', { response_id: 'r-types', feedback_type: 'thumbs_up' });
      expect(anon.json().event_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
      expect(anon.json().id).toBe(anon.json().event_id);
    });

    it('rejects bad events naming the field as the client sent it, and stores nothing', async () => {
      await registerResponse('r-bad');
      const before = await count();
      const cases: Array<[string, Record<string, unknown>, number, string, string]> = [
        ['/api/v1/feedback/submit', { response_id: 'r-bad', feedback_type: 'like' }, 400, 'FEEDLOOP_ERR_VALIDATION_UNKNOWN_TYPE', 'feedback_type'],
        ['/api/v1/feedback/submit', { response_id: 'r-bad' }, 400, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'feedback_type'],
        ['/api/v1/feedback/rating', { response_id: 'r-bad', feedback_type: 'thumbs_up' }, 400, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'feedback_type'],
        ['/api/v1/feedback/correction', { response_id: 'r-bad', feedback_type: 'rating', data: { rating: 3 } }, 400, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'feedback_type'],
        ['/api/v1/feedback/rating', { response_id: 'r-bad', data: { rating: 6 } }, 400, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'data.rating'],
        ['/api/v1/feedback/correction', { response_id: 'r-bad', data: { original_sql: 'SELECT 1' } }, 400, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'data.corrected_sql'],
        ['/api/v1/feedback/submit', { response_id: 'r-bad', feedback_type: 'thumbs_up', data: { stars: 2 } }, 400, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'data.stars'],
        ['/api/v1/feedback/submit', { response_id: 'r-bad', feedback_type: 'retry' }, 400, 'FEEDLOOP_ERR_VALIDATION_UNKNOWN_TYPE', 'feedback_type'],
        ['/api/v1/feedback/submit', { response_id: 'r-missing', feedback_type: 'thumbs_up' }, 404, 'FEEDLOOP_ERR_RESPONSE_NOT_FOUND', 'response_id'],
        [
          '/api/v1/feedback/submit',
          { response_id: 'r-bad', feedback_type: 'thumbs_up', timestamp: new Date(Date.now() + 3_600_000).toISOString() },
          400,
          'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD',
          'timestamp',
        ],
      ];
      for (const [url, payload, status, code, field] of cases) {
        const res = await post(url, payload);
        const error = res.json().error;
        expect({ status: res.statusCode, code: error?.code, field: error?.field }, `${url} ${JSON.stringify(payload)}`).toEqual({ status, code, field });
        expect(error.message.startsWith(`${field}:`)).toBe(true);
      }
      expect(await count()).toBe(before);
    });

    it('closes the feedback window 24 h after the response, naming response_id and queryId', async () => {
      await registerResponse('r-old', { createdAt: new Date(Date.now() - 30 * 3_600_000).toISOString() });
      const rlhf = await post('/api/v1/feedback/submit', { response_id: 'r-old', feedback_type: 'thumbs_up' });
      expect({ status: rlhf.statusCode, ...rlhf.json().error }).toMatchObject({ status: 422, code: 'FEEDLOOP_ERR_FEEDBACK_WINDOW_CLOSED', field: 'response_id' });
      const rag = await post('/api/rag/feedback', { queryId: 'r-old', rating: 'positive' });
      expect({ status: rag.statusCode, ...rag.json().error }).toMatchObject({ status: 422, code: 'FEEDLOOP_ERR_FEEDBACK_WINDOW_CLOSED', field: 'queryId' });
    });

    it('takes a public key on the POSTs and refuses it on the summary', async () => {
      await registerResponse('r-pub');
      const pub = { authorization: `Bearer ${t.publicKey}` };
      const submitted = await post('/api/v1/feedback/rating', { response_id: 'r-pub', data: { rating: 5 } }, pub);
      expect(submitted.statusCode).toBe(202);
      const rag = await post('/api/rag/feedback', { queryId: 'r-pub', rating: 'negative' }, pub);
      expect(rag.statusCode).toBe(201);
      const read = await summary('sess-any', pub);
      expect(read.statusCode).toBe(403);
      expect(read.json().error.code).toBe('FEEDLOOP_ERR_AUTH_FORBIDDEN');
      const anonymous = await post('/api/v1/feedback/submit', { response_id: 'r-pub', feedback_type: 'thumbs_up' }, {});
      expect(anonymous.statusCode).toBe(401);
    });

    it('rate-limits public keys as /v1/feedback does', async () => {
      const other = await t.otherWorkspace();
      const secret = { authorization: `Bearer ${other.secretKey}` };
      expect((await post('/v1/responses', { id: 'r-rate', query: 'q', answer: 'a' }, secret)).statusCode).toBe(201);
      const pub = { authorization: `Bearer ${(await createApiKey(t.db, other.workspaceId, 'public')).key}` };
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) {
        const url = i % 2 === 0 ? '/api/v1/feedback/submit' : '/api/rag/feedback';
        // Each anonymous Phase 4.1 entry differs (its comment): identical ones from one client are duplicates.
        const body = i % 2 === 0 ? { response_id: 'r-rate', feedback_type: 'thumbs_up' } : { queryId: 'r-rate', rating: 'positive', comment: `c${i}` };
        statuses.push((await post(url, body, pub)).statusCode);
      }
      // The default limit is 10 a minute; both seeds' endpoints draw on the same allowance.
      expect(statuses.slice(0, 10).every((s) => s === 202 || s === 201)).toBe(true);
      expect(statuses[10]).toBe(429);
    });

    it('summarizes a session: events by their own session_id or their response\'s, current votes only', async () => {
      const start = Date.now() - 20 * 60_000;
      const at = (minute: number) => new Date(start + minute * 60_000).toISOString();
      const createdAt = new Date(start - 60_000).toISOString();
      await registerResponse('s-r1', { sessionId: 'sess-sum', createdAt });
      await registerResponse('s-r2', { sessionId: 'sess-sum', createdAt });
      await registerResponse('s-r3', { createdAt });
      await registerResponse('s-r4', { sessionId: 'sess-other', createdAt });
      const events: Array<Record<string, unknown>> = [
        // r1: u1 votes up, then changes to down (the up no longer counts); u2 up; u1 corrects.
        { event_id: 'e1', response_id: 's-r1', user_id: 'u1', feedback_type: 'thumbs_up', timestamp: at(0) },
        { event_id: 'e2', response_id: 's-r1', user_id: 'u1', feedback_type: 'thumbs_down', timestamp: at(1) },
        { event_id: 'e3', response_id: 's-r1', user_id: 'u2', feedback_type: 'thumbs_up', timestamp: at(2) },
        { event_id: 'e4', response_id: 's-r1', user_id: 'u1', feedback_type: 'correction', data: { corrected_sql: 'SELECT 2' }, timestamp: at(3) },
        // r2: two ratings, a vote, and a content duplicate of that vote 5 s later.
        { event_id: 'e5', response_id: 's-r2', user_id: 'u1', feedback_type: 'rating', data: { rating: 4 }, timestamp: at(4) },
        { event_id: 'e6', response_id: 's-r2', user_id: 'u2', feedback_type: 'rating', data: { score: 5 }, timestamp: at(5) },
        { event_id: 'e7', response_id: 's-r2', user_id: 'u3', feedback_type: 'thumbs_up', timestamp: at(6) },
        { event_id: 'e8', response_id: 's-r2', user_id: 'u3', feedback_type: 'thumbs_up', timestamp: new Date(Date.parse(at(6)) + 5_000).toISOString() },
        // r3 has no session of its own; its events carry it.
        { event_id: 'e9', response_id: 's-r3', session_id: 'sess-sum', user_id: 'u4', feedback_type: 'escalation', timestamp: at(7) },
        { event_id: 'e10', response_id: 's-r3', session_id: 'sess-sum', user_id: 'u4', feedback_type: 'thumbs_down', timestamp: at(8) },
        { event_id: 'e11', response_id: 's-r3', session_id: 'sess-sum', user_id: 'u5', feedback_type: 'correction', data: { corrected: 'x' }, timestamp: at(9) },
        // Another session's response, and an event without a session on it: not this session's.
        { event_id: 'e12', response_id: 's-r4', user_id: 'u1', feedback_type: 'thumbs_up', timestamp: at(10) },
        { event_id: 'e13', response_id: 's-r4', user_id: 'u2', feedback_type: 'escalation', timestamp: at(11) },
      ];
      const statuses = [];
      for (const e of events) statuses.push((await post('/api/v1/feedback/submit', e)).json().status);
      expect(statuses).toEqual(['accepted', 'accepted', 'accepted', 'accepted', 'accepted', 'accepted', 'accepted', 'duplicate', 'accepted', 'accepted', 'accepted', 'accepted', 'accepted']);
      const res = await summary('sess-sum');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        session_id: 'sess-sum',
        total: 9,
        by_type: { correction: 2, escalation: 1, rating: 2, thumbs_down: 2, thumbs_up: 2 },
        // Percentages with 2 decimals, as every rate on every route.
        positive_rate: 50,
        correction_rate: 66.67,
        escalation_rate: 33.33,
        average_rating: 4.5,
        response_count: 3,
        first_feedback_at: at(1),
        last_feedback_at: at(9),
      });
      const other = (await summary('sess-other')).json();
      expect([other.total, other.escalation_rate, other.positive_rate]).toEqual([2, 100, 100]);
      const unknown = (await summary('sess-nobody')).json();
      expect([unknown.total, unknown.positive_rate, unknown.response_count, unknown.first_feedback_at]).toEqual([0, null, 0, null]);
      const missing = await t.app.inject({ method: 'GET', url: '/api/v1/feedback/summary', headers: t.auth });
      expect({ status: missing.statusCode, field: missing.json().error.field }).toEqual({ status: 400, field: 'session_id' });
    });

    it('summarizes only the caller\'s workspace', async () => {
      const other = await t.otherWorkspace();
      const res = await summary('sess-sum', { authorization: `Bearer ${other.secretKey}` });
      expect(res.json()).toMatchObject({ session_id: 'sess-sum', total: 0 });
    });

    it('takes Phase 4.1 entries: positive and negative votes, metadata kept, duplicates by id', async () => {
      await registerResponse('q-1', { sources: ['https://example.com/doc'] });
      const positive = {
        id: 'rag-1',
        queryId: 'q-1',
        query: 'question q-1',
        answer: 'SELECT 1',
        rating: 'positive',
        category: 'relevance',
        comment: 'spot on',
        sources: ['https://example.com/doc'],
        timestamp: new Date().toISOString(),
        experimentId: 'exp-1',
        variant: 'B',
        userId: 'anon-1',
        metadata: { page: '/help' },
      };
      const res = await post('/api/rag/feedback', positive);
      expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 201, body: { id: 'rag-1', status: 'accepted' } });
      expect(await stored('rag-1')).toMatchObject({
        type: 'thumbs_up',
        user_id: 'anon-1',
        payload: { category: 'relevance', comment: 'spot on' },
        metadata: { page: '/help', query: 'question q-1', answer: 'SELECT 1', sources: ['https://example.com/doc'], experimentId: 'exp-1', variant: 'B' },
      });
      const negative = await post('/api/rag/feedback', { id: 'rag-2', queryId: 'q-1', rating: 'negative', category: 'accuracy', userId: 'anon-2' });
      expect(negative.statusCode).toBe(201);
      expect(await stored('rag-2')).toMatchObject({ type: 'thumbs_down', payload: { category: 'accuracy' }, metadata: null });
      const again = await post('/api/rag/feedback', positive);
      expect({ status: again.statusCode, body: again.json() }).toEqual({ status: 200, body: { id: 'rag-1', status: 'duplicate' } });
      const missing = await post('/api/rag/feedback', { queryId: 'q-nowhere', rating: 'positive' });
      expect({ status: missing.statusCode, ...missing.json().error }).toMatchObject({ status: 404, code: 'FEEDLOOP_ERR_RESPONSE_NOT_FOUND', field: 'queryId' });
      expect(missing.json().error.message).toMatch(/^queryId: /);
      const bad = await post('/api/rag/feedback', { queryId: 'q-1', rating: 'meh' });
      expect({ status: bad.statusCode, field: bad.json().error.field }).toEqual({ status: 400, field: 'rating' });
    });

    it('documents every compatible route in the OpenAPI document', async () => {
      const doc = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json();
      const routes: Array<[string, string]> = [
        ['/api/v1/feedback/submit', 'post'],
        ['/api/v1/feedback/correction', 'post'],
        ['/api/v1/feedback/rating', 'post'],
        ['/api/v1/feedback/summary', 'get'],
        ['/api/rag/feedback', 'post'],
      ];
      for (const [path, method] of routes) {
        const op = doc.paths[path]?.[method];
        expect(op?.tags, path).toEqual(['compatibility']);
        expect(op?.summary, path).toMatch(/seed/);
      }
      expect(doc.paths['/api/v1/feedback/submit'].post.requestBody.content['application/json'].schema.required).toContain('response_id');
      expect(doc.paths['/api/rag/feedback'].post.requestBody.content['application/json'].schema.required).toEqual(['queryId', 'rating']);
    });
  });
}
