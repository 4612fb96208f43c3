/**
 * The event log's upkeep, run by the sweep: creates the months ahead of the partitioned
 * `feedback_events` (so a month's events never wait in the default partition), and deletes the
 * content fingerprints whose dedup window has closed (see migration 0005).
 */
import type { SqlExecutor } from '../db/sql-client.js';

/** Partitions kept ready: this month and the next two (a sweep missed for weeks still finds them). */
const MONTHS_AHEAD = 3;

/** What an upkeep did. */
export interface EventLogUpkeep {
  partitionsCreated: number;
  fingerprintsExpired: number;
}

/**
 * Creates the missing monthly partitions from `now`'s month on and expires closed fingerprints.
 * Safe to run from several processes at once (the partition function takes an advisory lock
 * when it has one to create).
 *
 * @example
 * await upkeepEventLog(db) // { partitionsCreated: 0, fingerprintsExpired: 412 }
 */
export async function upkeepEventLog(db: SqlExecutor, now: Date = new Date()): Promise<EventLogUpkeep> {
  const [made] = await db.query<{ n: number }>('SELECT feedloop_ensure_event_partitions($1::timestamptz, $2) AS n', [now.toISOString(), MONTHS_AHEAD]);
  const [expired] = await db.query<{ n: number }>(
    'WITH d AS (DELETE FROM feedback_fingerprints WHERE expires_at < $1::timestamptz RETURNING 1) SELECT count(*)::int AS n FROM d',
    [now.toISOString()],
  );
  return { partitionsCreated: Number(made?.n ?? 0), fingerprintsExpired: Number(expired?.n ?? 0) };
}
