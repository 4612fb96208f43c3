/**
 * The user_memory_snapshots table (migration 0023): per user, the memory facts of their newest
 * events up to an event seq, so a context read derives facts only for the events committed
 * since (user-memory-window.ts). One statement reads the snapshot, checks it against the log and
 * reads the events after it; a cache of the log, rebuilt whenever the check fails.
 */
import type { MemoryFacts } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import { MEMORY_EVENT_COLUMNS, MEMORY_EVENT_FILTER, MEMORY_RESPONSE_JOIN, toMemoryEvent, type MemoryEventRow, type SeqMemoryEvent } from './user-memory.js';

/** One event's facts with its place in the log. */
export interface SeqMemoryFacts {
  seq: number;
  facts: MemoryFacts;
}

/** A snapshot as read, with what the log says about it. */
export interface MemorySnapshot {
  /** The facts version it was written with (core's MEMORY_FACTS_VERSION at the time). */
  version: number;
  throughSeq: number;
  lowSeq: number;
  /** Whether the log's eligible events in [lowSeq, throughSeq] are still exactly the ones it holds. */
  intact: boolean;
  /** Names this version of the snapshot (a new one on every write): what a cached copy is kept by. */
  stamp: string;
  /** Its events' facts, highest seq first; null when the caller holds them already (`cachedStamp`). */
  entries: SeqMemoryFacts[] | null;
  /** The user's eligible events after `throughSeq`, highest seq first (at most `limit`). */
  tail: SeqMemoryEvent[];
}

/** One entry as stored: a tuple, as 2,000 objects' repeated keys would double the text. */
type StoredEntry = [
  seq: number,
  id: string,
  at: number,
  responseId: string,
  queryType: string | null,
  verdict: boolean | null,
  categories: string[],
  issues: string[],
  complaints: string[],
  example: string | null,
  style: MemoryFacts['style'],
];

const encode = ({ seq, facts: f }: SeqMemoryFacts): StoredEntry => [seq, f.id, f.at, f.responseId, f.queryType, f.verdict, f.categories, f.issues, f.complaints, f.example, f.style];

const decode = ([seq, id, at, responseId, queryType, verdict, categories, issues, complaints, example, style]: StoredEntry): SeqMemoryFacts => ({
  seq,
  facts: { id, at, responseId, queryType, verdict, categories, issues, complaints, example, style },
});

/** The SQL of a snapshot row's stamp: every field that changes on a write, its time included. */
const STAMP = `concat_ws(':', s.facts_version, s.through_seq, s.low_seq, s.event_count, s.seq_sum, s.updated_at::text)`;

interface Row {
  facts_version: number;
  through_seq: number;
  low_seq: number;
  stamp: string;
  facts: string | null;
  intact: boolean;
  tail: MemoryEventRow[] | null;
}

/**
 * The user's snapshot, whether it still matches the log, and the events committed after it; null
 * when the user has none. One statement, so all three see the same committed state. The facts
 * text is left out when `cachedStamp` names the current snapshot (the caller has it decoded).
 *
 * @example
 * const s = await readMemorySnapshot(db, ws, 'user-456', 2_000);
 * if (s?.intact) facts = [...s.tail.map((e) => memoryFacts(e)), ...(s.entries ?? []).map((e) => e.facts)];
 */
