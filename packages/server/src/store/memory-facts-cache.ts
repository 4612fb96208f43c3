/**
 * Decoded user memory snapshots kept in the process, so a read whose snapshot has not changed
 * since the last one skips the snapshot's text (≈ 270 KB at 2,000 events: its transfer from the
 * database, JSON.parse and 2,000 objects to collect). Never trusted on its own: every read still
 * asks the database which snapshot is current (its `stamp`, in the same statement as the log
 * check), and an entry is used only when its stamp is that one. Bounded by the facts it holds,
 * least recently used out first.
 */
import type { SeqMemoryFacts } from './user-memory-snapshot.js';

/** The facts entries a cache holds by default (~2 KB of heap each: ~50 MB). */
export const DEFAULT_MEMORY_FACTS_CACHE_ENTRIES = 25_000;

/**
 * A least-recently-used map from (workspace, user) to the decoded facts of their snapshot.
 *
 * @example
 * const cache = new MemoryFactsCache();
 * cache.set(ws, 'user-456', stamp, entries);
 * cache.get(ws, 'user-456', stamp) // entries, or undefined when the stamp moved on
 */
export class MemoryFactsCache {
  readonly #map = new Map<string, { stamp: string; entries: SeqMemoryFacts[] }>();
  #held = 0;

  constructor(private readonly maxEntries = DEFAULT_MEMORY_FACTS_CACHE_ENTRIES) {}

  /** The stamp of what is cached for the user, if anything (the read sends it to the database). */
  stampOf(workspaceId: string, userId: string): string | undefined {
    return this.#map.get(key(workspaceId, userId))?.stamp;
  }

  /** The cached facts when they are of the snapshot `stamp` names; refreshes their recency. */
  get(workspaceId: string, userId: string, stamp: string): SeqMemoryFacts[] | undefined {
    const k = key(workspaceId, userId);
    const hit = this.#map.get(k);
    if (hit === undefined || hit.stamp !== stamp) return undefined;
    this.#map.delete(k);
    this.#map.set(k, hit);
    return hit.entries;
  }

  /** Keeps the facts of the snapshot `stamp` names (a window larger than the cache is not kept). */
  set(workspaceId: string, userId: string, stamp: string, entries: SeqMemoryFacts[]): void {
    this.delete(workspaceId, userId);
    if (entries.length > this.maxEntries) return;
    this.#map.set(key(workspaceId, userId), { stamp, entries });
    this.#held += entries.length;
    for (const [k, v] of this.#map) {
      if (this.#held <= this.maxEntries) break;
      this.#map.delete(k);
      this.#held -= v.entries.length;
    }
  }

  /** Forgets the user's facts. */
  delete(workspaceId: string, userId: string): void {
    const k = key(workspaceId, userId);
    const old = this.#map.get(k);
    if (old === undefined) return;
    this.#map.delete(k);
    this.#held -= old.entries.length;
  }
}

const key = (workspaceId: string, userId: string): string => `${workspaceId}\u0000${userId}`;
