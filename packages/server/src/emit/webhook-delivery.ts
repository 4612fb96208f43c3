/**
 * Sends due webhook deliveries. Each call claims a batch of due pending rows with a lease (SKIP
 * LOCKED, so concurrent callers in any number of processes take disjoint rows), POSTs each signed
 * body, and records the outcome: delivered on a 2xx, otherwise another attempt after an
 * exponential backoff, until it gives up.
 *
 * Default schedule (backoff 10 s, doubling, capped at 1 h, 15 attempts): retries after 10 s,
 * 20 s, 40 s, 80 s, 160 s, 320 s, 640 s, 1280 s, 2560 s, then hourly; the 15th failed attempt,
 * about 6.4 hours after the first, marks the delivery failed.
 *
 * Delivery is at least once: a 2xx is recorded right after it arrives, and a delivered row is
 * never claimed again; only a crash (or a lost database) between the 2xx and that record sends
 * it again once the lease ends. Receivers deduplicate on the message id.
 *
 * Every POST goes through a connection whose DNS lookup refuses non-public addresses (see
 * `safe-address.ts`) unless `allowPrivate`, and the log keeps a coded reason per failure, never
 * the connection error's text.
 */
import type { Dispatcher } from 'undici';
import type { SqlClient } from '../db/sql-client.js';
import { deliveryFailureReason } from './delivery-failure.js';
import { formatWebhookBody } from './webhook-formats.js';
import { guardedLookup, literalHostClass, type AddressPolicy, type Resolver } from './safe-address.js';
import { claimDueDeliveries, failDelivery, markDelivered, recordFailedAttempt, WEBHOOK_DELETED_ERROR, type DeliveryFailureReason, type DueDelivery, type WebhookFormat } from '../store/webhooks.js';
import { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, signWebhookBody } from './webhook-signature.js';

/** Options of {@link deliverDueWebhooks}; every one has a default. */
export interface DeliverOptions {
  /** Only these deliveries (those of them that are due): the ones a transaction just queued. */
  ids?: readonly number[];
  /** Deliveries claimed by one call at most; default 100. */
  limit?: number;
  /** The clock; default the database's. Tests move it. */
  now?: Date;
  /** How long one POST may take, answer included; default 10 s. */
  timeoutMs?: number;
  /** Delay after the first failed attempt, doubled after each further one (capped at 1 h); default 10 s. */
  backoffMs?: number;
  /** Attempts before a delivery is marked failed; default 15. */
  maxAttempts?: number;
  /**
   * How long a claim keeps other callers off the claimed rows; it must outlast the whole call.
   * Default: one timeout per round of parallel POSTs the batch needs, plus one spare.
   */
  leaseMs?: number;
  /**
   * Send to loopback, private, link-local and other non-public addresses too
   * (`FEEDLOOP_WEBHOOK_ALLOW_PRIVATE`); default false: such a delivery fails `forbidden_address`
   * without a connection.
   */
  allowPrivate?: boolean;
  /** How webhook hostnames are resolved at each attempt; default the system resolver. Tests play DNS with it. */
  resolve?: Resolver;
  /** `FEEDLOOP_PUBLIC_URL`, for the links alert bodies carry (Alertmanager's `externalURL` and `generatorURL`). */
  publicUrl?: string;
}

/** What one call did. */
export interface DeliverReport {
  /** Answered 2xx. */
  delivered: number;
  /** Failed this time; another attempt is scheduled. */
  retried: number;
  /** Given up: attempts exhausted, or the webhook was deleted. */
  failed: number;
}

const DEFAULT_LIMIT = 100;
const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_BACKOFF_MS = 10_000;
const DEFAULT_MAX_ATTEMPTS = 15;
/** The longest wait between two attempts. */
const MAX_BACKOFF_MS = 3_600_000;
/** POSTs in flight at once per call; deliveries of one webhook may go concurrently. */
const PARALLEL_POSTS = 8;
const USER_AGENT = 'feedloop-webhooks/1';
const HTTP_OK_MIN = 200;
const HTTP_OK_MAX = 299;

type Outcome = { ok: true; status: number } | { ok: false; status: number | null; error: DeliveryFailureReason };

/**
 * The delay before the attempt after failed attempt number `attempts` (1-based).
 *
 * @example
 * retryDelayMs(1, 10_000) // 10_000
 * retryDelayMs(3, 10_000) // 40_000
 * retryDelayMs(20, 10_000) // 3_600_000
 */
export function retryDelayMs(attempts: number, backoffMs: number): number {
  return Math.min(backoffMs * 2 ** Math.max(0, attempts - 1), MAX_BACKOFF_MS);
}

