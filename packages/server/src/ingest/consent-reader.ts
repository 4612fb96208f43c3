/**
 * Reads users' stated consent for ingest, one query for all the requests of a moment. Every
 * request reads the consent of the users its events name (so an opt-out stops collection at once,
 * in every process); read one request at a time, that was a statement per request: at 50
 * connections on the embedded database it was the most frequent statement, each waiting its turn
 * for the one connection. Requests that arrive in the same turn of the event loop now share one
 * `user_id = ANY(...)` read per workspace, made on the next turn: no request reads older consent
 * than one made before it arrived.
 */
import type { SqlExecutor } from '../db/sql-client.js';
import type { Consent } from '@feedloop/core';
import { consentsOf } from '../store/consent.js';

/** Users read in one statement at most; a larger gathering is read in several. */
const MAX_USERS_PER_READ = 5_000;

interface Waiter {
  userIds: readonly string[];
  resolve(consents: Map<string, Consent>): void;
  reject(err: unknown): void;
}

/**
 * A coalescing reader of consent.
 *
 * @example
 * const reader = new ConsentReader(db);
 * const consents = await reader.read('ws_1', ['u1', 'u2']); // shares a query with concurrent reads
 */
export class ConsentReader {
  readonly #waiting = new Map<string, Waiter[]>();
  #scheduled = false;

  constructor(private readonly db: SqlExecutor) {}

  /** The stated consent of `userIds` in a workspace (users without a row are absent). */
  read(workspaceId: string, userIds: readonly string[]): Promise<Map<string, Consent>> {
    if (userIds.length === 0) return Promise.resolve(new Map());
    return new Promise((resolve, reject) => {
      const list = this.#waiting.get(workspaceId) ?? [];
      list.push({ userIds, resolve, reject });
      this.#waiting.set(workspaceId, list);
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const gathered = [...this.#waiting];
    this.#waiting.clear();
    for (const [workspaceId, waiters] of gathered) void this.#readFor(workspaceId, waiters);
  }

  async #readFor(workspaceId: string, waiters: readonly Waiter[]): Promise<void> {
    try {
      const users = [...new Set(waiters.flatMap((w) => w.userIds))];
      const all = new Map<string, Consent>();
      for (let i = 0; i < users.length; i += MAX_USERS_PER_READ) {
        for (const [user, consent] of await consentsOf(this.db, workspaceId, users.slice(i, i + MAX_USERS_PER_READ))) all.set(user, consent);
      }
      for (const w of waiters) w.resolve(new Map(w.userIds.flatMap((u) => (all.has(u) ? [[u, all.get(u) as Consent]] : []))));
    } catch (err) {
      for (const w of waiters) w.reject(err);
    }
  }
}
