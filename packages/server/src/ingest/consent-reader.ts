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

/**
 * A request naming at most this many users may leave its consent check to the write (see
 * {@link ConsentReader.mayDefer}). A batch's read of hundreds of users costs the same index probes
 * as the write's check, and made before the write it keeps them out of the time the write holds
 * its response locks; for a request of a few users the read's round trip is what costs.
 */
export const DEFERRED_CHECK_MAX_USERS = 16;

/**
 * How long a workspace counts as one whose users state consent once a read found a stated consent
 * or a write held an event back for one: its requests then read consent first, as they must to
 * decide, instead of writing twice.
 */
const STATED_CONSENT_MEMORY_MS = 5 * 60_000;

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
  /** Workspaces seen with stated consent, until when (ms): they read before they write. */
  readonly #stated = new Map<string, number>();

  constructor(private readonly db: SqlExecutor) {}

  /**
   * Whether a request of `users` users in a workspace may skip the read: its events are then
   * screened as if their users had stated nothing, and the write itself refuses (holds back) any
   * event whose user has a consent row, in the same statement that stores the others, so an
   * opt-out committed before the write is never missed (store/feedback-writer.ts). Most
   * workspaces have no consent rows at all, and for them this saves each request a round trip.
   *
   * @example
   * if (reader.mayDefer('ws_1', 1)) { ... } // screen with NO_CONSENT, mark the events unread
   */
  mayDefer(workspaceId: string, users: number, now = Date.now()): boolean {
    if (users > DEFERRED_CHECK_MAX_USERS) return false;
    const until = this.#stated.get(workspaceId);
    if (until === undefined) return true;
    if (until > now) return false;
    this.#stated.delete(workspaceId);
    return true;
  }

  /** Notes that a workspace has users with stated consent: its requests read consent first for a while. */
  noteStated(workspaceId: string, now = Date.now()): void {
    this.#stated.set(workspaceId, now + STATED_CONSENT_MEMORY_MS);
  }

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
      if (all.size > 0) this.noteStated(workspaceId);
      for (const w of waiters) w.resolve(new Map(w.userIds.flatMap((u) => (all.has(u) ? [[u, all.get(u) as Consent]] : []))));
    } catch (err) {
      for (const w of waiters) w.reject(err);
    }
  }
}
