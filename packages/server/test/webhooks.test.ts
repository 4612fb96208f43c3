import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { outboundMessageId, type OutboundEventType, type OutboundMessage } from '../src/emit/outbound-message.js';
import { deliverDueWebhooks, retryDelayMs, type DeliverReport } from '../src/emit/webhook-delivery.js';
import { generateWebhookSecret, signWebhookBody, verifyWebhookSignature } from '../src/emit/webhook-signature.js';
import { createDeliveries, createWebhook } from '../src/emit/webhook-store.js';
import { createWorkspace } from '../src/store/workspaces.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

/** One request as the receiver read it. */
interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local HTTP server standing in for a customer's webhook endpoint. */
interface Receiver {
  url: string;
  requests: Received[];
  close(): Promise<void>;
}

/** What the receiver does with its `n`th request (1-based): answer a status, or never answer. */
type Answer = (n: number) => number | 'hang' | Promise<number>;

const receivers: Receiver[] = [];

async function startReceiver(answer: Answer): Promise<Receiver> {
  const requests: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      void Promise.resolve(answer(requests.length)).then((status) => {
        if (status !== 'hang') res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  receivers.push(receiver);
  return receiver;
}

afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

const SECRET = 'test-secret-0123456789';

function message(workspaceId: string, type: OutboundEventType = 'feedback.submitted'): OutboundMessage {
  const eventId = `ev-${randomBytes(6).toString('hex')}`;
  return {
    id: outboundMessageId(type, eventId),
    type,
    workspaceId,
    createdAt: new Date().toISOString(),
    data: { eventId, responseId: 'resp-1', note: 'é ✓ "quoted"', nested: { list: [1, 2.5, null] } },
  };
}

const sum = (reports: DeliverReport[]): DeliverReport =>
  reports.reduce((a, b) => ({ delivered: a.delivered + b.delivered, retried: a.retried + b.retried, failed: a.failed + b.failed }), {
    delivered: 0,
    retried: 0,
    failed: 0,
  });

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

    /** A workspace of its own per test, so one test's webhooks never receive another's messages. */
    const fresh = async () => {
      const { workspaceId, secretKey } = await t.otherWorkspace();
      const auth = { authorization: `Bearer ${secretKey}` };
      return {
        workspaceId,
        auth,
        hook: (url: string, events: OutboundEventType[] = ['feedback.submitted']) => createWebhook(t.db, workspaceId, { url, events, secret: SECRET }),
        log: async (webhookId: string, query = '') => {
          const res = await t.app.inject({ method: 'GET', url: `/v1/webhooks/${webhookId}/deliveries${query}`, headers: auth });
          expect(res.statusCode).toBe(200);
          return res.json() as { deliveries: Record<string, unknown>[]; nextCursor: string | null };
        },
      };
    };

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
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
      const given = await t.app.inject({
        method: 'POST',
        url: '/v1/webhooks',
        headers: t.auth,
        payload: { url: 'http://127.0.0.1:9/x', events: ['learning.signal'], secret: SECRET },
      });
      expect([given.statusCode, given.json().secret]).toEqual([201, SECRET]);

      const list = await t.app.inject({ method: 'GET', url: '/v1/webhooks', headers: t.auth });
      const listed = list.json().webhooks as Record<string, unknown>[];
      expect(listed.map((w) => w.id)).toEqual(expect.arrayContaining([wh.id, given.json().id]));
      expect(listed.find((w) => w.id === wh.id)).toEqual({ id: wh.id, url: wh.url, events: wh.events, createdAt: wh.createdAt });
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

    it('POSTs the signed body once; a delivered message is never sent again', async () => {
      const w = await fresh();
      const receiver = await startReceiver(() => 200);
      const wh = await w.hook(receiver.url);
      const m = message(w.workspaceId);
      const ids = await createDeliveries(t.db, [m]);
      expect(ids).toHaveLength(1);

      expect(await deliverDueWebhooks(t.db, { ids })).toEqual({ delivered: 1, retried: 0, failed: 0 });
      expect(receiver.requests).toHaveLength(1);
      const [req] = receiver.requests;
      if (!req) throw new Error('no request');
      expect(verifyWebhookSignature(SECRET, req.body, req.headers['x-feedloop-signature'] as string)).toBe(true);
      expect(req.headers['x-feedloop-signature']).toBe(signWebhookBody(SECRET, req.body));
      expect(JSON.parse(req.body)).toEqual(m);
      expect(req.headers).toMatchObject({
        'content-type': 'application/json',
        'x-feedloop-event': 'feedback.submitted',
        'x-feedloop-delivery': String(ids[0]),
      });

      const [entry] = (await w.log(wh.id)).deliveries;
      expect(entry).toMatchObject({ id: ids[0], messageId: m.id, eventType: 'feedback.submitted', status: 'delivered', attempts: 1, lastStatusCode: 200, lastError: null, nextAttemptAt: null });
      expect(entry?.deliveredAt).toEqual(expect.stringMatching(/^\d{4}-/));

      // Again by id, by sweep, far in the future, and after the message is queued again: nothing.
      expect(await deliverDueWebhooks(t.db, { ids })).toEqual({ delivered: 0, retried: 0, failed: 0 });
      expect(await deliverDueWebhooks(t.db, { ids, now: new Date(Date.now() + 86_400_000) })).toEqual({ delivered: 0, retried: 0, failed: 0 });
      expect(await createDeliveries(t.db, [m])).toEqual([]);
      await sleep(20);
      expect(receiver.requests).toHaveLength(1);
    });

    it('retries a receiver answering 500 twice, then 200: three attempts, logged', async () => {
      const w = await fresh();
      const receiver = await startReceiver((n) => (n <= 2 ? 500 : 200));
      const wh = await w.hook(receiver.url);
      const ids = await createDeliveries(t.db, [message(w.workspaceId)]);

      const reports: DeliverReport[] = [await deliverDueWebhooks(t.db, { ids, backoffMs: 10 })];
      expect(reports[0]).toEqual({ delivered: 0, retried: 1, failed: 0 });
      const [first] = (await w.log(wh.id)).deliveries;
      expect(first).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: 500, lastError: 'HTTP 500', deliveredAt: null });
      expect(first?.nextAttemptAt).toEqual(expect.stringMatching(/^\d{4}-/));

      for (let round = 0; round < 100 && sum(reports).delivered === 0; round++) {
        await sleep(15);
        reports.push(await deliverDueWebhooks(t.db, { ids, backoffMs: 10 }));
      }
      expect(sum(reports)).toEqual({ delivered: 1, retried: 2, failed: 0 });
      expect(receiver.requests).toHaveLength(3);
      expect(new Set(receiver.requests.map((r) => r.body)).size).toBe(1);
      expect(new Set(receiver.requests.map((r) => r.headers['x-feedloop-delivery'])).size).toBe(1);
      const [done] = (await w.log(wh.id)).deliveries;
      expect(done).toMatchObject({ status: 'delivered', attempts: 3, lastStatusCode: 200, lastError: null, nextAttemptAt: null });
    });

    it('waits for the backoff before the next attempt', async () => {
      const w = await fresh();
      const receiver = await startReceiver(() => 502);
      await w.hook(receiver.url);
      const ids = await createDeliveries(t.db, [message(w.workspaceId)]);
      const backoffMs = 60_000;
      expect(await deliverDueWebhooks(t.db, { ids, backoffMs })).toEqual({ delivered: 0, retried: 1, failed: 0 });
      expect(await deliverDueWebhooks(t.db, { ids, backoffMs })).toEqual({ delivered: 0, retried: 0, failed: 0 });
      expect(await deliverDueWebhooks(t.db, { ids, backoffMs, now: new Date(Date.now() + backoffMs / 2) })).toEqual({ delivered: 0, retried: 0, failed: 0 });
      expect(receiver.requests).toHaveLength(1);
      expect(await deliverDueWebhooks(t.db, { ids, backoffMs, now: new Date(Date.now() + backoffMs + 5_000) })).toEqual({ delivered: 0, retried: 1, failed: 0 });
      expect(receiver.requests).toHaveLength(2);
    });

    it('gives up after maxAttempts and then sends nothing more', async () => {
      const w = await fresh();
      const receiver = await startReceiver(() => 503);
      const wh = await w.hook(receiver.url);
      const ids = await createDeliveries(t.db, [message(w.workspaceId)]);
      const reports: DeliverReport[] = [];
      for (let round = 0; round < 100 && sum(reports).failed === 0; round++) {
        reports.push(await deliverDueWebhooks(t.db, { ids, backoffMs: 1, maxAttempts: 3 }));
        await sleep(5);
      }
      expect(sum(reports)).toEqual({ delivered: 0, retried: 2, failed: 1 });
      const [entry] = (await w.log(wh.id)).deliveries;
      expect(entry).toMatchObject({ status: 'failed', attempts: 3, lastStatusCode: 503, lastError: 'HTTP 503', nextAttemptAt: null, deliveredAt: null });
      expect(await deliverDueWebhooks(t.db, { ids, now: new Date(Date.now() + 86_400_000) })).toEqual({ delivered: 0, retried: 0, failed: 0 });
      expect(receiver.requests).toHaveLength(3);
    });

    it('counts a timeout and a refused connection as failed attempts', async () => {
      const w = await fresh();
      const hanging = await startReceiver(() => 'hang');
      const slow = await w.hook(hanging.url);
      const closed = await startReceiver(() => 200);
      const refused = await w.hook(closed.url);
      await closed.close();
      const ids = await createDeliveries(t.db, [message(w.workspaceId)]);
      expect(ids).toHaveLength(2);

      const started = Date.now();
      expect(await deliverDueWebhooks(t.db, { ids, timeoutMs: 200 })).toEqual({ delivered: 0, retried: 2, failed: 0 });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(hanging.requests).toHaveLength(1);
      expect((await w.log(slow.id)).deliveries[0]).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null, lastError: 'timeout after 200 ms' });
      expect((await w.log(refused.id)).deliveries[0]).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null, lastError: expect.stringContaining('ECONNREFUSED') });
    });

    it("never sends a deleted webhook's pending deliveries", async () => {
      const w = await fresh();
      const receiver = await startReceiver(() => 200);
      const viaApi = await w.hook(receiver.url);
      const raced = await w.hook(receiver.url);
      const ids = await createDeliveries(t.db, [message(w.workspaceId)]);
      expect(ids).toHaveLength(2);
      // Deleted through the API: its pending delivery is failed at once.
      expect((await t.app.inject({ method: 'DELETE', url: `/v1/webhooks/${viaApi.id}`, headers: w.auth })).statusCode).toBe(204);
      // Deleted behind the worker's back (as a delete racing the processing transaction would).
      await t.db.query(`UPDATE webhooks SET deleted_at = now() WHERE id = $1`, [raced.id]);

      expect(await deliverDueWebhooks(t.db, { ids })).toEqual({ delivered: 0, retried: 0, failed: 1 });
      await sleep(20);
      expect(receiver.requests).toHaveLength(0);
      const rows = await t.db.query<{ status: string; last_error: string | null; attempts: number }>(
        `SELECT status, last_error, attempts FROM webhook_deliveries WHERE id = ANY ($1::bigint[])`,
        [ids],
      );
      expect(rows).toEqual([
        { status: 'failed', last_error: 'webhook deleted', attempts: 0 },
        { status: 'failed', last_error: 'webhook deleted', attempts: 0 },
      ]);
    });

    it('pages the delivery log newest first', async () => {
      const w = await fresh();
      const wh = await w.hook('http://127.0.0.1:9/never');
      const ids = await createDeliveries(t.db, [message(w.workspaceId), message(w.workspaceId), message(w.workspaceId)]);
      expect(ids).toHaveLength(3);
      const first = await w.log(wh.id, '?limit=2');
      expect(first.deliveries.map((d) => d.id)).toEqual([...ids].sort((a, b) => b - a).slice(0, 2));
      expect(first.deliveries[0]).toMatchObject({ status: 'pending', attempts: 0, nextAttemptAt: expect.stringMatching(/^\d{4}-/) });
      expect(first.nextCursor).toEqual(expect.any(String));
      const second = await w.log(wh.id, `?limit=2&cursor=${first.nextCursor}`);
      expect(second.deliveries.map((d) => d.id)).toEqual([Math.min(...ids)]);
      expect(second.nextCursor).toBeNull();
      const bad = await t.app.inject({ method: 'GET', url: `/v1/webhooks/${wh.id}/deliveries?cursor=zzz`, headers: w.auth });
      expect([bad.statusCode, bad.json().error.field]).toEqual([400, 'cursor']);
    });

    // Postgres only: PGlite has one connection, so two calls there cannot run concurrently at all.
    if (backend.name === 'postgres') it('two concurrent calls never send one delivery twice', async () => {
      const database = await backend.open();
      try {
        const { db } = database;
        const { workspace } = await createWorkspace(db, { name: `ws-${randomBytes(4).toString('hex')}` });
        // Slow enough that both calls are POSTing at the same time.
        const receiver = await startReceiver(async () => {
          await sleep(10);
          return 200;
        });
        await createWebhook(db, workspace.id, { url: receiver.url, events: ['feedback.submitted'], secret: SECRET });
        const messages = Array.from({ length: 50 }, () => message(workspace.id));
        expect(await createDeliveries(db, messages)).toHaveLength(50);

        const reports = await Promise.all([deliverDueWebhooks(db, { limit: 30 }), deliverDueWebhooks(db, { limit: 30 })]);
        expect(sum(reports)).toEqual({ delivered: 50, retried: 0, failed: 0 });
        expect(reports.every((r) => r.delivered > 0)).toBe(true);
        expect(await deliverDueWebhooks(db, { now: new Date(Date.now() + 86_400_000) })).toEqual({ delivered: 0, retried: 0, failed: 0 });
        const seen = receiver.requests.map((r) => (JSON.parse(r.body) as OutboundMessage).id).sort();
        expect(seen).toEqual(messages.map((m) => m.id).sort());
      } finally {
        await database.close();
      }
    });
  });
}
