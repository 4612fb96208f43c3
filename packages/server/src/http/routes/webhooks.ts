/**
 * `/v1/webhooks`: subscribe a URL to outbound events, list and delete subscriptions, and read a
 * webhook's delivery log. Secret keys only (the `/v1/` default): a subscription decides where a
 * workspace's data goes.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ALERT_EVENT_TYPES, OUTBOUND_EVENT_TYPES } from '@feedloop/core';
import { forbiddenUrlClass } from '../../emit/safe-address.js';
import { generateWebhookSecret } from '../../emit/webhook-signature.js';
import {
  createWebhook,
  deleteWebhook,
  findWebhook,
  listDeliveries,
  listWebhooks,
  WEBHOOK_FORMATS,
  type DeliveryInfo,
  type WebhookInfo,
} from '../../store/webhooks.js';
import { FeedloopError } from '../../errors.js';
import { decodeCursor, encodeCursor } from '../../store/feedback-queries.js';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';

/** Longer URLs are refused; browsers and proxies stop around here too. */
const URL_MAX_LENGTH = 2_048;
const SECRET_MIN_LENGTH = 16;
const SECRET_MAX_LENGTH = 200;
const ID_MAX_LENGTH = 64;
const DEFAULT_PAGE = 50;
const MAX_PAGE = 1_000;

const createBody = z.strictObject({
  url: z
    .url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' })
    .max(URL_MAX_LENGTH)
    .describe('Where deliveries are POSTed'),
  events: z.array(z.enum(OUTBOUND_EVENT_TYPES)).min(1).describe('The event types to deliver; repeats are ignored'),
  secret: z
    .string()
    .min(SECRET_MIN_LENGTH)
    .max(SECRET_MAX_LENGTH)
    .optional()
    .describe('The signing secret; generated (whsec_…) when absent'),
  format: z
    .enum(WEBHOOK_FORMATS)
    .default('feedloop')
    .describe('How bodies are written: feedloop events, an Alertmanager webhook body, or a Slack message (the last two for alert.* events only)'),
});

const alertEventTypes: ReadonlySet<string> = new Set(ALERT_EVENT_TYPES);

const webhookView = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.enum(OUTBOUND_EVENT_TYPES)),
  format: z.enum(WEBHOOK_FORMATS),
  createdAt: z.string(),
});

const deliveryView = z.object({
  id: z.number(),
  messageId: z.string(),
  eventType: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number(),
  lastStatusCode: z.number().nullable(),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  deliveredAt: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
});

// Webhook ids are `wh_` and a UUID: anything else (a NUL byte, which Postgres text cannot hold,
// included) is refused before it reaches a query.
const idParams = z.strictObject({ id: z.string().min(1).max(ID_MAX_LENGTH).regex(/^[A-Za-z0-9_-]+$/, 'not a webhook id') });

const deliveriesQuery = z.strictObject({
  cursor: z.string().max(ID_MAX_LENGTH).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(DEFAULT_PAGE),
});

const viewOf = (w: WebhookInfo): z.infer<typeof webhookView> => ({ id: w.id, url: w.url, events: w.events, format: w.format, createdAt: w.createdAt.toISOString() });

const deliveryViewOf = (d: DeliveryInfo): z.infer<typeof deliveryView> => ({
  ...d,
  createdAt: d.createdAt.toISOString(),
  deliveredAt: d.deliveredAt?.toISOString() ?? null,
  nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
});

const notFound = (id: string): FeedloopError =>
  new FeedloopError('FEEDLOOP_ERR_WEBHOOK_NOT_FOUND', `id: no webhook ${JSON.stringify(id)} in this workspace`, { field: 'id' });

/** The webhook routes. */
export const webhookRoutes: FastifyPluginAsync<AppServices> = async (app, { db, config }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post('/v1/webhooks', {
    schema: {
      summary: 'Subscribe a URL to events; the answer is the only time the secret is shown',
      tags: ['webhooks'],
      body: createBody,
      response: { 201: webhookView.extend({ secret: z.string() }) },
    },
    handler: async (request, reply) => {
      const { url, events, secret, format } = request.body;
      const notAlert = events.find((e) => !alertEventTypes.has(e));
      if (format !== 'feedloop' && notAlert !== undefined) {
        throw new FeedloopError(
          'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD',
          `events: a ${format} webhook carries alert events only (${ALERT_EVENT_TYPES.join(', ')}), not ${notAlert}`,
          { field: 'events' },
        );
      }
      const forbidden = await forbiddenUrlClass(url, { allowPrivate: config.webhookAllowPrivate });
      if (forbidden !== undefined) {
        throw new FeedloopError(
          'FEEDLOOP_ERR_WEBHOOK_URL_FORBIDDEN',
          `url: the host is or resolves to a ${forbidden.replace('_', '-')} address; webhooks go to public addresses only (FEEDLOOP_WEBHOOK_ALLOW_PRIVATE)`,
          { field: 'url' },
        );
      }
      const created = await createWebhook(db, authOf(request).workspaceId, {
        url,
        events: [...new Set(events)],
        secret: secret ?? generateWebhookSecret(),
        format,
        maxPerWorkspace: config.webhookMaxPerWorkspace,
      });
      return reply.status(201).send({ ...viewOf(created), secret: created.secret });
    },
  });

  r.get('/v1/webhooks', {
    schema: { summary: 'The webhooks of the workspace, without secrets', tags: ['webhooks'], response: { 200: z.object({ webhooks: z.array(webhookView) }) } },
    handler: async (request) => ({ webhooks: (await listWebhooks(db, authOf(request).workspaceId)).map(viewOf) }),
  });

  r.delete('/v1/webhooks/:id', {
    schema: { summary: 'Delete a webhook; its pending deliveries are not sent', tags: ['webhooks'], params: idParams },
    handler: async (request, reply) => {
      if (!(await deleteWebhook(db, authOf(request).workspaceId, request.params.id))) throw notFound(request.params.id);
      return reply.status(204).send();
    },
  });

  r.get('/v1/webhooks/:id/deliveries', {
    schema: {
      summary: 'The delivery log of a webhook, newest first',
      tags: ['webhooks'],
      params: idParams,
      querystring: deliveriesQuery,
      response: { 200: z.object({ deliveries: z.array(deliveryView), nextCursor: z.string().nullable() }) },
    },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const { id } = request.params;
      const { cursor, limit } = request.query;
      const beforeId = cursor === undefined ? undefined : decodeCursor(cursor);
      if (cursor !== undefined && beforeId === undefined) {
        throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'cursor: not a cursor this API returned', { field: 'cursor' });
      }
      if (!(await findWebhook(db, workspaceId, id))) throw notFound(id);
      const page = await listDeliveries(db, workspaceId, id, beforeId, limit);
      return { deliveries: page.deliveries.map(deliveryViewOf), nextCursor: page.nextBeforeId === null ? null : encodeCursor(page.nextBeforeId) };
    },
  });
};
