/**
 * Webhook delivery against a real local receiver: signed POSTs, retries with backoff, giving up,
 * timeouts, deleted webhooks, the delivery log, and concurrent deliverers.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutboundMessage } from '@feedloop/core';
import { forbiddenUrlClass, type Resolver } from '../src/emit/safe-address.js';
import { deliverDueWebhooks, type DeliverReport } from '../src/emit/webhook-delivery.js';
import { signWebhookBody, verifyWebhookSignature } from '../src/emit/webhook-signature.js';
import { createDeliveries, createWebhook, DELIVERY_FAILURE_REASONS } from '../src/store/webhooks.js';
import { createWorkspace } from '../src/store/workspaces.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';
import { deliverToLocal, freshWorkspace, message, SECRET, startReceiver, sum } from './webhook-helpers.js';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`webhook delivery on ${backend.name}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(await backend.open());
    });
    afterAll(() => t.close());
    const fresh = () => freshWorkspace(t);

    it('POSTs the signed body once; a delivered message is never sent again', async () => {
      const w = await fresh();
      const receiver = await startReceiver(() => 200);
      const wh = await w.hook(receiver.url);
      const m = message(w.workspaceId);
      const ids = await createDeliveries(t.db, [m]);
      expect(ids).toHaveLength(1);

      expect(await deliverToLocal(t.db, { ids })).toEqual({ delivered: 1, retried: 0, failed: 0 });
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
      expect(await deliverToLocal(t.db, { ids })).toEqual({ delivered: 0, retried: 0, failed: 0 });
      expect(await deliverToLocal(t.db, { ids, now: new Date(Date.now() + 86_400_000) })).toEqual({ delivered: 0, retried: 0, failed: 0 });
      expect(await createDeliveries(t.db, [m])).toEqual([]);
      await sleep(20);
      expect(receiver.requests).toHaveLength(1);
    });

    it('retries a receiver answering 500 twice, then 200: three attempts, logged', async () => {
      const w = await fresh();
      const receiver = await startReceiver((n) => (n <= 2 ? 500 : 200));
      const wh = await w.hook(receiver.url);
      const ids = await createDeliveries(t.db, [message(w.workspaceId)]);

      const reports: DeliverReport[] = [await deliverToLocal(t.db, { ids, backoffMs: 10 })];
      expect(reports[0]).toEqual({ delivered: 0, retried: 1, failed: 0 });
      const [first] = (await w.log(wh.id)).deliveries;
      expect(first).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: 500, lastError: 'http_status', deliveredAt: null });
      expect(first?.nextAttemptAt).toEqual(expect.stringMatching(/^\d{4}-/));

      for (let round = 0; round < 100 && sum(reports).delivered === 0; round++) {
        await sleep(15);
        reports.push(await deliverToLocal(t.db, { ids, backoffMs: 10 }));
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
      expect(await deliverToLocal(t.db, { ids, backoffMs })).toEqual({ delivered: 0, retried: 1, failed: 0 });
      expect(await deliverToLocal(t.db, { ids, backoffMs })).toEqual({ delivered: 0, retried: 0, failed: 0 });
      expect(await deliverToLocal(t.db, { ids, backoffMs, now: new Date(Date.now() + backoffMs / 2) })).toEqual({ delivered: 0, retried: 0, failed: 0 });
      expect(receiver.requests).toHaveLength(1);
      expect(await deliverToLocal(t.db, { ids, backoffMs, now: new Date(Date.now() + backoffMs + 5_000) })).toEqual({ delivered: 0, retried: 1, failed: 0 });
      expect(receiver.requests).toHaveLength(2);
    });

    it('gives up after maxAttempts and then sends nothing more', async () => {
      const w = await fresh();
      const receiver = await startReceiver(() => 503);
      const wh = await w.hook(receiver.url);
      const ids = await createDeliveries(t.db, [message(w.workspaceId)]);
      const reports: DeliverReport[] = [];
      for (let round = 0; round < 100 && sum(reports).failed === 0; round++) {
        reports.push(await deliverToLocal(t.db, { ids, backoffMs: 1, maxAttempts: 3 }));
        await sleep(5);
      }
      expect(sum(reports)).toEqual({ delivered: 0, retried: 2, failed: 1 });
      const [entry] = (await w.log(wh.id)).deliveries;
      expect(entry).toMatchObject({ status: 'failed', attempts: 3, lastStatusCode: 503, lastError: 'http_status', nextAttemptAt: null, deliveredAt: null });
      expect(await deliverToLocal(t.db, { ids, now: new Date(Date.now() + 86_400_000) })).toEqual({ delivered: 0, retried: 0, failed: 0 });
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
      expect(await deliverToLocal(t.db, { ids, timeoutMs: 200 })).toEqual({ delivered: 0, retried: 2, failed: 0 });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(hanging.requests).toHaveLength(1);
      expect((await w.log(slow.id)).deliveries[0]).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null, lastError: 'timeout' });
      expect((await w.log(refused.id)).deliveries[0]).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null, lastError: 'connection_refused' });
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

      expect(await deliverToLocal(t.db, { ids })).toEqual({ delivered: 0, retried: 0, failed: 1 });
      await sleep(20);
      expect(receiver.requests).toHaveLength(0);
      const rows = await t.db.query<{ status: string; last_error: string | null; attempts: number }>(
        `SELECT status, last_error, attempts FROM webhook_deliveries WHERE id = ANY ($1::bigint[])`,
        [ids],
      );
      expect(rows).toEqual([
        { status: 'failed', last_error: 'webhook_deleted', attempts: 0 },
        { status: 'failed', last_error: 'webhook_deleted', attempts: 0 },
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

    it('refuses at delivery a hostname that now resolves to a private address (DNS rebinding): nothing sent, logged forbidden_address', async () => {
      const w = await fresh();
      const receiver = await startReceiver(() => 200);
      const { port } = new URL(receiver.url);
      const url = `http://hooks.rebind.test:${port}/hook`;
      // Subscribe time: the name answers a public address, so the check lets it in.
      const publicDns: Resolver = async () => [{ address: '93.184.215.14', family: 4 }];
      expect(await forbiddenUrlClass(url, { allowPrivate: false, resolve: publicDns })).toBeUndefined();
      const wh = await w.hook(url);
      // Delivery time: the same name answers loopback, where the receiver listens.
      const lookups: string[] = [];
      const rebound: Resolver = async (hostname) => {
        lookups.push(hostname);
        return [{ address: '127.0.0.1', family: 4 }];
      };
      const ids = await createDeliveries(t.db, [message(w.workspaceId)]);
      expect(await deliverDueWebhooks(t.db, { ids, resolve: rebound })).toEqual({ delivered: 0, retried: 1, failed: 0 });
      expect(lookups).toEqual(['hooks.rebind.test']);
      await sleep(20);
      expect(receiver.requests).toHaveLength(0);
      const [entry] = (await w.log(wh.id)).deliveries;
      expect(entry).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null, lastError: 'forbidden_address' });

      // One private address among public ones is refused too.
      const mixed: Resolver = async () => [{ address: '93.184.215.14', family: 4 }, { address: '::1', family: 6 }];
      expect(await deliverDueWebhooks(t.db, { ids, resolve: mixed, now: new Date(Date.now() + 86_400_000) })).toEqual({ delivered: 0, retried: 1, failed: 0 });
      expect(receiver.requests).toHaveLength(0);

      // Allowed, the connection goes to the address the lookup checked: this name has no DNS
      // record anywhere, so the receiver is reached only through the resolver's answer.
      expect(await deliverToLocal(t.db, { ids, resolve: rebound, now: new Date(Date.now() + 2 * 86_400_000) })).toEqual({ delivered: 1, retried: 0, failed: 0 });
      expect(receiver.requests).toHaveLength(1);
      expect(receiver.requests[0]?.headers.host).toBe(`hooks.rebind.test:${port}`);
    });

    it('refuses at delivery an IP-literal URL into the private network, without a connection', async () => {
      const w = await fresh();
      const receiver = await startReceiver(() => 200);
      // Stored behind the API's back, as a webhook subscribed before the check existed would be.
      const wh = await w.hook(receiver.url);
      const viaName = await w.hook(receiver.url.replace('127.0.0.1', 'localhost'));
      const ids = await createDeliveries(t.db, [message(w.workspaceId)]);
      expect(await deliverDueWebhooks(t.db, { ids })).toEqual({ delivered: 0, retried: 2, failed: 0 });
      await sleep(20);
      expect(receiver.requests).toHaveLength(0);
      for (const hook of [wh, viaName]) {
        expect((await w.log(hook.id)).deliveries[0]).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null, lastError: 'forbidden_address' });
      }
    });

    it('logs coded reasons, never connection error text naming addresses or ports', async () => {
      const w = await fresh();
      const closed = await startReceiver(() => 200);
      const { port } = new URL(closed.url);
      await closed.close();
      const refused = await w.hook(closed.url);
      const unknownName = await w.hook(`http://no-such-host.invalid:${port}/hook`);
      const ids = await createDeliveries(t.db, [message(w.workspaceId)]);
      const nxdomain: Resolver = async (hostname) => {
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      };
      expect(await deliverToLocal(t.db, { ids, resolve: nxdomain })).toEqual({ delivered: 0, retried: 2, failed: 0 });
      const refusedLog = await w.log(refused.id);
      const unknownLog = await w.log(unknownName.id);
      expect(refusedLog.deliveries[0]).toMatchObject({ lastStatusCode: null, lastError: 'connection_refused' });
      expect(unknownLog.deliveries[0]).toMatchObject({ lastStatusCode: null, lastError: 'dns_failure' });
      const text = JSON.stringify([refusedLog, unknownLog]);
      expect(text).not.toContain(port);
      expect(text).not.toContain('127.0.0.1');
      expect(text).not.toMatch(/ECONN|getaddrinfo|fetch failed/);
      const reasons: readonly string[] = DELIVERY_FAILURE_REASONS;
      expect(reasons).toEqual(expect.arrayContaining(['connection_refused', 'dns_failure', 'forbidden_address', 'timeout', 'http_status']));
    });

    // On both stores: on PGlite's one connection the two calls' statements take turns, but their
    // POSTs (made outside any transaction, under a lease) still overlap, which is what is tested.
    it('two concurrent calls never send one delivery twice', async () => {
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

        const reports = await Promise.all([deliverToLocal(db, { limit: 30 }), deliverToLocal(db, { limit: 30 })]);
        expect(sum(reports)).toEqual({ delivered: 50, retried: 0, failed: 0 });
        expect(reports.every((r) => r.delivered > 0)).toBe(true);
        expect(await deliverToLocal(db, { now: new Date(Date.now() + 86_400_000) })).toEqual({ delivered: 0, retried: 0, failed: 0 });
        const seen = receiver.requests.map((r) => (JSON.parse(r.body) as OutboundMessage).id).sort();
        expect(seen).toEqual(messages.map((m) => m.id).sort());
      } finally {
        await database.close();
      }
    });
  });
}