/** POSTs one delivery and tells how it went; never throws. */
async function post(
  row: DueDelivery & { url: string; secret: string; format: WebhookFormat },
  fetch: typeof import('undici').fetch,
  dispatcher: Dispatcher,
  policy: AddressPolicy,
  timeoutMs: number,
  publicUrl: string | undefined,
): Promise<Outcome> {
  // Written in the webhook's format and serialized once: the signature covers exactly the bytes sent.
  const body = JSON.stringify(formatWebhookBody(row.format, row.body, { webhookId: row.webhook_id, ...(publicUrl === undefined ? {} : { publicUrl }) }));
  try {
    // The guarded lookup judges hostnames as it connects; an IP literal is never looked up, so
    // it is judged here (URLs stored before the subscribe check existed are judged the same way).
    const literal = literalHostClass(new URL(row.url).hostname);
    if (literal !== undefined && literal !== 'public' && !policy.allowPrivate) return { ok: false, status: null, error: 'forbidden_address' };
    const res = await fetch(row.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        [SIGNATURE_HEADER]: signWebhookBody(row.secret, body),
        [EVENT_HEADER]: row.event_type,
        [DELIVERY_HEADER]: String(row.id),
      },
      body,
      // A redirect is an answer of the receiver's, not a place to resend a signed body to.
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
      dispatcher,
    });
    // The answer's body is not read: a receiver could send any amount of it.
    await res.body?.cancel().catch(() => undefined);
    if (res.status >= HTTP_OK_MIN && res.status <= HTTP_OK_MAX) return { ok: true, status: res.status };
    return { ok: false, status: res.status, error: 'http_status' };
  } catch (err) {
    return { ok: false, status: null, error: deliveryFailureReason(err) };
  }
}

/**
 * Sends the due pending deliveries (or only `options.ids`, when due) and records each outcome.
 * Safe to run concurrently from any number of callers and processes: a delivery is claimed by
 * one of them at a time and never sent again once delivered. Throws only when the database
 * does; rows it could not record stay leased and are tried again when the lease ends.
 *
 * @example
 * const { delivered, retried, failed } = await deliverDueWebhooks(db, { ids: newDeliveryIds });
 */
export async function deliverDueWebhooks(db: SqlClient, options: DeliverOptions = {}): Promise<DeliverReport> {
  const report: DeliverReport = { delivered: 0, retried: 0, failed: 0 };
  if (options.ids?.length === 0) return report;
  const limit = options.limit ?? DEFAULT_LIMIT;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const leaseMs = options.leaseMs ?? (Math.ceil(limit / PARALLEL_POSTS) + 1) * timeoutMs;
  const now = options.now;
  const policy: AddressPolicy = { allowPrivate: options.allowPrivate ?? false, ...(options.resolve ? { resolve: options.resolve } : {}) };

  const rows = await claimDueDeliveries(db, { ids: options.ids, limit, now, leaseMs });
  if (rows.length === 0) return report;
  // undici is loaded by the first delivery, not at start: most servers have no webhook, and
  // loading it costs ~19 MB resident.
  const { Agent, fetch } = await import('undici');
  // One agent per call: its lookup carries this call's policy, and closing it leaves no socket.
  const dispatcher = new Agent({ connect: { lookup: guardedLookup(policy) } });

  const record = async (row: DueDelivery): Promise<void> => {
    if (row.deleted || row.url === null || row.secret === null || row.format === null) {
      await failDelivery(db, row.id, WEBHOOK_DELETED_ERROR);
      report.failed++;
      return;
    }
    const outcome = await post({ ...row, url: row.url, secret: row.secret, format: row.format }, fetch, dispatcher, policy, timeoutMs, options.publicUrl);
    if (outcome.ok) {
      await markDelivered(db, row.id, outcome.status, now);
      report.delivered++;
      return;
    }
    const attempts = row.attempts + 1;
    const giveUp = attempts >= maxAttempts;
    await recordFailedAttempt(db, row.id, { giveUp, status: outcome.status, error: outcome.error, now, retryInMs: giveUp ? 0 : retryDelayMs(attempts, backoffMs) });
    if (giveUp) report.failed++;
    else report.retried++;
  };

  // A fixed number of lanes pull from the batch; a database error stops the lanes from taking
  // more and is thrown once every POST in flight is recorded (nothing is left running).
  let next = 0;
  let dbError: unknown;
  const lane = async (): Promise<void> => {
    while (dbError === undefined) {
      const row = rows[next++];
      if (!row) return;
      try {
        await record(row);
      } catch (err) {
        dbError ??= err;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(PARALLEL_POSTS, rows.length) }, lane));
  } finally {
    await dispatcher.destroy();
  }
  if (dbError !== undefined) throw dbError;
  return report;
}
