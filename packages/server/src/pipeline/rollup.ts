/**
 * Daily rollups: recomputes feedback_metrics_daily, the stats cells, the user sums and the issue counts for the
 * days processing (or a response registration) marked dirty. A day is
 * recomputed whole from its counted signals, so re-runs are idempotent and a late event simply
 * marks its day dirty again. A dirty mark is read without a lock and deleted, in the transaction
 * that writes the rollup, only if its version is unchanged: processing never waits for a rollup,
 * an event processed meanwhile keeps the day dirty, and a failure leaves the mark. A rollup that
 * finds the mark gone at its commit was overtaken by a concurrent one of the same day that read
 * later (two workers, an erasure's job): it undoes its write, so a stale read never has the last word.
 *
 * The day is read before that transaction; embedded, in pages of {@link ROLLUP_PAGE} rows, each
 * its own statement: PGlite has one connection, and one read of a busy day (100,000 events) would
 * hold every request for seconds. A page is its signals first, then only their joins
 * (store/day-rollups.ts): ~40 ms for 1,000 rows at 40,000 events a day. The pages need no common
 * snapshot: whatever is processed after the mark was read bumps its version, so the day stays
 * dirty and is read again.
 *
 * The day's totals (metrics, cells, issue counts) are written in one transaction, which makes the
 * rollup the day's writer (migration 0051); its user sums follow a part a transaction
 * ({@link USER_SUMS_PART} users at most), each part only while the rollup is still the writer,
 * and the last part clears or defers the mark. A day's first rollup inserts every user of the day
 * (40,000 rows held PGlite's one connection 0.6-0.7 s in one transaction). Meanwhile a user's
 * figures may be the previous rollup's for a moment; a stop between parts leaves the mark, and the
 * next rollup writes the day again.
 *
 * A day still dirty after its rollup (events kept coming: today) is rolled up again only after
 * {@link ROLLUP_PACE} times that rollup's duration, so recomputing a busy day whole never takes
 * more than a tenth of a connection from the pipeline. Today's unfiltered figures come from the
 * live counters meanwhile.
 */
import { randomUUID } from 'node:crypto';
import type { DailyMetrics } from '@feedloop/core';
import { heavyReadClient, type SqlClient, type SqlExecutor } from '../db/sql-client.js';
import {
  claimDayWriter,
  clearDirtyDay,
  deferDirtyDay,
  nextDirtyDay,
  readDay,
  readDayPages,
  stillDayWriter,
  writeDay,
  writeDayTotals,
  type DayOutput,
  type DayRead,
  type DirtyDay,
} from '../store/day-rollups.js';
import { applyUserSums, planUserSums, userSumsParts, type UserSumsPlan } from '../store/user-sums-write.js';
import { computeDay } from './rollup-compute.js';

const DAYS_PER_RUN = 100;
/** Rows a read of the day takes at a time, embedded: a page holds the connection ~40 ms (5,000 held it 200-400 ms). */
export const ROLLUP_PAGE = 1_000;
/** Users whose sums one transaction of a rollup writes at most, embedded (~30 ms of the connection); on Postgres, ten times that. */
export const USER_SUMS_PART = 2_000;
/** A day still dirty after its rollup waits this many times the rollup's duration for the next. */
export const ROLLUP_PACE = 10;

/** Thrown inside a rollup's transaction to undo a write a later rollup of the same day superseded. */
class SupersededRollup extends Error {}

/**
 * Rolls up dirty days until none is left or `maxDays` are done; with `workspaceId`, only that
 * workspace's (an erasure's job: it recomputes what it changed and touches no other workspace).
 * An aborted `signal` (the process shutting down) stops it before the next day or page, and it
 * returns the days done: the day it was reading keeps its dirty mark, and the next rollup reads it
 * whole again (a busy day's first rollup reads for seconds, and held a shutdown past its deadline).
 *
 * @returns the days rolled up.
 * @example
 * await rollupDirtyDays(db) // [{ workspaceId: 'ws_1', day: '2026-11-22' }]
 */
