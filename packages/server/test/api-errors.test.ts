/**
 * Every failure the server can produce, including the ones Fastify and Node answer outside the
 * route's error handler, leaves as `{ error: { code, message, field? } }` with a registry code.
 */
import { ERROR_CODES } from '@feedloop/core';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { buildApp } from '../src/http/app.js';
import { createServices } from '../src/server.js';
import { loadConfig } from '../src/config.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

/** Asserts a coded error body with the registry's status for its code. */
function expectCoded(status: number, body: string, code: string): void {
  const parsed = JSON.parse(body) as { error: { code: keyof typeof ERROR_CODES; message: string } };
  expect(parsed.error.code).toBe(code);
  expect(ERROR_CODES[parsed.error.code].status).toBe(status);
  expect(typeof parsed.error.message).toBe('string');
  expect(Object.keys(parsed)).toEqual(['error']);
}

/** Sends raw bytes on a fresh connection and returns everything the server writes back. */
function raw(port: number, data: string): Promise<string> {
  return new Promise((resolve) => {
    let out = '';
    const s = net.connect(port, '127.0.0.1', () => s.write(data));
    s.on('data', (d) => (out += d.toString()));
    s.on('close', () => resolve(out));
    s.on('error', () => resolve(out));
  });
}

const statusAndBody = (response: string): [number, string] => [Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1]), response.split('\r\n\r\n')[1] ?? ''];

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`coded errors on ${backend.name}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(await backend.open(), { FEEDLOOP_BODY_LIMIT_BYTES: '4096' });
    });
    afterAll(() => t.close());

    const cases: { name: string; status: number; code: string; inject: InjectOptions }[] = [
      { name: 'an over-long path parameter', status: 414, code: 'FEEDLOOP_ERR_URI_TOO_LONG', inject: { method: 'GET', url: `/v1/responses/${'x'.repeat(2_000)}` } },
      { name: 'a URL that is not valid percent-encoding', status: 400, code: 'FEEDLOOP_ERR_BAD_REQUEST', inject: { method: 'GET', url: '/v1/responses/%E0%A4%A' } },
      { name: 'an unknown route', status: 404, code: 'FEEDLOOP_ERR_NOT_FOUND', inject: { method: 'GET', url: '/nope' } },
      { name: 'a known route with another method', status: 405, code: 'FEEDLOOP_ERR_METHOD_NOT_ALLOWED', inject: { method: 'DELETE', url: '/v1/workspace' } },
      { name: 'a body that does not match Content-Length', status: 400, code: 'FEEDLOOP_ERR_BAD_REQUEST', inject: { method: 'POST', url: '/v1/feedback', headers: { 'content-type': 'application/json', 'content-length': '5' }, payload: '{"a":1,"b":2}' } },
      { name: 'a body over the limit', status: 413, code: 'FEEDLOOP_ERR_VALIDATION_BODY_TOO_LARGE', inject: { method: 'POST', url: '/v1/feedback', payload: { comment: 'x'.repeat(5_000) } } },
      { name: 'another content type', status: 415, code: 'FEEDLOOP_ERR_VALIDATION_UNSUPPORTED_MEDIA_TYPE', inject: { method: 'POST', url: '/v1/feedback', headers: { 'content-type': 'text/xml' }, payload: '<a/>' } },
      { name: 'a JSON parse error', status: 400, code: 'FEEDLOOP_ERR_VALIDATION_BAD_JSON', inject: { method: 'POST', url: '/v1/feedback', headers: { 'content-type': 'application/json' }, payload: '{"a":' } },
      { name: 'an unknown docs asset', status: 404, code: 'FEEDLOOP_ERR_NOT_FOUND', inject: { method: 'GET', url: '/docs/static/nope.js' } },
      { name: 'an unsatisfiable range on a docs asset', status: 400, code: 'FEEDLOOP_ERR_BAD_REQUEST', inject: { method: 'GET', url: '/docs/static/index.css', headers: { range: 'bytes=99999999-' } } },
    ];
    for (const c of cases) {
      it(`answers ${c.name} with ${c.code}`, async () => {
        const inject = { ...c.inject, headers: { ...t.auth, ...(c.inject.headers as Record<string, string> | undefined) } };
        const res = await t.app.inject(inject);
        expect(res.statusCode).toBe(c.status);
        expectCoded(res.statusCode, res.body, c.code);
      });
    }

    it('names the methods a route takes in Allow on a 405', async () => {
      const res = await t.app.inject({ method: 'PUT', url: '/v1/webhooks/wh_1', headers: t.auth });
      expect(res.statusCode).toBe(405);
      expect(res.headers.allow).toBe('DELETE');
    });

    it('answers what the HTTP parser rejects on the raw socket in the same shape', async () => {
      const app = t.app;
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as AddressInfo;
      const [garbageStatus, garbageBody] = statusAndBody(await raw(port, 'GARBAGE\r\n\r\n'));
      expectCoded(garbageStatus, garbageBody, 'FEEDLOOP_ERR_BAD_REQUEST');
      const [bigStatus, bigBody] = statusAndBody(await raw(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: ${'a'.repeat(20_000)}\r\n\r\n`));
      expectCoded(bigStatus, bigBody, 'FEEDLOOP_ERR_HEADERS_TOO_LARGE');
    });
  });
}

