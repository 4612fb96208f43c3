/**
 * A small client of feedloop's public HTTP API for the CLI's import and export commands: the same
 * routes an application uses, so a replay goes through validation, acceptance and the pipeline
 * exactly as live traffic does. Failures that may pass (a connection error, `429`, `5xx`) are
 * retried with exponential backoff; anything else is the caller's answer.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Where a feedloop server is and which key to use. */
export interface ApiTarget {
  /** Base URL, e.g. `http://127.0.0.1:8787`. */
  url: string;
  /** A secret key (`fl_sk_…`). */
  key: string;
}

/** How hard to try before giving up. */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  /** The first wait; each next one doubles (with jitter), up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
}

const DEFAULT_RETRY: RetryPolicy = { attempts: 8, baseDelayMs: 200, maxDelayMs: 10_000 };

/** Whether an HTTP status is worth another attempt: rate-limited, or the server could not answer now. */
const retryable = (status: number): boolean => status === 429 || status >= 500;

/**
 * Sends one request, retrying connection errors, `429` and `5xx` (honouring `Retry-After`).
 * Resolves with the last answer when it is not retryable, or when attempts run out.
 *
 * @example
 * const res = await requestWithRetry({ url, key }, 'POST', '/v1/responses/batch', { responses });
 */
export async function requestWithRetry(
  target: ApiTarget,
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  body?: unknown,
  policy: RetryPolicy = DEFAULT_RETRY,
): Promise<Response> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= policy.attempts; attempt++) {
    try {
      const res = await fetch(new URL(path, target.url), {
        method,
        headers: { authorization: `Bearer ${target.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (!retryable(res.status) || attempt === policy.attempts) return res;
      const after = Number(res.headers.get('retry-after'));
      await res.body?.cancel();
      await sleep(Number.isFinite(after) && after > 0 ? after * 1_000 : backoff(attempt, policy));
    } catch (err) {
      lastError = err;
      if (attempt === policy.attempts) break;
      await sleep(backoff(attempt, policy));
    }
  }
  // Name the address tried: a user without a server running must see where the CLI looked.
  const cause = (lastError as { cause?: { code?: string; message?: string } })?.cause;
  const why = cause?.code ?? cause?.message ?? String((lastError as Error)?.message ?? lastError);
  throw new Error(
    `${method} ${new URL(path, target.url).href}: no answer after ${policy.attempts} attempts (${why}). Is a feedloop server running at ${target.url}? Point the command at it with --url or FEEDLOOP_URL.`,
  );
}

/** The wait before attempt `attempt + 1`: doubling from the base, with up to 50 % jitter so clients spread out. */
function backoff(attempt: number, policy: RetryPolicy): number {
  const exp = Math.min(policy.baseDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
  return exp / 2 + Math.random() * (exp / 2);
}
