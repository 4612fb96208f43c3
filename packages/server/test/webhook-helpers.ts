/**
 * Shared by the webhook suites: a local HTTP receiver standing in for a customer's endpoint,
 * messages to deliver, and a workspace of its own per test.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect } from 'vitest';
import { outboundMessageId, type OutboundEventType, type OutboundMessage } from '@feedloop/core';
import type { SqlClient } from '../src/db/sql-client.js';
import { deliverDueWebhooks, type DeliverOptions, type DeliverReport } from '../src/emit/webhook-delivery.js';
import { createWebhook } from '../src/store/webhooks.js';
import type { TestApp } from './harness.js';

/** One request as the receiver read it. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local HTTP server standing in for a customer's webhook endpoint. */
export interface Receiver {
  url: string;
  requests: Received[];
  close(): Promise<void>;
}

/** What the receiver does with its `n`th request (1-based): answer a status, or never answer. */
export type Answer = (n: number) => number | 'hang' | Promise<number>;

const receivers: Receiver[] = [];

export async function startReceiver(answer: Answer): Promise<Receiver> {
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

export const SECRET = 'test-secret-0123456789';

/**
 * Delivers as an on-premises feedloop with `FEEDLOOP_WEBHOOK_ALLOW_PRIVATE=true` does: the
 * receivers of these suites listen on 127.0.0.1, which the default refuses.
 */
export const deliverToLocal = (db: SqlClient, options: DeliverOptions = {}): Promise<DeliverReport> =>
  deliverDueWebhooks(db, { allowPrivate: true, ...options });

export function message(workspaceId: string, type: OutboundEventType = 'feedback.submitted'): OutboundMessage {
  const eventId = `ev-${randomBytes(6).toString('hex')}`;
  return {
    id: outboundMessageId(type, eventId),
    type,
    workspaceId,
    createdAt: new Date().toISOString(),
    data: { eventId, responseId: 'resp-1', note: 'é ✓ "quoted"', nested: { list: [1, 2.5, null] } },
  };
}

export const sum = (reports: DeliverReport[]): DeliverReport =>
  reports.reduce((a, b) => ({ delivered: a.delivered + b.delivered, retried: a.retried + b.retried, failed: a.failed + b.failed }), {
    delivered: 0,
    retried: 0,
    failed: 0,
  });

/** A workspace of its own per test, so one test's webhooks never receive another's messages. */
export async function freshWorkspace(t: TestApp) {
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
}
