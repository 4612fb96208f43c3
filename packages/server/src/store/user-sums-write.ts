/**
 * The user sums of a day (`feedback_user_stats_daily`), written by the day's rollup as a change
 * set: only the users whose sums differ from the stored ones (by digest, migration 0049). A busy
 * day is rolled up again and again while its feedback comes in, and between two rollups only the
 * users with new feedback change; rewriting all of them parsed 13 MB of JSON for 33,000 users and
 * held the embedded database's one connection for 0.6-0.9 s each time.
 *
 * The change set is planned once ({@link planUserSums}) and applied in parts
 * ({@link userSumsParts}, {@link applyUserSums}): a day's first rollup inserts every user of the
 * day (40,000 rows: 0.6 s on PGlite), and the rollup applies it a part a transaction, so that
 * requests get the connection between the parts (pipeline/rollup.ts).
 */
import type { SqlExecutor } from '../db/sql-client.js';

/**
 * A day's user sums as the rollup computes them, index-aligned: each user's id, its sums as JSON
 * and that JSON's digest. The ids are in the order the rows are written (code-unit order).
 */
export interface DayUserSums {
  ids: string[];
  sums: string[];
  digests: string[];
}

/** What a write changed: rows deleted (stale or gone) and rows inserted (new or changed). */
export interface UserSumsChange {
  deleted: number;
  inserted: number;
}

/** The change that makes the stored user sums of a day the computed ones. */
export interface UserSumsPlan {
  /** Whether every stored row goes (then deleted by day, not by id). */
  wholeDay: boolean;
  /** Users whose stored row goes: changed, or with no sums any more. */
  stale: string[];
  /** Indexes into the {@link DayUserSums} of the users to insert: new or changed. */
  changed: number[];
}

/**
 * Compares the computed user sums of `workspaceId`'s `day` with the stored digests. Reads in the
 * caller's transaction: the plan holds while no other write of the day's user sums comes between
 * (the rollup's day lock and its writer token, pipeline/rollup.ts).
 *
 * @example
 * const plan = await planUserSums(tx, 'ws_1', '2026-11-22', users); // { wholeDay: false, stale: ['u1'], changed: [0] }
 */
export async function planUserSums(tx: SqlExecutor, workspaceId: string, day: string, users: DayUserSums): Promise<UserSumsPlan> {
  // One JSON document of the stored digests, not a row each: a day of 50,000 users read as rows
  // took 420-500 ms of the rollup's transaction on PGlite.
  const [doc] = await tx.query<{ digests: string | null }>(
    'SELECT json_object_agg(user_id, digest)::text AS digests FROM feedback_user_stats_daily WHERE workspace_id = $1 AND day = $2::date',
    [workspaceId, day],
  );
  const storedDigest = new Map(Object.entries(JSON.parse(doc?.digests ?? '{}') as Record<string, string | null>));
  const unchanged = new Set<string>();
  const changed: number[] = [];
  users.ids.forEach((id, i) => {
    if (storedDigest.get(id) === users.digests[i]) unchanged.add(id);
    else changed.push(i);
  });
  const stale = [...storedDigest.keys()].filter((id) => !unchanged.has(id));
  return { wholeDay: stale.length > 0 && stale.length === storedDigest.size, stale, changed };
}

/**
 * Cuts a plan into parts of at most `size` users to insert each, every part deleting the stored
 * rows of its own users (an insert must follow its user's delete) and a share of the users gone;
 * a whole-day delete stays in the first part. An empty plan is one empty part.
 *
 * @example
 * userSumsParts({ wholeDay: false, stale: ['gone', 'u1'], changed: [0, 1] }, { ids: ['u1', 'u2'], sums, digests }, 1)
 * // [{ wholeDay: false, stale: ['u1', 'gone'], changed: [0] }, { wholeDay: false, stale: [], changed: [1] }]
 */
export function userSumsParts(plan: UserSumsPlan, users: DayUserSums, size: number): UserSumsPlan[] {
  const stored = new Set(plan.wholeDay ? [] : plan.stale);
  const changedIds = new Set(plan.changed.map((i) => users.ids[i]));
  const gone = [...stored].filter((id) => !changedIds.has(id));
  const parts: UserSumsPlan[] = [];
  for (let at = 0; at === 0 || at < Math.max(gone.length, plan.changed.length); at += size) {
    const changed = plan.changed.slice(at, at + size);
    parts.push({
      wholeDay: plan.wholeDay && at === 0,
      stale:
        plan.wholeDay && at === 0
          ? plan.stale
          : [...changed.map((i) => users.ids[i] as string).filter((id) => stored.has(id)), ...gone.slice(at, at + size)],
      changed,
    });
  }
  return parts;
}

/**
 * Applies a plan, or one part of it ({@link userSumsParts}): deletes its stale rows, then inserts
 * its changed users' rows.
 *
 * @example
 * for (const part of userSumsParts(plan, users, 2_000)) await db.transaction((tx) => applyUserSums(tx, ws, day, users, part));
 */
export async function applyUserSums(tx: SqlExecutor, workspaceId: string, day: string, users: DayUserSums, part: UserSumsPlan): Promise<UserSumsChange> {
  if (part.wholeDay) {
    await tx.query('DELETE FROM feedback_user_stats_daily WHERE workspace_id = $1 AND day = $2::date', [workspaceId, day]);
  } else if (part.stale.length > 0) {
    await tx.query('DELETE FROM feedback_user_stats_daily WHERE workspace_id = $1 AND day = $2::date AND user_id = ANY ($3::text[])', [workspaceId, day, part.stale]);
  }
  if (part.changed.length > 0) {
    // The sums are already JSON: spliced in as they are rather than parsed and serialized again.
    const rows = part.changed.map((i) => `{"userId":${JSON.stringify(users.ids[i])},"digest":${JSON.stringify(users.digests[i])},"sums":${users.sums[i]}}`);
    await tx.query(
      `INSERT INTO feedback_user_stats_daily (workspace_id, day, user_id, sums, digest)
       SELECT $2, $3::date, "userId", sums, digest FROM json_to_recordset($1::json) AS x("userId" text, digest text, sums jsonb)`,
      [`[${rows.join(',')}]`, workspaceId, day],
    );
  }
  return { deleted: part.stale.length, inserted: part.changed.length };
}

/**
 * Makes the stored user sums of `workspaceId`'s `day` those of `users` in one go: deletes the rows
 * of users whose digest changed or who have no sums any more, inserts the changed and new ones,
 * and leaves the rest alone.
 *
 * @example
 * await writeUserSums(tx, 'ws_1', '2026-11-22', { ids: ['u1'], sums: ['{"events":1,…}'], digests: ['n4bQ…'] });
 * // { deleted: 1, inserted: 1 } when u1's sums changed since the last rollup
 */
export async function writeUserSums(tx: SqlExecutor, workspaceId: string, day: string, users: DayUserSums): Promise<UserSumsChange> {
  return applyUserSums(tx, workspaceId, day, users, await planUserSums(tx, workspaceId, day, users));
}
