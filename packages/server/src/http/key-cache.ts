/**
 * Key lookups with a short cache: the hot path (thousands of submissions a second) must not pay
 * a database round trip per request. A revocation is seen at once by the process that made it
 * and by others within the cache's time to live.
 */
import type { SqlExecutor } from '../db/sql-client.js';
import { FeedloopError } from '../errors.js';
import { authContextOfKey, type AuthContext } from '../store/auth-context.js';

const MAX_ENTRIES = 10_000;

/**
 * Resolves presented keys to their identity, caching hits and misses for `ttlMs`.
 *
 * @example
 * const keys = new KeyCache(db, 5_000);
 * await keys.resolve('fl_sk_…') // AuthContext | undefined
 */
export class KeyCache {
  readonly #entries = new Map<string, { value: AuthContext | undefined; expiresAt: number }>();
  /** Lookups under way: the requests that find an entry expired share one query, not one each. */
  readonly #loading = new Map<string, Promise<AuthContext | undefined>>();
  /** Bumped by {@link clear}: a lookup started before it neither caches nor is shared after it. */
  #generation = 0;

  constructor(
    private readonly db: SqlExecutor,
    private readonly ttlMs: number,
  ) {}

  /** The identity of a presented key, or `undefined` when it is unknown or revoked. */
  resolve(key: string): Promise<AuthContext | undefined> {
    // Keyed by the presented key itself: hashing only on a miss keeps SHA-256 off the hot path.
    const hit = this.#entries.get(key);
    if (hit && hit.expiresAt > Date.now()) return Promise.resolve(hit.value);
    let loading = this.#loading.get(key);
    if (!loading) {
      const started = this.#lookUp(key, this.#generation);
      loading = started.finally(() => {
        if (this.#loading.get(key) === loading) this.#loading.delete(key);
      });
      this.#loading.set(key, loading);
    }
    return loading;
  }

  async #lookUp(key: string, generation: number): Promise<AuthContext | undefined> {
    let value: AuthContext | undefined;
    try {
      value = await authContextOfKey(this.db, key);
    } catch (err) {
      throw new FeedloopError('FEEDLOOP_ERR_UNAVAILABLE', 'the database cannot be reached to check the key; retry', { cause: err });
    }
    if (this.ttlMs > 0 && generation === this.#generation) {
      if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
      this.#entries.set(key, { value, expiresAt: Date.now() + this.ttlMs });
    }
    return value;
  }

  /** Forgets every cached lookup (after a revocation or a settings change in this process). */
  clear(): void {
    this.#entries.clear();
    this.#loading.clear();
    // A lookup under way may have read the row before the change: its answer must not be cached.
    this.#generation++;
  }
}