export async function rollupDirtyDays(
  db: SqlClient,
  options: {
    maxDays?: number;
    now?: Date;
    compute?: (input: DayRead) => Promise<DayOutput>;
    workspaceId?: string;
    signal?: AbortSignal;
    /** Users a transaction writes the sums of at most ({@link USER_SUMS_PART} embedded). */
    userSumsPart?: number;
  } = {},
): Promise<Array<{ workspaceId: string; day: string }>> {
  const compute = options.compute ?? (async (input: DayRead) => computeDay(input));
  const done: Array<{ workspaceId: string; day: string }> = [];
  const skipped: Array<{ workspaceId: string; day: string }> = [];
  const maxDays = options.maxDays ?? DAYS_PER_RUN;
  while (done.length + skipped.length < maxDays && !options.signal?.aborted) {
    const mark = await nextDirtyDay(db, [...done, ...skipped], options.workspaceId);
    if (!mark) break;
    const started = performance.now();
    // Paged only embedded, where one statement at a time holds the one connection (see above);
    // its pages are heavy reads there, after the requests waiting (db/pglite-thread.ts).
    const input = await readDayPages(heavyReadClient(db), mark.workspaceId, mark.day, db.dialect === 'pglite' ? ROLLUP_PAGE : Infinity, options.signal).catch(
      (err: unknown) => {
        if (options.signal?.aborted) return undefined;
        throw err;
      },
    );
    if (!input) break;
    const output = await compute(input);
    const written = await writeRollup(db, mark, output, {
      now: options.now ?? new Date(),
      partSize: options.userSumsPart ?? (db.dialect === 'pglite' ? USER_SUMS_PART : USER_SUMS_PART * 10),
      started,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (written) done.push({ workspaceId: mark.workspaceId, day: mark.day });
    else skipped.push({ workspaceId: mark.workspaceId, day: mark.day });
  }
  return done;
}

/**
 * Writes a day's rollup: its totals and the start of its user sums in one transaction, the rest of
 * the user sums a part a transaction (see the file's comment), the mark cleared or deferred with
 * the last part.
 *
 * @returns false when a rollup of the day that read it later overtook this one (its write then
 *   stands), or a stop came between parts.
 */
async function writeRollup(
  db: SqlClient,
  mark: DirtyDay,
  output: DayOutput,
  options: { now: Date; partSize: number; started: number; signal?: AbortSignal },
): Promise<boolean> {
  const { workspaceId, day } = mark;
  const writer = randomUUID();
  // Clears the mark, or (events keep coming: today) makes its next rollup wait, so a busy day's
  // rollups take at most 1 / ROLLUP_PACE of a connection (migration 0012).
  const finish = async (tx: SqlExecutor): Promise<void> => {
    if (!(await clearDirtyDay(tx, mark))) await deferDirtyDay(tx, mark, Math.round((performance.now() - options.started) * ROLLUP_PACE));
  };
  const rest = await db
    .transaction(async (tx): Promise<UserSumsPlan[]> => {
      await writeDayTotals(tx, workspaceId, day, output, options.now);
      // No mark left: a concurrent rollup (another worker, an erasure's job) read the day after
      // this one did, wrote it and cleared it. This read may miss events that one counted, so its
      // write is undone rather than left as the day's last word.
      if (!(await claimDayWriter(tx, mark, writer))) throw new SupersededRollup();
      const [first, ...parts] = userSumsParts(await planUserSums(tx, workspaceId, day, output.users), output.users, options.partSize);
      if (first) await applyUserSums(tx, workspaceId, day, output.users, first);
      if (parts.length === 0) await finish(tx);
      return parts;
    }, { background: true })
    .catch((error: unknown) => {
      if (error instanceof SupersededRollup) return undefined;
      throw error;
    });
  if (!rest) return false;
  for (const [i, part] of rest.entries()) {
    if (options.signal?.aborted) return false;
    const going = await db.transaction(async (tx) => {
      if (!(await stillDayWriter(tx, mark, writer))) return false;
      await applyUserSums(tx, workspaceId, day, output.users, part);
      if (i === rest.length - 1) await finish(tx);
      return true;
    }, { background: true });
    if (!going) return false;
  }
  return true;
}

/**
 * Recomputes one workspace's day (UTC) in one go: {@link readDay}, then {@link writeDay}.
 *
 * @example
 * await db.transaction((tx) => rollupDay(tx, 'ws_1', '2026-11-22', new Date()));
 */
export async function rollupDay(tx: SqlExecutor, workspaceId: string, day: string, now: Date): Promise<DailyMetrics[]> {
  return writeDay(tx, workspaceId, day, computeDay(await readDay(tx, workspaceId, day)), now);
}
