/**
 * Issue 21: the day rollup writes a day's user sums as a change set (store/user-sums-write.ts), on
 * both stores: unchanged users' rows are left alone, changed ones replaced, gone ones deleted,
 * and rows without a digest (written before migration 0049) rewritten; applied in parts, one a
 * transaction, the same rows as in one go.
 */
import { emptySums, type StatsSums } from '@feedloop/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlClient } from '../src/db/sql-client.js';
import { dayUserSums } from '../src/pipeline/rollup-compute.js';
import { applyUserSums, planUserSums, userSumsParts, writeUserSums } from '../src/store/user-sums-write.js';
import { BACKENDS, type TestDatabase } from './harness.js';

const DAY = '2026-11-22';
const sums = (events: number, positive: number): StatsSums => ({ ...emptySums(), events, positiveRatings: positive, negativeRatings: events - positive });

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`a day's user sums written as a change set on ${backend.name}`, () => {
    let t: TestDatabase;
    let db: SqlClient;
    const stored = async (ws: string) =>
      Object.fromEntries(
        (await db.query<{ user_id: string; sums: { events: number }; digest: string | null }>(
          'SELECT user_id, sums, digest FROM feedback_user_stats_daily WHERE workspace_id = $1 AND day = $2::date ORDER BY user_id',
          [ws, DAY],
        )).map((r) => [r.user_id, { events: r.sums.events, digest: r.digest }]),
      );
    const write = (ws: string, users: Array<{ userId: string; sums: StatsSums }>) => db.transaction((tx) => writeUserSums(tx, ws, DAY, dayUserSums(users)));

    beforeAll(async () => {
      t = await backend.open();
      db = t.db;
    });
    afterAll(async () => {
      await t?.close();
    });

    it('writes only the users whose sums changed, and deletes the users gone', async () => {
      expect(await write('ws_a', [{ userId: 'u1', sums: sums(1, 1) }, { userId: 'u2', sums: sums(2, 1) }, { userId: 'u3', sums: sums(3, 0) }])).toEqual({ deleted: 0, inserted: 3 });
      const first = await stored('ws_a');
      expect(Object.keys(first)).toEqual(['u1', 'u2', 'u3']);
      // A stored row whose sums no longer match its digest: a write that rewrote every row would mend it.
      await db.query(`UPDATE feedback_user_stats_daily SET sums = '{"events": 99}' WHERE workspace_id = 'ws_a' AND user_id = 'u1'`);

      const change = await write('ws_a', [{ userId: 'u1', sums: sums(1, 1) }, { userId: 'u2', sums: sums(5, 4) }, { userId: 'u4', sums: sums(1, 0) }]);
      expect(change).toEqual({ deleted: 2, inserted: 2 });
      const second = await stored('ws_a');
      expect(second).toEqual({
        u1: { events: 99, digest: first.u1?.digest },
        u2: { events: 5, digest: expect.any(String) },
        u4: { events: 1, digest: expect.any(String) },
      });
      expect(second.u2?.digest).not.toBe(first.u2?.digest);
    });

    it('applies a change set in parts, a transaction each, to the same rows as in one go', async () => {
      const before = [{ userId: 'a', sums: sums(1, 1) }, { userId: 'b', sums: sums(2, 1) }, { userId: 'c', sums: sums(3, 0) }, { userId: 'd', sums: sums(1, 0) }];
      // b changes, c and d are gone, e and f are new, a is as it was.
      const after = dayUserSums([{ userId: 'a', sums: sums(1, 1) }, { userId: 'b', sums: sums(4, 4) }, { userId: 'e', sums: sums(1, 1) }, { userId: 'f', sums: sums(2, 0) }]);
      for (const ws of ['ws_whole', 'ws_parts']) await write(ws, before);
      await db.transaction((tx) => writeUserSums(tx, 'ws_whole', DAY, after));
      const plan = await db.transaction((tx) => planUserSums(tx, 'ws_parts', DAY, after));
      const parts = userSumsParts(plan, after, 1);
      // Each part inserts one user and deletes that user's old row with it, whatever part the plan listed it in.
      expect(parts.map((p) => [p.stale, p.changed.map((i) => after.ids[i])])).toEqual([
        [['b', expect.any(String)], ['b']],
        [[expect.any(String)], ['e']],
        [[], ['f']],
      ]);
      expect(parts.flatMap((p) => p.stale).sort()).toEqual(['b', 'c', 'd']);
      for (const part of parts) await db.transaction((tx) => applyUserSums(tx, 'ws_parts', DAY, after, part));
      expect(await stored('ws_parts')).toEqual(await stored('ws_whole'));
      expect(Object.keys(await stored('ws_parts'))).toEqual(['a', 'b', 'e', 'f']);
      // A day whose every stored row goes is emptied by its first part.
      const fresh = dayUserSums([{ userId: 'z', sums: sums(1, 1) }, { userId: 'y', sums: sums(1, 0) }]);
      const wholeDay = userSumsParts(await db.transaction((tx) => planUserSums(tx, 'ws_parts', DAY, fresh)), fresh, 1);
      expect(wholeDay.map((p) => p.wholeDay)).toEqual([true, false]);
      for (const part of wholeDay) await db.transaction((tx) => applyUserSums(tx, 'ws_parts', DAY, fresh, part));
      expect(Object.keys(await stored('ws_parts')).sort()).toEqual(['y', 'z']);
    });

    it('rewrites rows without a digest, touches no other day or workspace, and empties a day with no users', async () => {
      await write('ws_b', [{ userId: 'u1', sums: sums(1, 1) }]);
      await db.query(
        `INSERT INTO feedback_user_stats_daily (workspace_id, day, user_id, sums) VALUES ('ws_c', $1::date, 'u1', '{"events": 7}'), ('ws_c', $1::date + 1, 'u1', '{"events": 8}')`,
        [DAY],
      );
      expect(await write('ws_c', [{ userId: 'u1', sums: sums(2, 2) }])).toEqual({ deleted: 1, inserted: 1 });
      expect((await stored('ws_c')).u1).toEqual({ events: 2, digest: expect.any(String) });
      const nextDay = await db.query<{ sums: { events: number } }>(`SELECT sums FROM feedback_user_stats_daily WHERE workspace_id = 'ws_c' AND day = $1::date + 1`, [DAY]);
      expect(nextDay.map((r) => r.sums.events)).toEqual([8]);

      expect(await write('ws_c', [])).toEqual({ deleted: 1, inserted: 0 });
      expect(await stored('ws_c')).toEqual({});
      expect(Object.keys(await stored('ws_b'))).toEqual(['u1']);
    });
  });
}
