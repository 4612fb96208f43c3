/**
 * Fixed-window rate limiting behind one interface: in process for the embedded profile, in Redis
 * when several API processes must share the count. A request of cost N (a batch of N events)
 * takes N from the window, all or nothing.
 */

/** The answer to one attempt. */
export interface RateDecision {
  allowed: boolean;
  /** What is left in the window after this attempt. */
  remaining: number;
  /** When the window resets, in ms from now. */
  resetMs: number;
}

/** A rate limiter. */
export interface RateLimiter {
  /** Takes `cost` from the window of `key` if `limit` allows it. */
  take(key: string, cost: number, limit: number, windowMs: number): Promise<RateDecision>;
  close(): Promise<void>;
}

/**
 * An in-process limiter; windows of idle keys are swept as they expire.
 *
 * @example
 * const limiter = new MemoryRateLimiter();
 * await limiter.take('ws:1.2.3.4', 1, 10, 60_000) // { allowed: true, remaining: 9, resetMs: 60000 }
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly #windows = new Map<string, { count: number; resetAt: number }>();
  #lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async take(key: string, cost: number, limit: number, windowMs: number): Promise<RateDecision> {
    const now = this.now();
    this.#sweep(now);
    let w = this.#windows.get(key);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + windowMs };
      this.#windows.set(key, w);
    }
    const allowed = w.count + cost <= limit;
    if (allowed) w.count += cost;
    return { allowed, remaining: Math.max(0, limit - w.count), resetMs: w.resetAt - now };
  }

  async close(): Promise<void> {
    this.#windows.clear();
  }

  #sweep(now: number): void {
    if (now - this.#lastSweep < 60_000) return;
    this.#lastSweep = now;
    for (const [k, w] of this.#windows) if (w.resetAt <= now) this.#windows.delete(k);
  }
}
