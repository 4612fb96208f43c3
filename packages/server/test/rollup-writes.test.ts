/**
 * How the day rollup writes (pipeline/rollup.ts), on both stores: a day still dirty after its
 * rollup waits ten times the rollup; a shutdown stops a rollup between its reads; a rollup
 * overtaken by a later one of the same day is undone; a day's user sums are written a part a
 * transaction after its totals, and an earlier rollup's parts stop once a later one wrote.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlClient } from '../src/db/sql-client.js';
import { computeDay } from '../src/pipeline/rollup-compute.js';
import { rollupDirtyDays } from '../src/pipeline/rollup.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const today = () => new Date().toISOString().slice(0, 10);

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`the day rollup's writes on ${backend.name}`, () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), {}, { worker: true });
      const post = (url: string, payload: object) => t.app.inject({ method: 'POST', url, headers: t.auth, payload });
      expect((await post('/v1/responses/batch', { responses: [{ id: 'w-r1', query: 'Sales?', answer: 'a1' }, { id: 'w-r2', query: 'Churn?', answer: 'a2' }] })).statusCode).toBe(207);
      const sent = await post('/v1/feedback/batch', {
        events: [
          { id: 'w-e1', responseId: 'w-r1', type: 'thumbs_up', userId: 'u1' },
          { id: 'w-e2', responseId: 'w-r1', type: 'thumbs_down', userId: 'u2' },
          { id: 'w-e3', responseId: 'w-r2', type: 'rating', userId: 'u3', payload: { rating: 4 } },
        ],
      });
      expect(sent.statusCode).toBe(207);
      await t.services.pipeline.idle(10_000);
      await rollupDirtyDays(t.db, { workspaceId: t.workspaceId });
    });
    afterAll(async () => {
      await t.close();
    });

    it('paces a day that is still dirty after its rollup: the next waits ten times the rollup', async () => {
      await t.db.query(`INSERT INTO rollup_dirty (workspace_id, day) VALUES ($1, $2::date) ON CONFLICT DO NOTHING`, [t.workspaceId, today()]);
      // An event processed while the day is being read: the version moves under the rollup.
      let bumped = false;
      const busy: SqlClient = {
        ...t.db,
        query: async (text, params, options) => {
          if (!bumped && text.includes('FROM feedback_signals s')) {
            bumped = true;
            await t.db.query('UPDATE rollup_dirty SET version = version + 1 WHERE workspace_id = $1', [t.workspaceId]);
          }
          return t.db.query(text, params, options);
        },
        transaction: (fn, options) => t.db.transaction(fn, options),
        // The rollup reads its pages as heavy reads (embedded): through this client too.
        heavyReads: () => busy,
      };
      expect(await rollupDirtyDays(busy)).toEqual([{ workspaceId: t.workspaceId, day: today() }]);
      const [mark] = await t.db.query<{ waits: boolean }>(
        'SELECT not_before > now() AS waits FROM rollup_dirty WHERE workspace_id = $1 AND day = $2::date',
        [t.workspaceId, today()],
      );
      expect(mark).toEqual({ waits: true });
      expect(await rollupDirtyDays(t.db)).toEqual([]);
      await t.db.query(`UPDATE rollup_dirty SET not_before = now() - interval '1 second' WHERE workspace_id = $1`, [t.workspaceId]);
      expect(await rollupDirtyDays(t.db)).toEqual([{ workspaceId: t.workspaceId, day: today() }]);
      expect(await t.db.query('SELECT 1 FROM rollup_dirty WHERE workspace_id = $1', [t.workspaceId])).toEqual([]);
    });

    it('stops a rollup between its reads once its signal is aborted (a shutdown): nothing written, the day still dirty', async () => {
      await t.db.query(`INSERT INTO rollup_dirty (workspace_id, day) VALUES ($1, $2::date) ON CONFLICT DO NOTHING`, [t.workspaceId, today()]);
      const computedAt = async () =>
        (await t.db.query<{ at: string }>(`SELECT computed_at::text AS at FROM feedback_metrics_daily WHERE workspace_id = $1 AND day = $2::date AND dimension = 'all'`, [
          t.workspaceId,
          today(),
        ]))[0]?.at;
      const before = await computedAt();
      const shutdown = new AbortController();
      let reads = 0;
      const stopping: SqlClient = {
        ...t.db,
        query: async (text, params, options) => {
          // The day's first read (its signals) is under way when the process starts shutting down.
          if (text.includes('FROM feedback_signals s') || text.includes('FROM responses r')) {
            reads++;
            shutdown.abort();
          }
          return t.db.query(text, params, options);
        },
        transaction: (fn, options) => t.db.transaction(fn, options),
        heavyReads: () => stopping,
      };
      expect(await rollupDirtyDays(stopping, { signal: shutdown.signal })).toEqual([]);
      expect(reads).toBe(1);
      expect(await computedAt()).toBe(before);
      expect(await t.db.query('SELECT 1 FROM rollup_dirty WHERE workspace_id = $1 AND day = $2::date', [t.workspaceId, today()])).toHaveLength(1);
      // The next rollup (the next start) reads the day whole.
      expect(await rollupDirtyDays(t.db)).toEqual([{ workspaceId: t.workspaceId, day: today() }]);
      expect(await computedAt()).not.toBe(before);
    });

    it('undoes a rollup overtaken by a later one of the same day: the stale read never has the last word', async () => {
      const totalOf = async () =>
        (await t.db.query<{ total_events: number }>(
          `SELECT total_events FROM feedback_metrics_daily WHERE workspace_id = $1 AND day = $2::date AND dimension = 'all'`,
          [t.workspaceId, today()],
        ))[0]?.total_events;
      await t.db.query(`INSERT INTO rollup_dirty (workspace_id, day) VALUES ($1, $2::date) ON CONFLICT DO NOTHING`, [t.workspaceId, today()]);
      const fresh = await totalOf();
      expect(fresh).toBeGreaterThan(0);
      // While this rollup computes from a read that missed the day's events, a later one (another
      // worker) reads the day whole, writes it and clears the mark.
      let overtaken = false;
      const rolled = await rollupDirtyDays(t.db, {
        workspaceId: t.workspaceId,
        compute: async (input) => {
          overtaken = true;
          expect(await rollupDirtyDays(t.db, { workspaceId: t.workspaceId })).toEqual([{ workspaceId: t.workspaceId, day: today() }]);
          return computeDay({ ...input, rows: [], registered: [] });
        },
      });
      expect(overtaken).toBe(true);
      expect(rolled).toEqual([]);
      expect(await totalOf()).toBe(fresh);
      expect(await t.db.query('SELECT 1 FROM rollup_dirty WHERE workspace_id = $1', [t.workspaceId])).toEqual([]);
    });

    const userRows = () =>
      t.db.query<{ user_id: string; sums: unknown; digest: string | null }>(
        'SELECT user_id, sums, digest FROM feedback_user_stats_daily WHERE workspace_id = $1 AND day = $2::date ORDER BY user_id',
        [t.workspaceId, today()],
      );
    const markToday = () => t.db.query(`INSERT INTO rollup_dirty (workspace_id, day) VALUES ($1, $2::date) ON CONFLICT DO NOTHING`, [t.workspaceId, today()]);
    /** A client whose transactions are counted, `before(n)` awaited before the n-th (1-based). */
    const counting = (before: (n: number) => Promise<void> = async () => undefined) => {
      let n = 0;
      const client: SqlClient & { transactions: () => number } = {
        ...t.db,
        transaction: async (fn, options) => {
          await before(++n);
          return t.db.transaction(fn, options);
        },
        heavyReads: () => client,
        transactions: () => n,
      };
      return client;
    };

    it("writes a day's user sums a part a transaction after its totals, the same rows as in one go", async () => {
      await markToday();
      await rollupDirtyDays(t.db, { workspaceId: t.workspaceId });
      const whole = await userRows();
      expect(whole.length).toBeGreaterThanOrEqual(3);
      // Every user's row to write again: a day's first rollup.
      await t.db.query('DELETE FROM feedback_user_stats_daily WHERE workspace_id = $1 AND day = $2::date', [t.workspaceId, today()]);
      await markToday();
      const client = counting();
      expect(await rollupDirtyDays(client, { workspaceId: t.workspaceId, userSumsPart: 1 })).toEqual([{ workspaceId: t.workspaceId, day: today() }]);
      // The totals with the first user, then one transaction for each of the others.
      expect(client.transactions()).toBe(whole.length);
      expect(await userRows()).toEqual(whole);
      expect(await t.db.query('SELECT 1 FROM rollup_dirty WHERE workspace_id = $1', [t.workspaceId])).toEqual([]);
    });

    it("stops an earlier rollup's user sums between parts once a later rollup of the day wrote: the later one's rows stand", async () => {
      await markToday();
      await rollupDirtyDays(t.db, { workspaceId: t.workspaceId });
      const fresh = await userRows();
      await markToday();
      // The earlier rollup's sums differ from the day's (a read that missed events), so that any of
      // its rows left standing would show.
      let later: unknown;
      const client = counting(async (n) => {
        if (n === 2) later = await rollupDirtyDays(t.db, { workspaceId: t.workspaceId });
      });
      const rolled = await rollupDirtyDays(client, {
        workspaceId: t.workspaceId,
        userSumsPart: 1,
        compute: async (input) => {
          const out = computeDay(input);
          return { ...out, users: { ...out.users, sums: out.users.sums.map(() => '{"events":999}'), digests: out.users.digests.map((d) => `${d}-stale`) } };
        },
      });
      expect(later).toEqual([{ workspaceId: t.workspaceId, day: today() }]);
      expect(rolled).toEqual([]);
      // Its second transaction found the later rollup the day's writer, and wrote nothing more.
      expect(client.transactions()).toBe(2);
      expect(await userRows()).toEqual(fresh);
      expect(await t.db.query('SELECT 1 FROM rollup_dirty WHERE workspace_id = $1', [t.workspaceId])).toEqual([]);
    });
  });
}