export async function readMemorySnapshot(db: SqlExecutor, workspaceId: string, userId: string, limit: number, cachedStamp?: string): Promise<MemorySnapshot | null> {
  const rows = await db.query<Row>(
    `SELECT s.facts_version, s.through_seq::float8 AS through_seq, s.low_seq::float8 AS low_seq, ${STAMP} AS stamp,
            CASE WHEN ${STAMP} = $4 THEN NULL ELSE s.facts END AS facts,
            (c.n = s.event_count AND c.seq_sum = s.seq_sum) AS intact, t.tail
       FROM user_memory_snapshots s
       CROSS JOIN LATERAL (SELECT count(*)::int AS n, coalesce(sum(seq), 0) AS seq_sum FROM feedback_events
                            WHERE ${MEMORY_EVENT_FILTER} AND seq BETWEEN s.low_seq AND s.through_seq) c
       CROSS JOIN LATERAL (SELECT json_agg(x ORDER BY x.seq DESC) AS tail
                             FROM (SELECT ${MEMORY_EVENT_COLUMNS}
                                     FROM (SELECT id, type, payload, occurred_at, response_id, seq FROM feedback_events
                                            WHERE ${MEMORY_EVENT_FILTER} AND seq > s.through_seq
                                            ORDER BY seq DESC LIMIT $3) e
                                     ${MEMORY_RESPONSE_JOIN}) x) t
      WHERE s.workspace_id = $1 AND s.user_id = $2`,
    [workspaceId, userId, limit, cachedStamp ?? ''],
    { prepare: true },
  );
  const row = rows[0];
  if (row === undefined) return null;
  const tail = typeof row.tail === 'string' ? (JSON.parse(row.tail) as MemoryEventRow[]) : (row.tail ?? []);
  return {
    version: row.facts_version,
    throughSeq: Number(row.through_seq),
    lowSeq: Number(row.low_seq),
    intact: row.intact,
    stamp: row.stamp,
    entries: row.facts === null ? null : (JSON.parse(row.facts) as StoredEntry[]).map(decode),
    tail: tail.map(toMemoryEvent),
  };
}

/** What a snapshot is written from. */
export interface MemorySnapshotWrite {
  version: number;
  /** The newest event folded in (its seq), even when the user's window is empty of facts. */
  throughSeq: number;
  /** The oldest seq the snapshot answers for: 0 when it holds every eligible event the user had. */
  lowSeq: number;
  /** The facts of every eligible event in [lowSeq, throughSeq], highest seq first. */
  entries: SeqMemoryFacts[];
}

/**
 * Writes (or replaces) the user's snapshot and returns its stamp. A concurrent read that folded
 * in fewer events does not overwrite a newer one (then there is no stamp); either is correct, as
 * every read checks what it takes.
 *
 * @example
 * await writeMemorySnapshot(db, ws, 'user-456', { version: 1, throughSeq: 981, lowSeq: 0, entries }) // '1:981:0:…'
 */
export async function writeMemorySnapshot(db: SqlExecutor, workspaceId: string, userId: string, s: MemorySnapshotWrite): Promise<string | undefined> {
  // Nothing to keep: a user without events is one cheap read away from the same answer.
  if (s.entries.length === 0) return undefined;
  const seqSum = s.entries.reduce((sum, e) => sum + e.seq, 0);
  const rows = await db.query<{ stamp: string }>(
    `INSERT INTO user_memory_snapshots AS s (workspace_id, user_id, facts_version, through_seq, low_seq, event_count, seq_sum, facts)
     VALUES ($1, $2, $3, $4, $5, $6, $7::numeric, $8)
     ON CONFLICT (workspace_id, user_id) DO UPDATE
       SET facts_version = excluded.facts_version, through_seq = excluded.through_seq, low_seq = excluded.low_seq,
           event_count = excluded.event_count, seq_sum = excluded.seq_sum,
           facts = excluded.facts, updated_at = now()
     WHERE s.through_seq <= excluded.through_seq
     RETURNING ${STAMP} AS stamp`,
    [workspaceId, userId, s.version, s.throughSeq, s.lowSeq, s.entries.length, String(seqSum), JSON.stringify(s.entries.map(encode))],
    { prepare: true },
  );
  return rows[0]?.stamp;
}

/**
 * Drops the snapshots of users whose events were deleted (retention): they would be rebuilt on
 * their next read anyway (their check fails), but until then they would keep facts of the
 * deleted events (ids, comment excerpts) that retention promised to remove.
 *
 * @example
 * await dropMemorySnapshots(tx, ws, ['user-456']);
 */
export async function dropMemorySnapshots(db: SqlExecutor, workspaceId: string, userIds: readonly string[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.query('DELETE FROM user_memory_snapshots WHERE workspace_id = $1 AND user_id = ANY ($2::text[])', [workspaceId, userIds]);
}
