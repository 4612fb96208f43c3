/**
 * When to try again: exponential backoff with full jitter, and the server's `Retry-After` when
 * it gives one (429, 503).
 */

/** How hard the client tries before a flush gives up (the items stay queued). */
export interface RetryPolicy {
  /** Attempts per flush, the first included (default 10). */
  maxAttempts: number;
  /** The first wait (default 250 ms); each next one doubles, up to `maxDelayMs` (default 30 s). */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 10, baseDelayMs: 250, maxDelayMs: 30_000 };

/**
 * The wait before attempt `attempt + 1`: a random time up to base × 2^(attempt-1), capped (full
 * jitter: clients that failed together do not come back together).
 *
 * @example
 * backoffDelay(3, DEFAULT_RETRY, () => 0.5) // 500
 */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling * random());
}

/**
 * A `Retry-After` header in ms (seconds or an HTTP date), or undefined.
 *
 * @example
 * retryAfterMs('2') // 2000
 */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** Whether an HTTP status may pass if sent again. */
export const retryableStatus = (status: number): boolean => status === 429 || status >= 500;
