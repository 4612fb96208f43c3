import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`HTTP surface on ${backend.name}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(await backend.open(), { FEEDLOOP_BODY_LIMIT_BYTES: '4096' });
    });
    afterAll(() => t.close());

    it('registers responses: created, duplicate, conflict, batch with per-item results', async () => {
      const r = { id: 'resp-h1', query: 'q', answer: 'a', model: 'm1', contextDocumentIds: ['doc-1'] };
      const created = await t.app.inject({ method: 'POST', url: '/v1/responses', headers: t.auth, payload: r });
      expect([created.statusCode, created.json()]).toEqual([201, { id: 'resp-h1', status: 'created' }]);
      const dup = await t.app.inject({ method: 'POST', url: '/v1/responses', headers: t.auth, payload: r });
      expect([dup.statusCode, dup.json()]).toEqual([200, { id: 'resp-h1', status: 'duplicate' }]);
      const conflict = await t.app.inject({ method: 'POST', url: '/v1/responses', headers: t.auth, payload: { ...r, answer: 'b' } });
      expect(conflict.statusCode).toBe(409);
      expect(conflict.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_RESPONSE_CONFLICT', field: 'id' });
      const noId = await t.app.inject({ method: 'POST', url: '/v1/responses', headers: t.auth, payload: { query: 'q2', answer: 'a2' } });
      expect(noId.json().id).toMatch(/^[0-9a-f-]{36}$/);
      const batch = await t.app.inject({
        method: 'POST',
        url: '/v1/responses/batch',
        headers: t.auth,
        payload: { responses: [{ id: 'resp-h2', query: 'q', answer: 'a' }, { id: 'resp-h3', answer: 'no query' }, r] },
      });
      expect(batch.statusCode).toBe(207);
      expect(batch.json().results).toEqual([
        { id: 'resp-h2', status: 'created' },
        { id: 'resp-h3', status: 'rejected', error: expect.objectContaining({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field: 'query' }) },
        { id: 'resp-h1', status: 'duplicate' },
      ]);
      const empty = await t.app.inject({ method: 'POST', url: '/v1/responses/batch', headers: t.auth, payload: { responses: [] } });
      expect(empty.json().error.field).toBe('responses');
    });

    it('shows a response with its feedback, newest first, votes with their replacement', async () => {
      await t.app.inject({ method: 'POST', url: '/v1/feedback', headers: t.auth, payload: { id: 'h-1', responseId: 'resp-h1', type: 'thumbs_up', userId: 'u', occurredAt: new Date(Date.now() - 30_000).toISOString() } });
      await t.app.inject({ method: 'POST', url: '/v1/feedback', headers: t.auth, payload: { id: 'h-2', responseId: 'resp-h1', type: 'thumbs_down', userId: 'u' } });
      const res = await t.app.inject({ method: 'GET', url: '/v1/responses/resp-h1', headers: t.auth });
      const body = res.json();
      expect(body).toMatchObject({ id: 'resp-h1', model: 'm1', contextDocumentIds: ['doc-1'], moreFeedback: false });
      expect(body.feedback.map((f: { id: string; supersededBy: string | null }) => [f.id, f.supersededBy])).toEqual([
        ['h-2', null],
        ['h-1', 'h-2'],
      ]);
      const missing = await t.app.inject({ method: 'GET', url: '/v1/responses/nope', headers: t.auth });
      expect(missing.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_RESPONSE_NOT_FOUND', field: 'id' });
    });

    it('limits public keys per client IP with 429 and Retry-After, counting batch events', async () => {
      const headers = { authorization: `Bearer ${t.publicKey}` };
      const batch = await t.app.inject({
        method: 'POST',
        url: '/v1/feedback/batch',
        headers,
        remoteAddress: '192.0.2.10',
        payload: { events: Array.from({ length: 9 }, () => ({ responseId: 'resp-h1', type: 'skip' })) },
      });
      expect(batch.statusCode).toBe(207);
      const tenth = await t.app.inject({ method: 'POST', url: '/v1/feedback', headers, remoteAddress: '192.0.2.10', payload: { responseId: 'resp-h1', type: 'skip' } });
      expect(tenth.statusCode).toBe(202);
      const eleventh = await t.app.inject({ method: 'POST', url: '/v1/feedback', headers, remoteAddress: '192.0.2.10', payload: { responseId: 'resp-h1', type: 'skip' } });
      expect(eleventh.statusCode).toBe(429);
      expect(eleventh.json().error.code).toBe('FEEDLOOP_ERR_RATE_LIMITED');
      expect(Number(eleventh.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(eleventh.headers['retry-after'])).toBeLessThanOrEqual(60);
    });

    it('answers oversized, non-JSON and unknown requests with registry codes', async () => {
      const big = await t.app.inject({ method: 'POST', url: '/v1/feedback', headers: t.auth, payload: { responseId: 'resp-h1', type: 'comment', payload: { comment: 'x'.repeat(5_000) } } });
      expect(big.statusCode).toBe(413);
      expect(big.json().error.code).toBe('FEEDLOOP_ERR_VALIDATION_BODY_TOO_LARGE');
      const text = await t.app.inject({ method: 'POST', url: '/v1/feedback', headers: { ...t.auth, 'content-type': 'text/plain' }, payload: 'thumbs up' });
      expect(text.statusCode).toBe(415);
      expect(text.json().error.code).toBe('FEEDLOOP_ERR_VALIDATION_UNSUPPORTED_MEDIA_TYPE');
      const unknown = await t.app.inject({ method: 'GET', url: '/v2/nothing' });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().error.code).toBe('FEEDLOOP_ERR_NOT_FOUND');
    });

    it('serves health, readiness, metrics and the OpenAPI document', async () => {
      expect((await t.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
      expect((await t.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ready', database: backend.name });
      const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(metrics).toMatch(/feedloop_feedback_events_total\{status="accepted",code=""\} [1-9]/);
      expect(metrics).toMatch(/feedloop_feedback_events_total\{status="rejected",code="FEEDLOOP_ERR_RATE_LIMITED"\} 1/);
      expect(metrics).toMatch(/feedloop_http_request_duration_seconds_bucket\{le="0.005",method="POST",route="\/v1\/feedback"\}/);
      expect(metrics).toMatch(/feedloop_queue_jobs\{state="waiting"\} \d+/);
      const docs = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json();
      expect(Object.keys(docs.paths)).toEqual(expect.arrayContaining(['/v1/feedback', '/v1/feedback/batch', '/v1/responses', '/v1/responses/batch', '/v1/responses/{id}']));
      const body = docs.paths['/v1/feedback'].post.requestBody.content['application/json'].schema;
      expect(JSON.stringify(body)).toContain('error_categories');
      expect((await t.app.inject({ method: 'GET', url: '/docs' })).statusCode).toBeLessThan(400);
    });

    it('reports an unreachable database as not ready and 503 on writes', async () => {
      const dead = await startTestApp(await backend.open());
      await dead.db.close();
      const ready = await dead.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      const write = await dead.app.inject({ method: 'POST', url: '/v1/feedback', headers: dead.auth, payload: { responseId: 'r', type: 'skip' } });
      expect(write.statusCode).toBe(503);
      expect(write.json().error.code).toBe('FEEDLOOP_ERR_UNAVAILABLE');
      await dead.close();
    });
  });
}
