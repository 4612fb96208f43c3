/**
 * The facts of a user's memory window (their newest 2,000 eligible events, docs/memory.md), read
 * through their snapshot: a read derives facts only for the events committed since the snapshot
 * (the expensive part: payload and answer decoded, regular expressions over both), and rebuilds
 * it from the log when the log no longer matches it. So a feedback event still counts on the very
 * next request (the read looks at the log every time), and the snapshot is only ever a cache.
 */
import { MEMORY_FACTS_VERSION, memoryFacts, type MemoryFacts } from '@feedloop/core';
import { commentPhrasesOf } from '../nlp.js';
import type { SqlExecutor } from '../db/sql-client.js';
import { MemoryFactsCache } from './memory-facts-cache.js';
import { MEMORY_EVENTS_LIMIT, readMemoryEvents, type SeqMemoryEvent } from './user-memory.js';
import { readMemorySnapshot, writeMemorySnapshot, type SeqMemoryFacts } from './user-memory-snapshot.js';

/**
 * New events a read folds in before it writes the snapshot again. A write copies the whole
 * window (~135 bytes an event); deriving the facts of a few dozen new events on each read costs
 * well under a millisecond, so the snapshot is rewritten once every this many events, not on every
 * read of a user who gives feedback between prompts.
 */
export const SNAPSHOT_REFRESH_EVENTS = 64;

/** How a window read went: from the snapshot (as stored, or its cached copy), or what it wrote. */
export type WindowSource = 'snapshot' | 'cached' | 'refreshed' | 'rebuilt';

/** A user's memory window. */
export interface MemoryWindow {
  /** The facts of their newest eligible events, highest seq first. */
  facts: MemoryFacts[];
  source: WindowSource;
}

// Complaints as the comment's phrases (wink-nlp), not its words: see memoryFacts.
const withFacts = (events: readonly SeqMemoryEvent[]): SeqMemoryFacts[] => events.map((e) => ({ seq: e.seq, facts: memoryFacts(e, commentPhrasesOf) }));
const factsOf = (entries: readonly SeqMemoryFacts[]): MemoryFacts[] => entries.map((e) => e.facts);

/**
 * Reads users' memory windows through their snapshots, with the decoded snapshots of recent
 * users kept in the process (made once by the server, passed to the routes).
 *
 * @example
 * const reader = new MemoryWindowReader(db);
 * const { facts } = await reader.read(ws, 'user-456');
 * const memory = memoryFromFacts(facts, new Date());
 */
export class MemoryWindowReader {
  constructor(
    private readonly db: SqlExecutor,
    private readonly cache = new MemoryFactsCache(),
  ) {}

  /**
   * The facts of the user's newest `limit` eligible events: the same events
   * {@link readMemoryEvents} reads, through the snapshot when it still matches the log.
   */
  async read(workspaceId: string, userId: string, limit = MEMORY_EVENTS_LIMIT): Promise<MemoryWindow> {
    const snapshot = await readMemorySnapshot(this.db, workspaceId, userId, limit, this.cache.stampOf(workspaceId, userId));
    const stored = snapshot?.entries ?? (snapshot ? this.cache.get(workspaceId, userId, snapshot.stamp) : undefined);
    if (snapshot === null || stored === undefined || !snapshot.intact || snapshot.version !== MEMORY_FACTS_VERSION) {
      const entries = withFacts(await readMemoryEvents(this.db, workspaceId, userId, limit));
      const lowSeq = entries.length >= limit ? (entries[entries.length - 1]?.seq ?? 0) : 0;
      await this.#write(workspaceId, userId, { throughSeq: entries[0]?.seq ?? 0, lowSeq, entries });
      return { facts: factsOf(entries), source: 'rebuilt' };
    }
    if (snapshot.entries !== null) this.cache.set(workspaceId, userId, snapshot.stamp, snapshot.entries);
    const source = snapshot.entries === null ? 'cached' : 'snapshot';
    if (snapshot.tail.length === 0) return { facts: factsOf(stored), source };
    const merged = [...withFacts(snapshot.tail), ...stored];
    const window = merged.slice(0, limit);
    // (A tail as long as the window itself is the whole window: nothing of the snapshot is left.)
    if (snapshot.tail.length < Math.min(SNAPSHOT_REFRESH_EVENTS, limit)) return { facts: factsOf(window), source };
    // Events that fell out of the window leave the snapshot, which then answers from its oldest kept event.
    const lowSeq = merged.length > limit ? (window[window.length - 1]?.seq ?? 0) : snapshot.lowSeq;
    await this.#write(workspaceId, userId, { throughSeq: window[0]?.seq ?? 0, lowSeq, entries: window });
    return { facts: factsOf(window), source: 'refreshed' };
  }

  /**
   * Drops this process's decoded copy of the user's snapshot (an erasure). A copy elsewhere is
   * never served once its row is gone (the stamp no longer matches) and leaves on that process's
   * next read of the user, or by eviction.
   */
  forget(workspaceId: string, userId: string): void {
    this.cache.delete(workspaceId, userId);
  }

  async #write(workspaceId: string, userId: string, s: { throughSeq: number; lowSeq: number; entries: SeqMemoryFacts[] }): Promise<void> {
    const stamp = await writeMemorySnapshot(this.db, workspaceId, userId, { version: MEMORY_FACTS_VERSION, ...s });
    if (stamp === undefined) this.cache.delete(workspaceId, userId);
    else this.cache.set(workspaceId, userId, stamp, s.entries);
  }
}
