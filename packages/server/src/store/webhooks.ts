/**
 * Webhook subscriptions and their delivery log in SQL: the CRUD behind `/v1/webhooks`, and
 * {@link createDeliveries}, which the processing transaction calls to queue one delivery per
 * subscribed webhook and message.
 */
import type { OutboundEventType, OutboundMessage } from '@feedloop/core';
import { v7 as uuidv7 } from 'uuid';
import type { SqlClient, SqlExecutor } from '../db/sql-client.js';
import { FeedloopError } from '../errors.js';

/** How a webhook's bodies are written (emit/webhook-formats.ts writes them). */
export const WEBHOOK_FORMATS = ['feedloop', 'alertmanager', 'slack'] as const;
/** One of {@link WEBHOOK_FORMATS}. */
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** Every reason a delivery log may show in `lastError` (emit/delivery-failure.ts tells them apart). */
export const DELIVERY_FAILURE_REASONS = [
  /** The receiver answered, with a status other than 2xx (the status is in `lastStatusCode`). */
  'http_status',
  /** No answer within the delivery timeout (connecting included). */
  'timeout',
  /** The receiver's host refused the connection (nothing listens on that port). */
  'connection_refused',
  /** The connection was closed or reset before an answer. */
  'connection_reset',
  /** The hostname did not resolve. */
  'dns_failure',
  /** No route to the host or its network. */
  'unreachable',
  /** The TLS handshake failed: an invalid, expired or mismatched certificate, or no common protocol. */
  'tls_error',
  /** The host is, or now resolves to, an address webhooks may not reach; nothing was sent. */
  'forbidden_address',
  /** Any other failure to make the request. */
  'network_error',
  /** The webhook was deleted; the delivery is not sent. */
  'webhook_deleted',
] as const;

/** A reason a delivery log may show. */
export type DeliveryFailureReason = (typeof DELIVERY_FAILURE_REASONS)[number];

/** A webhook as listings show it: never its secret. */
export interface WebhookInfo {
  /** `wh_` and a uuid v7. */
  id: string;
  url: string;
  events: OutboundEventType[];
  /** How its bodies are written (`webhook-formats.ts`). */
  format: WebhookFormat;
  createdAt: Date;
}

/** A webhook just created: the only time its secret is shown. */
export interface CreatedWebhook extends WebhookInfo {
  secret: string;
}

/** Where a delivery stands: `pending` (waiting for its next attempt), `delivered`, `failed` (gave up). */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One delivery in the log of a webhook. */
export interface DeliveryInfo {
  id: number;
  messageId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
  /** When the next attempt is due; `null` once the delivery is delivered or failed. */
  nextAttemptAt: Date | null;
}

/** The reason a delivery of a deleted webhook is failed with, unsent. */
export const WEBHOOK_DELETED_ERROR: DeliveryFailureReason = 'webhook_deleted';

const WEBHOOK_ID_PREFIX = 'wh_';

interface WebhookRow {
  id: string;
  url: string;
  events: OutboundEventType[];
  format: WebhookFormat;
  created_at: Date;
}

interface DeliveryRow {
  id: number;
  message_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  delivered_at: Date | null;
  next_attempt_at: Date;
}

const toWebhookInfo = (r: WebhookRow): WebhookInfo => ({ id: r.id, url: r.url, events: r.events, format: r.format, createdAt: r.created_at });

const toDeliveryInfo = (r: DeliveryRow): DeliveryInfo => ({
  id: r.id,
  messageId: r.message_id,
  eventType: r.event_type,
  status: r.status,
  attempts: r.attempts,
  lastStatusCode: r.last_status_code,
  lastError: r.last_error,
  createdAt: r.created_at,
  deliveredAt: r.delivered_at,
  nextAttemptAt: r.status === 'pending' ? r.next_attempt_at : null,
});

/**
 * Subscribes `url` to `events` of a workspace. `events` should be deduplicated by the caller;
 * the secret is stored as given because every delivery is signed with it. With
 * `maxPerWorkspace`, a workspace that already has that many live webhooks gets
 * `FEEDLOOP_ERR_WEBHOOK_LIMIT` instead, also when creates race each other.
 *
 * @throws FeedloopError `FEEDLOOP_ERR_WEBHOOK_LIMIT` when the workspace is at `maxPerWorkspace`.
 * @example
 * const wh = await createWebhook(db, ws, { url: 'https://example.com/hook', events: ['learning.signal'], secret, maxPerWorkspace: 20 });
 */
