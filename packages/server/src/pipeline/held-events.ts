/**
 * The events a process holds, and the sweep's read of the outbox past them.
 *
 * With the in-process queue on PGlite (one process, one writer), the events this process holds
 * (gathered, queued or being processed) are its lease: the sweep leaves them alone. On a large
 * backlog it re-queued the ones waiting longer than its grace (8,153 of 60,000), each then an
 * empty claim; renewing each taken row's age instead rewrote the backlog on every sweep (1.1-1.6 s
 * for 50,000 rows). A queue in Redis is shared by every process and its jobs are the only record,
 * and on Postgres a job's claim can pass over a held event: there every stale event is taken with
 * a lease (`takeStalePending`) and queued again; a second claim of one already processed finds
 * nothing.
 */
import type { SqlClient } from '../db/sql-client.js';
import { readStalePending, takeStalePending } from '../store/pipeline-pending.js';
import type { EventKey } from './pipeline-jobs.js';

const keyOf = ([workspaceId, eventId]: EventKey): string => `${workspaceId}\u0000${eventId}`;

/**
 * This process's held events (kept only when `active`: the in-process queue on PGlite) and the
 * stale outbox rows outside them.
 *
 * @example
 * const held = new HeldEvents(true);
 * held.add([['ws_1', 'ev_1']]);
 * await held.stale(db, 10_000, 50_000); // the outbox's rows older than 10 s, less ev_1
 */
export class HeldEvents {
  readonly #keys = new Set<string>();
  /**
   * When the last read of the whole outbox (no grace, not cut by its limit) began: every row
   * older than that was in it, so was taken then (held, or its job has ended since).
   */
  #wholeReadAt: number | undefined;

  constructor(readonly active: boolean) {}

  /** Records events as this process's until their job ends (no-op when not `active`). */
  add(keys: readonly EventKey[]): void {
    if (this.active) for (const k of keys) this.#keys.add(keyOf(k));
  }

  /** Their job ended (processed, or failed and left to the outbox). */
  release(keys: readonly EventKey[]): void {
    if (this.active) for (const k of keys) this.#keys.delete(keyOf(k));
  }

  /**
   * The outbox's events older than `graceMs`, at most `limit`, less those held; read past the held
   * ones so that none unheld hides behind them. A sweep within `graceMs` of a whole read (the
   * start-up pickup) reads nothing: each row it would find was in that read, and reading a
   * 50,000-event backlog again to drop every row as held took 0.45 s at each start. A row whose
   * job ended meanwhile waits for the next sweep, as it would have waited for this one.
   * Not `active`: every stale row, taken with a lease.
   */
  async stale(db: SqlClient, graceMs: number, limit: number): Promise<EventKey[]> {
    if (!this.active) return takeStalePending(db, graceMs, limit);
    if (graceMs > 0 && this.#wholeReadAt !== undefined && Date.now() - graceMs < this.#wholeReadAt) return [];
    const startedAt = Date.now();
    const max = limit + this.#keys.size;
    const rows = await readStalePending(db, graceMs, max);
    if (graceMs === 0 && rows.length < max) this.#wholeReadAt = startedAt;
    return rows.filter((k) => !this.#keys.has(keyOf(k))).slice(0, limit);
  }
}