describe('coded errors while closing', () => {
  it('answers a request that arrives on an open connection during shutdown with a coded 503', async () => {
    const database = await BACKENDS[0]!.open();
    const config = loadConfig({ LOG_LEVEL: 'silent' });
    const { services, close } = createServices(config, database.db);
    const app = await buildApp(services, { logger: false });
    // A second connection has sent half its request's headers; the first request starts the
    // shutdown, and only then does the second request finish arriving.
    let second: Promise<string> | undefined;
    let finishSecond: (() => void) | undefined;
    app.get('/test-slow', { config: { access: 'none' } }, async () => {
      void app.close();
      await new Promise((r) => setTimeout(r, 50));
      finishSecond?.();
      await new Promise((r) => setTimeout(r, 200));
      return { ok: true };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    second = new Promise((resolve) => {
      let out = '';
      const s = net.connect(port, '127.0.0.1', () => s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n'));
      finishSecond = () => s.write('\r\n');
      s.on('data', (d) => (out += d.toString()));
      s.on('close', () => resolve(out));
      s.on('error', () => resolve(out));
    });
    await new Promise((r) => setTimeout(r, 50));
    const first = await raw(port, 'GET /test-slow HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(first).toMatch(/^HTTP\/1\.1 200/);
    const [status, body] = statusAndBody(await second);
    expect(status).toBe(503);
    expectCoded(status, body, 'FEEDLOOP_ERR_UNAVAILABLE');
    await app.close();
    await close();
    await database.close();
  });
});

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`readiness on ${backend.name}`, () => {
    it("answers a coded 503 without the database driver's text when the database is gone", async () => {
      const t = await startTestApp(await backend.open());
      try {
        expect((await t.app.inject({ method: 'GET', url: '/readyz' })).json()).toMatchObject({ status: 'ready' });
        await t.db.close();
        const res = await t.app.inject({ method: 'GET', url: '/readyz' });
        expect(res.statusCode).toBe(503);
        expect(res.json()).toEqual({ error: { code: 'FEEDLOOP_ERR_UNAVAILABLE', message: 'the database is not reachable; see the server log' } });
      } finally {
        await t.close().catch(() => undefined);
      }
    });
  });
}

describe('the metrics token', () => {
  it('protects /metrics with FEEDLOOP_METRICS_TOKEN when it is set', async () => {
    const token = 'metrics-token-0123456789abcdef';
    const t = await startTestApp(await BACKENDS[0]!.open(), { FEEDLOOP_METRICS_TOKEN: token });
    try {
      const none = await t.app.inject({ method: 'GET', url: '/metrics' });
      expect([none.statusCode, none.json().error.code]).toEqual([401, 'FEEDLOOP_ERR_AUTH_MISSING_KEY']);
      const wrong = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}x` } });
      expect([wrong.statusCode, wrong.json().error.code]).toEqual([401, 'FEEDLOOP_ERR_AUTH_INVALID_KEY']);
      // An API key is not the metrics token.
      const apiKey = await t.app.inject({ method: 'GET', url: '/metrics', headers: t.auth });
      expect(apiKey.statusCode).toBe(401);
      const right = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } });
      expect(right.statusCode).toBe(200);
      expect(right.body).toContain('feedloop_http_requests_total');
    } finally {
      await t.close();
    }
  });

  it('leaves /metrics open when FEEDLOOP_METRICS_TOKEN is unset', async () => {
    const t = await startTestApp(await BACKENDS[0]!.open());
    try {
      expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});