export async function createWebhook(
  db: SqlClient,
  workspaceId: string,
  input: { url: string; events: readonly OutboundEventType[]; secret: string; format?: WebhookFormat; maxPerWorkspace?: number },
): Promise<CreatedWebhook> {
  const { maxPerWorkspace } = input;
  return db.transaction(async (tx) => {
    if (maxPerWorkspace !== undefined) {
      // Creates of one workspace take turns on its row, so the count below sees every webhook a
      // concurrent create committed (NO KEY UPDATE: foreign-key checks of other writes go on).
      await tx.query('SELECT 1 FROM workspaces WHERE id = $1 FOR NO KEY UPDATE', [workspaceId]);
      const [live] = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM webhooks WHERE workspace_id = $1 AND deleted_at IS NULL', [workspaceId]);
      if ((live?.n ?? 0) >= maxPerWorkspace) {
        throw new FeedloopError(
          'FEEDLOOP_ERR_WEBHOOK_LIMIT',
          `this workspace has ${maxPerWorkspace} webhooks, the most it may have (FEEDLOOP_WEBHOOK_MAX_PER_WORKSPACE); delete one first`,
        );
      }
    }
    const [row] = await tx.query<WebhookRow>(
      `INSERT INTO webhooks (id, workspace_id, url, events, secret, format) VALUES ($1, $2, $3, $4::text[], $5, $6)
       RETURNING id, url, events, format, created_at`,
      [WEBHOOK_ID_PREFIX + uuidv7(), workspaceId, input.url, input.events, input.secret, input.format ?? 'feedloop'],
    );
    if (!row) throw new Error('INSERT … RETURNING gave no row');
    return { ...toWebhookInfo(row), secret: input.secret };
  });
}

/**
 * The live webhooks of a workspace, oldest first.
 *
 * @example
 * await listWebhooks(db, ws) // [{ id: 'wh_…', url, events, createdAt }]
 */
export async function listWebhooks(db: SqlExecutor, workspaceId: string): Promise<WebhookInfo[]> {
  const rows = await db.query<WebhookRow>(
    `SELECT id, url, events, format, created_at FROM webhooks WHERE workspace_id = $1 AND deleted_at IS NULL ORDER BY id`,
    [workspaceId],
  );
  return rows.map(toWebhookInfo);
}

/**
 * One live webhook of a workspace; `undefined` when it is unknown, deleted, or another
 * workspace's.
 *
 * @example
 * await findWebhook(db, ws, 'wh_0190…')
 */
export async function findWebhook(db: SqlExecutor, workspaceId: string, id: string): Promise<WebhookInfo | undefined> {
  const [row] = await db.query<WebhookRow>(
    `SELECT id, url, events, format, created_at FROM webhooks WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL`,
    [workspaceId, id],
  );
  return row ? toWebhookInfo(row) : undefined;
}

/**
 * Deletes a webhook: it gets no new deliveries, and its pending ones are failed unsent in the
 * same statement (the delivery worker also refuses any that a concurrent transaction adds).
 * The row and its log are kept. Returns false when there was no such live webhook.
 *
 * @example
 * await deleteWebhook(db, ws, 'wh_0190…') // true
 */
export async function deleteWebhook(db: SqlExecutor, workspaceId: string, id: string): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    `WITH gone AS (
       UPDATE webhooks SET deleted_at = now() WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING id
     ), unsent AS (
       UPDATE webhook_deliveries d SET status = 'failed', last_error = $3, lease_until = NULL
         FROM gone WHERE d.webhook_id = gone.id AND d.status = 'pending'
     )
     SELECT id FROM gone`,
    [workspaceId, id, WEBHOOK_DELETED_ERROR],
  );
  return rows.length > 0;
}

/**
 * The deliveries of one webhook, newest first, `limit` at a time; pass the last page's
 * `beforeId` to go on. `nextBeforeId` is `null` on the last page.
 *
 * @example
 * const page = await listDeliveries(db, ws, 'wh_0190…', undefined, 50);
 */
