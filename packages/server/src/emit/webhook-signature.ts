/**
 * Webhook signatures: every delivery carries `X-Feedloop-Signature: sha256=<hex>`, the HMAC-SHA256
 * of the raw request body under the webhook's secret, so a receiver can tell feedloop's requests
 * from anyone else's. Only the body is signed: a receiver verifies exactly the bytes it read.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The header carrying the signature. */
export const SIGNATURE_HEADER = 'X-Feedloop-Signature';
/** The header carrying the event type (`feedback.submitted`, `learning.signal`). */
export const EVENT_HEADER = 'X-Feedloop-Event';
/** The header carrying the delivery id (the same on every attempt of one delivery). */
export const DELIVERY_HEADER = 'X-Feedloop-Delivery';

const SIGNATURE_PREFIX = 'sha256=';
const SECRET_PREFIX = 'whsec_';
/** 256 bits: as strong as the HMAC itself. */
const SECRET_BYTES = 32;

/**
 * A new webhook secret: `whsec_` and 32 random bytes in base64url.
 *
 * @example
 * generateWebhookSecret() // 'whsec_3q2-7w…' (49 characters)
 */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64url');
}

/**
 * The signature header value of a body.
 *
 * @example
 * signWebhookBody('whsec_x', '{"id":"a"}') // 'sha256=5d1c…' (71 characters)
 */
export function signWebhookBody(secret: string, rawBody: string): string {
  return SIGNATURE_PREFIX + createHmac('sha256', secret).update(rawBody, 'utf8').digest('hex');
}

/**
 * Whether `header` is the signature of `rawBody` under `secret`; compared in constant time so the
 * answer's timing tells nothing about how close a forged signature came.
 *
 * @example
 * verifyWebhookSignature(secret, body, request.headers['x-feedloop-signature']) // true or false
 */
export function verifyWebhookSignature(secret: string, rawBody: string, header: string | undefined | null): boolean {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(signWebhookBody(secret, rawBody), 'utf8');
  const given = Buffer.from(header.trim(), 'utf8');
  // timingSafeEqual throws on different lengths; a length mismatch is a plain "no".
  return given.length === expected.length && timingSafeEqual(given, expected);
}
