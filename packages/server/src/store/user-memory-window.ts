/**
 * The facts of a user's memory window (their newest 2,000 eligible events, docs/memory.md), read
 * through their snapshot: a read derives facts only for the events committed since the snapshot
 * (the expensive part: payload and answer decoded, regular expressions over both), and rebuilds
 * it from the log when the log no longer matches it. So a feedback event still counts on the very
 * next request (the read looks at the log every time), and the snapshot is only ever a cache.
 */
import { MEMORY_FACTS_VERSION, memoryFacts, type MemoryFacts } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import { MEMORY_EVENTS_LIMIT, readMemoryEvents, type SeqMemoryEvent } from './user-memory.js';
import { readMemorySnapshot, writeMemorySnapshot, type SeqMemoryFacts } from './user-memory-snapshot.js';

/**
 * New events a read folds in before it writes the snapshot again. A write copies the whole
 * window (~150 bytes an event); deriving the facts of a few dozen new events on each read costs
 * well under a millisecond, so the snapshot is rewritten once every this many events, not on every
 * read of a user who gives feedback between prompts.
 */
export const SNAPSHOT_REFRESH_EVENTS = 64;

/** How a window read went: whether it used the snapshot, and what it wrote. */
export type WindowSource = 'snapshot' | 'refreshed' | 'rebuilt';

/** A user's memory window. */
export interface MemoryWindow {
  /** The facts of their newest eligible events, highest seq first. */
  facts: MemoryFacts[];
  source: WindowSource;
}

const withFacts = (events: readonly SeqMemoryEvent[]): SeqMemoryFacts[] => events.map((e) => ({ seq: e.seq, facts: memoryFacts(e) }));

/**
 * Reads the facts of the user's newest {@link MEMORY_EVENTS_LIMIT} eligible events: the same
 * events {@link readMemoryEvents} reads, through the snapshot when it still matches the log.
 *
 * @example
 * const { facts } = await readMemoryWindow(db, ws, 'user-456');
 * const memory = memoryFromFacts(facts, new Date());
 */
export async function readMemoryWindow(db: SqlExecutor, workspaceId: string, userId: string, limit = MEMORY_EVENTS_LIMIT): Promise<MemoryWindow> {
  const snapshot = await readMemorySnapshot(db, workspaceId, userId, limit);
  if (snapshot === null || !snapshot.intact || snapshot.version !== MEMORY_FACTS_VERSION) {
    const entries = withFacts(await readMemoryEvents(db, workspaceId, userId, limit));
    const lowSeq = entries.length >= limit ? (entries[entries.length - 1]?.seq ?? 0) : 0;
    await writeMemorySnapshot(db, workspaceId, userId, { version: MEMORY_FACTS_VERSION, throughSeq: entries[0]?.seq ?? 0, lowSeq, entries });
    return { facts: entries.map((e) => e.facts), source: 'rebuilt' };
  }
  if (snapshot.tail.length === 0) return { facts: snapshot.entries.map((e) => e.facts), source: 'snapshot' };
  const merged = [...withFacts(snapshot.tail), ...snapshot.entries];
  const window = merged.slice(0, limit);
  // (A tail as long as the window itself is the whole window: nothing of the snapshot is left.)
  if (snapshot.tail.length < Math.min(SNAPSHOT_REFRESH_EVENTS, limit)) return { facts: window.map((e) => e.facts), source: 'snapshot' };
  // Events that fell out of the window leave the snapshot, which then answers from its oldest kept event.
  const lowSeq = merged.length > limit ? (window[window.length - 1]?.seq ?? 0) : snapshot.lowSeq;
  await writeMemorySnapshot(db, workspaceId, userId, { version: MEMORY_FACTS_VERSION, throughSeq: window[0]?.seq ?? 0, lowSeq, entries: window });
  return { facts: window.map((e) => e.facts), source: 'refreshed' };
}