export async function listDeliveries(
  db: SqlExecutor,
  workspaceId: string,
  webhookId: string,
  beforeId: number | undefined,
  limit: number,
): Promise<{ deliveries: DeliveryInfo[]; nextBeforeId: number | null }> {
  const rows = await db.query<DeliveryRow>(
    `SELECT id, message_id, event_type, status, attempts, last_status_code, last_error, created_at, delivered_at,
            next_attempt_at
       FROM webhook_deliveries
      WHERE workspace_id = $1 AND webhook_id = $2 AND ($3::bigint IS NULL OR id < $3::bigint)
      ORDER BY id DESC LIMIT $4`,
    [workspaceId, webhookId, beforeId ?? null, limit + 1],
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { deliveries: page.map(toDeliveryInfo), nextBeforeId: rows.length > limit && last ? last.id : null };
}

/**
 * Queues the deliveries of processed messages: one pending row per (live webhook of the
 * message's workspace subscribed to its type, message), all in one statement. A message a webhook
 * already has a row for gets none (a replayed event queues nothing), so it is safe to call again
 * with the same messages. Returns the ids of the new rows, to hand to the delivery worker.
 *
 * @example
 * const ids = await db.transaction((tx) => createDeliveries(tx, messages));
 * await deliverDueWebhooks(db, { ids });
 */
export async function createDeliveries(tx: SqlExecutor, messages: readonly OutboundMessage[]): Promise<number[]> {
  if (messages.length === 0) return [];
  // Most workspaces have no webhook: ask first (a small index probe) rather than ship every
  // message body to the database to join against nothing.
  const subscribed = await tx.query<{ workspace_id: string; events: string[] }>(
    'SELECT workspace_id, events FROM webhooks WHERE workspace_id = ANY($1::text[]) AND deleted_at IS NULL',
    [[...new Set(messages.map((m) => m.workspaceId))]],
  );
  if (subscribed.length === 0) return [];
  const wanted = new Set(subscribed.flatMap((w) => w.events.map((type) => `${w.workspace_id}\u0000${type}`)));
  const records = messages
    .filter((m) => wanted.has(`${m.workspaceId}\u0000${m.type}`))
    .map((m) => ({ id: m.id, type: m.type, workspace_id: m.workspaceId, body: m }));
  if (records.length === 0) return [];
  const rows = await tx.query<{ id: number }>(
    `INSERT INTO webhook_deliveries (webhook_id, workspace_id, message_id, event_type, body)
     SELECT w.id, m.workspace_id, m.id, m.type, m.body
       FROM json_to_recordset($1::json) AS m (id text, type text, workspace_id text, body jsonb)
       JOIN webhooks w ON w.workspace_id = m.workspace_id AND w.deleted_at IS NULL AND m.type = ANY (w.events)
     ON CONFLICT (webhook_id, message_id) DO NOTHING
     RETURNING id`,
    [JSON.stringify(records)],
  );
  return rows.map((r) => r.id);
}

/** A claimed delivery with its webhook's address, secret and format (null, and `deleted`, when the webhook is gone). */
export interface DueDelivery {
  id: number;
  message_id: string;
  event_type: string;
  body: OutboundMessage;
  attempts: number;
  webhook_id: string;
  url: string | null;
  secret: string | null;
  format: WebhookFormat | null;
  deleted: boolean;
}

/**
 * Claims the deliveries a call sends: due, pending, not leased by another caller (these `ids`
 * only, when given), leased to this caller for `leaseMs` on return.
 *
 * @example
 * const rows = await claimDueDeliveries(db, { ids: undefined, limit: 100, now: undefined, leaseMs: 60_000 });
 */
export async function claimDueDeliveries(db: SqlExecutor, options: { ids: readonly number[] | undefined; limit: number; now: Date | undefined; leaseMs: number }): Promise<DueDelivery[]> {
  // The clock is the database's unless the caller gives one, so rows queued with `now()` are due
  // by the same clock that checks them, whatever the skew between this host and the database.
  return db.query<DueDelivery>(
    `WITH due AS (
       SELECT d.id, w.url, w.secret, w.format, (w.id IS NULL OR w.deleted_at IS NOT NULL) AS deleted
         FROM webhook_deliveries d LEFT JOIN webhooks w ON w.id = d.webhook_id
        WHERE d.status = 'pending'
          AND d.next_attempt_at <= COALESCE($1::timestamptz, now())
          AND (d.lease_until IS NULL OR d.lease_until < COALESCE($1::timestamptz, now()))
          AND ($2::bigint[] IS NULL OR d.id = ANY ($2::bigint[]))
        ORDER BY d.next_attempt_at, d.id
        LIMIT $3
        FOR UPDATE OF d SKIP LOCKED
     )
     UPDATE webhook_deliveries d
        SET lease_until = COALESCE($1::timestamptz, now()) + $4::double precision * interval '1 millisecond'
       FROM due
      WHERE d.id = due.id
     RETURNING d.id, d.webhook_id, d.message_id, d.event_type, d.body, d.attempts, due.url, due.secret, due.format, due.deleted`,
    [options.now ?? null, options.ids ?? null, options.limit, options.leaseMs],
  );
}

/** Gives a pending delivery up with `reason` (its webhook was deleted). */
export async function failDelivery(db: SqlExecutor, id: number, reason: DeliveryFailureReason): Promise<void> {
  await db.query(`UPDATE webhook_deliveries SET status = 'failed', last_error = $2, lease_until = NULL WHERE id = $1 AND status = 'pending'`, [id, reason]);
}

/** Records a delivery answered 2xx. Not guarded on 'pending': a delivery failed by a concurrent webhook delete was still sent. */
export async function markDelivered(db: SqlExecutor, id: number, status: number, now: Date | undefined): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries
        SET status = 'delivered', attempts = attempts + 1, last_status_code = $2, last_error = NULL,
            delivered_at = COALESCE($3::timestamptz, now()), lease_until = NULL
      WHERE id = $1 AND status <> 'delivered'`,
    [id, status, now ?? null],
  );
}

/** Records a failed attempt: the delivery is retried in `retryInMs`, or given up. */
export async function recordFailedAttempt(
  db: SqlExecutor,
  id: number,
  attempt: { giveUp: boolean; status: number | null; error: DeliveryFailureReason; now: Date | undefined; retryInMs: number },
): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries
        SET status = $2, attempts = attempts + 1, last_status_code = $3, last_error = $4,
            next_attempt_at = COALESCE($5::timestamptz, now()) + $6::double precision * interval '1 millisecond', lease_until = NULL
      WHERE id = $1 AND status = 'pending'`,
    [id, attempt.giveUp ? 'failed' : 'pending', attempt.status, attempt.error, attempt.now ?? null, attempt.retryInMs],
  );
}
