/**
 * Webhooks: signatures, the subscription API, and the deliveries processing queues.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { retryDelayMs } from '../src/emit/webhook-delivery.js';
import { generateWebhookSecret, signWebhookBody, verifyWebhookSignature } from '../src/emit/webhook-signature.js';
import { createDeliveries } from '../src/store/webhooks.js';
import { buildApp } from '../src/http/app.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';
import { freshWorkspace, message, SECRET } from './webhook-helpers.js';

describe('webhook signatures', () => {
  it('signs the raw body with HMAC-SHA256 and verifies only the same body, secret and header', () => {
    const body = '{"id":"feedback.submitted:e1","data":{"x":1}}';
    const header = signWebhookBody(SECRET, body);
    expect(header).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(SECRET, body, header)).toBe(true);
    expect(verifyWebhookSignature(SECRET, `${body} `, header)).toBe(false);
    expect(verifyWebhookSignature('another-secret-0123456', body, header)).toBe(false);
    expect(verifyWebhookSignature(SECRET, body, header.slice(0, -1))).toBe(false);
    expect(verifyWebhookSignature(SECRET, body, header.replace('sha256=', ''))).toBe(false);
    expect(verifyWebhookSignature(SECRET, body, undefined)).toBe(false);
  });

  it('generates whsec_ secrets of 32 random bytes', () => {
    const a = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(generateWebhookSecret()).not.toBe(a);
  });

  it('refuses private webhook addresses and caps webhooks at 20 per workspace unless configured', () => {
    expect(loadConfig({})).toMatchObject({ webhookAllowPrivate: false, webhookMaxPerWorkspace: 20 });
    expect(loadConfig({ FEEDLOOP_WEBHOOK_ALLOW_PRIVATE: 'true', FEEDLOOP_WEBHOOK_MAX_PER_WORKSPACE: '3' })).toMatchObject({
      webhookAllowPrivate: true,
      webhookMaxPerWorkspace: 3,
    });
    expect(() => loadConfig({ FEEDLOOP_WEBHOOK_ALLOW_PRIVATE: 'yes' })).toThrow(/FEEDLOOP_WEBHOOK_ALLOW_PRIVATE/);
    expect(() => loadConfig({ FEEDLOOP_WEBHOOK_MAX_PER_WORKSPACE: '0' })).toThrow(/FEEDLOOP_WEBHOOK_MAX_PER_WORKSPACE/);
  });

  it('backs off exponentially up to an hour', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 1_000))).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(retryDelayMs(30, 10_000)).toBe(3_600_000);
  });
});

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`webhooks on ${backend.name}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(await backend.open());
    });
    afterAll(() => t.close());
    const fresh = () => freshWorkspace(t);

    it('creates (secret shown once), lists without secrets, deletes, and scopes to the workspace', async () => {
      const created = await t.app.inject({
        method: 'POST',
        url: '/v1/webhooks',
        headers: t.auth,
        payload: { url: 'https://example.com/hook', events: ['learning.signal', 'feedback.submitted', 'learning.signal'] },
      });
      expect(created.statusCode).toBe(201);
      const wh = created.json();
      expect(wh).toEqual({
        id: expect.stringMatching(/^wh_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/),
        url: 'https://example.com/hook',
        events: ['learning.signal', 'feedback.submitted'],
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
        format: 'feedloop',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
      const given = await t.app.inject({
        method: 'POST',
        url: '/v1/webhooks',
        headers: t.auth,
        payload: { url: 'https://hooks.example.org/x', events: ['learning.signal'], secret: SECRET },
      });
      expect([given.statusCode, given.json().secret]).toEqual([201, SECRET]);

      const list = await t.app.inject({ method: 'GET', url: '/v1/webhooks', headers: t.auth });
      const listed = list.json().webhooks as Record<string, unknown>[];
      expect(listed.map((w) => w.id)).toEqual(expect.arrayContaining([wh.id, given.json().id]));
      expect(listed.find((w) => w.id === wh.id)).toEqual({ id: wh.id, url: wh.url, events: wh.events, format: 'feedloop', createdAt: wh.createdAt });
      expect(JSON.stringify(list.json())).not.toContain('whsec_');
      expect(JSON.stringify(list.json())).not.toContain(SECRET);

      const other = await t.otherWorkspace();
      const otherAuth = { authorization: `Bearer ${other.secretKey}` };
      expect((await t.app.inject({ method: 'GET', url: '/v1/webhooks', headers: otherAuth })).json()).toEqual({ webhooks: [] });
      for (const req of [
        { method: 'DELETE' as const, url: `/v1/webhooks/${wh.id}` },
        { method: 'GET' as const, url: `/v1/webhooks/${wh.id}/deliveries` },
      ]) {
        const res = await t.app.inject({ ...req, headers: otherAuth });
        expect(res.statusCode).toBe(404);
        expect(res.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_WEBHOOK_NOT_FOUND', field: 'id' });
      }

      const deleted = await t.app.inject({ method: 'DELETE', url: `/v1/webhooks/${wh.id}`, headers: t.auth });
      expect([deleted.statusCode, deleted.body]).toEqual([204, '']);
      const again = await t.app.inject({ method: 'DELETE', url: `/v1/webhooks/${wh.id}`, headers: t.auth });
      expect(again.json().error.code).toBe('FEEDLOOP_ERR_WEBHOOK_NOT_FOUND');
      const after = (await t.app.inject({ method: 'GET', url: '/v1/webhooks', headers: t.auth })).json().webhooks as { id: string }[];
      expect(after.map((w) => w.id)).not.toContain(wh.id);
      expect(after.map((w) => w.id)).toContain(given.json().id);
      const unknown = await t.app.inject({ method: 'DELETE', url: '/v1/webhooks/wh_nope', headers: t.auth });
      expect(unknown.statusCode).toBe(404);
    });

    it('documents the routes in the OpenAPI document', async () => {
      const docs = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json();
      expect(Object.keys(docs.paths)).toEqual(expect.arrayContaining(['/v1/webhooks', '/v1/webhooks/{id}', '/v1/webhooks/{id}/deliveries']));
      expect(Object.keys(docs.paths['/v1/webhooks'])).toEqual(expect.arrayContaining(['post', 'get']));
    });

    it('answers a bad body with 400 naming the field', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ url: 'ftp://example.com/x', events: ['learning.signal'] }, 'url'],
        [{ url: '/relative/hook', events: ['learning.signal'] }, 'url'],
        [{ url: 'not a url', events: ['learning.signal'] }, 'url'],
        [{ events: ['learning.signal'] }, 'url'],
        [{ url: 'https://example.com', events: [] }, 'events'],
        [{ url: 'https://example.com', events: ['feedback.deleted'] }, 'events[0]'],
        [{ url: 'https://example.com', events: ['learning.signal'], secret: 'short' }, 'secret'],
        [{ url: 'https://example.com', events: ['learning.signal'], secret: 'x'.repeat(201) }, 'secret'],
        [{ url: 'https://example.com', events: ['learning.signal'], extra: 1 }, 'extra'],
      ];
      for (const [payload, field] of cases) {
        const res = await t.app.inject({ method: 'POST', url: '/v1/webhooks', headers: t.auth, payload });
        expect([res.statusCode, res.json().error.code, res.json().error.field], JSON.stringify(payload)).toEqual([
          400,
          'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD',
          field,
        ]);
      }
      const url = await t.app.inject({ method: 'POST', url: '/v1/webhooks', headers: t.auth, payload: { url: 'ftp://x', events: ['learning.signal'] } });
      expect(url.json().error.message).toBe('url: must be an absolute http(s) URL');
    });

    it('refuses URLs into loopback, private, link-local and other non-public networks with a coded 400, storing nothing', async () => {
      const w = await fresh();
      const urls = [
        'http://127.0.0.1:8080/hook',
        'http://127.1.2.3/',
        'http://localhost:8080/hook',
        'http://LOCALHOST./hook',
        'http://api.localhost/hook',
        'http://[::1]/',
        'http://[::1]:9000/x',
        'http://169.254.169.254/latest/meta-data/',
        'http://10.0.0.1/',
        'http://172.16.5.4/',
        'http://192.168.1.10/',
        'http://0.0.0.0/',
        'http://[::]/',
        'http://[::ffff:127.0.0.1]/',
        'http://[::ffff:a9fe:a9fe]/',
        'http://2130706433/',
        'http://0x7f.1/',
        'http://0177.0.0.1/',
        'http://[fe80::1]/',
        'http://[fd00::1]/',
        'http://100.64.0.1/',
        'http://224.0.0.1/',
        'http://255.255.255.255/',
        'https://user:pass@127.0.0.1/',
      ];
      for (const url of urls) {
        const res = await t.app.inject({ method: 'POST', url: '/v1/webhooks', headers: w.auth, payload: { url, events: ['learning.signal'] } });
        expect([res.statusCode, res.json().error?.code, res.json().error?.field], url).toEqual([400, 'FEEDLOOP_ERR_WEBHOOK_URL_FORBIDDEN', 'url']);
      }
      const meta = await t.app.inject({ method: 'POST', url: '/v1/webhooks', headers: w.auth, payload: { url: 'http://169.254.169.254/', events: ['learning.signal'] } });
      expect(meta.json().error.message).toMatch(/^url: .*link-local address/);
      expect((await t.app.inject({ method: 'GET', url: '/v1/webhooks', headers: w.auth })).json()).toEqual({ webhooks: [] });
      const [{ n } = { n: -1 }] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhooks WHERE workspace_id = $1', [w.workspaceId]);
      expect(n).toBe(0);
      // Public addresses, and names that do not resolve (yet: each delivery checks again), are accepted.
      for (const url of ['https://8.8.8.8/hook', 'https://[2606:4700:4700::1111]/hook', 'https://hooks.example.invalid/hook']) {
        const res = await t.app.inject({ method: 'POST', url: '/v1/webhooks', headers: w.auth, payload: { url, events: ['learning.signal'] } });
        expect(res.statusCode, url).toBe(201);
      }
    });

    it('accepts them with FEEDLOOP_WEBHOOK_ALLOW_PRIVATE=true', async () => {
      const allowing = await buildApp({ ...t.services, config: { ...t.services.config, webhookAllowPrivate: true } }, { logger: false });
      try {
        const w = await fresh();
        for (const url of ['http://127.0.0.1:8080/hook', 'http://localhost:8080/hook', 'http://[::1]/', 'http://10.0.0.1/', 'http://169.254.169.254/']) {
          const res = await allowing.inject({ method: 'POST', url: '/v1/webhooks', headers: w.auth, payload: { url, events: ['learning.signal'] } });
          expect([res.statusCode, res.json().url], url).toEqual([201, url]);
        }
      } finally {
        await allowing.close();
      }
    });

    it('caps the live webhooks of a workspace (default 20), concurrent creates included; a delete frees a place', async () => {
      const w = await fresh();
      const create = (i: number) =>
        t.app.inject({ method: 'POST', url: '/v1/webhooks', headers: w.auth, payload: { url: `https://93.184.215.14/${i}`, events: ['learning.signal'] } });
      const answers = await Promise.all(Array.from({ length: 26 }, (_, i) => create(i)));
      const created = answers.filter((r) => r.statusCode === 201);
      const refused = answers.filter((r) => r.statusCode !== 201);
      expect(created).toHaveLength(20);
      expect(refused.map((r) => [r.statusCode, r.json().error.code])).toEqual(Array.from({ length: 6 }, () => [409, 'FEEDLOOP_ERR_WEBHOOK_LIMIT']));
      expect((await t.app.inject({ method: 'GET', url: '/v1/webhooks', headers: w.auth })).json().webhooks).toHaveLength(20);
      // Another workspace has places of its own.
      const other = await fresh();
      expect((await t.app.inject({ method: 'POST', url: '/v1/webhooks', headers: other.auth, payload: { url: 'https://hooks.example.org/o', events: ['learning.signal'] } })).statusCode).toBe(201);
      const first = created[0]?.json().id as string;
      expect((await t.app.inject({ method: 'DELETE', url: `/v1/webhooks/${first}`, headers: w.auth })).statusCode).toBe(204);
      expect((await create(100)).statusCode).toBe(201);
      expect((await create(101)).json().error.code).toBe('FEEDLOOP_ERR_WEBHOOK_LIMIT');
    });

    it('refuses public keys and missing keys', async () => {
      const pub = { authorization: `Bearer ${t.publicKey}` };
      const payload = { url: 'https://example.com/hook', events: ['learning.signal'] };
      const post = await t.app.inject({ method: 'POST', url: '/v1/webhooks', headers: pub, payload });
      expect([post.statusCode, post.json().error.code]).toEqual([403, 'FEEDLOOP_ERR_AUTH_FORBIDDEN']);
      const list = await t.app.inject({ method: 'GET', url: '/v1/webhooks', headers: pub });
      expect([list.statusCode, list.json().error.code]).toEqual([403, 'FEEDLOOP_ERR_AUTH_FORBIDDEN']);
      const none = await t.app.inject({ method: 'POST', url: '/v1/webhooks', payload });
      expect([none.statusCode, none.json().error.code]).toEqual([401, 'FEEDLOOP_ERR_AUTH_MISSING_KEY']);
    });

    it('queues one delivery per subscribed live webhook of the workspace, none on replay', async () => {
      const w = await fresh();
      const other = await fresh();
      const both = await w.hook('http://127.0.0.1:9/a', ['feedback.submitted', 'learning.signal']);
      const learningOnly = await w.hook('http://127.0.0.1:9/b', ['learning.signal']);
      const deleted = await w.hook('http://127.0.0.1:9/c', ['feedback.submitted', 'learning.signal']);
      await t.app.inject({ method: 'DELETE', url: `/v1/webhooks/${deleted.id}`, headers: w.auth });
      const elsewhere = await other.hook('http://127.0.0.1:9/d', ['feedback.submitted', 'learning.signal']);

      const submitted = message(w.workspaceId, 'feedback.submitted');
      const signal = message(w.workspaceId, 'learning.signal');
      const foreign = message(other.workspaceId, 'feedback.submitted');
      const ids = await createDeliveries(t.db, [submitted, signal, foreign, submitted]);
      expect(ids).toHaveLength(4);
      expect(new Set(ids).size).toBe(4);

      const rows = await t.db.query<{ webhook_id: string; message_id: string; workspace_id: string; status: string; body: unknown }>(
        `SELECT webhook_id, message_id, workspace_id, status, body FROM webhook_deliveries WHERE id = ANY ($1::bigint[])`,
        [ids],
      );
      const pairs = rows.map((r) => `${r.webhook_id} ${r.message_id}`).sort();
      expect(pairs).toEqual(
        [`${both.id} ${submitted.id}`, `${both.id} ${signal.id}`, `${learningOnly.id} ${signal.id}`, `${elsewhere.id} ${foreign.id}`].sort(),
      );
      expect(rows.every((r) => r.status === 'pending')).toBe(true);
      expect(rows.find((r) => r.message_id === foreign.id)).toMatchObject({ workspace_id: other.workspaceId, body: foreign });

      expect(await createDeliveries(t.db, [submitted, signal, foreign])).toEqual([]);
      expect(await createDeliveries(t.db, [])).toEqual([]);
      const inTx = await t.db.transaction((tx) => createDeliveries(tx, [message(w.workspaceId, 'learning.signal')]));
      expect(inTx).toHaveLength(2);
      const [{ n } = { n: -1 }] = await t.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1`,
        [deleted.id],
      );
      expect(n).toBe(0);
    });
  });
}
