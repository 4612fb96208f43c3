/**
 * Signed feedback tokens (issue 13): a capability to give feedback on one response, optionally
 * as one user and with some event types only, until it expires. Stateless: the token carries its
 * claims and an HMAC-SHA256 over them with the workspace's token secret, so verifying needs no
 * table of tokens, and rotating the secret revokes them all.
 *
 * Format: `ft1.<base64url(JSON claims)>.<base64url(HMAC)>`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FeedbackEventType } from '@feedloop/core';
import { FeedloopError } from '../errors.js';

/** What a token grants. */
export interface FeedbackTokenClaims {
  /** Workspace id: which secret signed it. */
  ws: string;
  /** The response the token is for. */
  r: string;
  /** The user the token speaks for; their votes count as verified. */
  u?: string;
  /** Event types allowed; absent means all. */
  t?: FeedbackEventType[];
  /** Expiry, Unix seconds. */
  exp: number;
  /**
   * A LangSmith presigned feedback token's own claims (issue 26 §3, `POST
   * /langsmith/feedback/tokens`): its id, the run and feedback key it is for, and the key's
   * feedback config. Read by the `/langsmith/feedback/tokens/:token` routes only.
   */
  ls?: { id: string; run: string; k: string; c?: Record<string, unknown> };
}

const PREFIX = 'ft1';

const b64 = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

const mac = (secret: Buffer, body: string): Buffer => createHmac('sha256', secret).update(`${PREFIX}.${body}`).digest();

/**
 * Signs claims into a token.
 *
 * @example
 * signFeedbackToken(secret, { ws, r: 'resp-1', exp: Math.floor(Date.now() / 1000) + 86_400 }) // 'ft1.eyJ3cyI6….Xq…'
 */
export function signFeedbackToken(secret: Buffer, claims: FeedbackTokenClaims): string {
  const body = b64(JSON.stringify(claims));
  return `${PREFIX}.${body}.${b64(mac(secret, body))}`;
}

const invalid = (why: string): FeedloopError => new FeedloopError('FEEDLOOP_ERR_TOKEN_INVALID', `the feedback token is invalid: ${why}`, { field: 'token' });

/**
 * Reads a token's claims without trusting them (the workspace says which secret to check with).
 *
 * @throws FeedloopError `FEEDLOOP_ERR_TOKEN_INVALID` when it is not a token of this format.
 */
export function readFeedbackToken(token: string): { claims: FeedbackTokenClaims; body: string; signature: Buffer } {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== PREFIX || !parts[1] || !parts[2]) throw invalid('not a feedloop feedback token');
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
  } catch {
    throw invalid('its claims are not readable');
  }
  const c = claims as Partial<FeedbackTokenClaims> | null;
  if (
    !c ||
    typeof c !== 'object' ||
    typeof c.ws !== 'string' ||
    typeof c.r !== 'string' ||
    typeof c.exp !== 'number' ||
    (c.u !== undefined && typeof c.u !== 'string') ||
    (c.t !== undefined && !(Array.isArray(c.t) && c.t.every((x) => typeof x === 'string')))
  ) {
    throw invalid('its claims are not readable');
  }
  return { claims: c as FeedbackTokenClaims, body: parts[1], signature: Buffer.from(parts[2], 'base64url') };
}

/**
 * Verifies a token read by {@link readFeedbackToken} against the workspace's secret, then its
 * expiry (a tampered expiry is invalid, not expired: the signature is checked first).
 *
 * @throws FeedloopError `FEEDLOOP_ERR_TOKEN_INVALID` (bad signature, no secret), `FEEDLOOP_ERR_TOKEN_EXPIRED`.
 * @example
 * const read = readFeedbackToken(token); verifyFeedbackToken(read, secret, Date.now());
 */
export function verifyFeedbackToken(read: ReturnType<typeof readFeedbackToken>, secret: Buffer | undefined, nowMs: number): FeedbackTokenClaims {
  if (!secret) throw invalid('its signature does not match');
  const expected = mac(secret, read.body);
  if (read.signature.length !== expected.length || !timingSafeEqual(read.signature, expected)) {
    throw invalid('its signature does not match (tampered with, or the workspace secret was rotated)');
  }
  if (read.claims.exp * 1000 <= nowMs) {
    throw new FeedloopError('FEEDLOOP_ERR_TOKEN_EXPIRED', `the feedback token expired at ${new Date(read.claims.exp * 1000).toISOString()}`, {
      field: 'token',
    });
  }
  return read.claims;
}
