/**
 * Weekly top-issue counts (schema 18): the migration fills them from the daily counts already
 * stored, each rollup rewrites its day's week, and a range's top issues read from whole weeks plus
 * loose days equal the plain sum over its days, for any range.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlClient } from '../src/db/sql-client.js';
import { openPglite } from '../src/db/pglite-client.js';
import { loadMigrations, migrate } from '../src/db/migrate.js';
import { writeDay } from '../src/store/day-rollups.js';
import { topIssueCounts } from '../src/store/stats-sums.js';
import { BACKENDS, openPostgresSchema, type TestDatabase } from './harness.js';

const DAY_MS = 86_400_000;
const FIRST = Date.parse('2026-08-01T00:00:00Z');
const DAYS = 70;
const QUERIES = ['reset password', 'sales last month', 'churn', 'refund policy', 'export csv', 'sso login'];
const dayOf = (i: number): string => new Date(FIRST + i * DAY_MS).toISOString().slice(0, 10);

/** A deterministic PRNG (mulberry32), so a failure repeats. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The day-by-day answer the weekly read must equal. */
async function plainTop(db: SqlClient, ws: string, from: string, to: string, limit: number) {
  return db.query<{ query: string; negatives: number }>(
    `SELECT query, sum(negatives)::int AS negatives FROM feedback_issue_counts WHERE workspace_id = $1 AND day BETWEEN $2::date AND $3::date
      GROUP BY query ORDER BY 2 DESC, query COLLATE "C" LIMIT $4`,
    [ws, from, to, limit],
  );
}

async function openAt17(name: 'pglite' | 'postgres'): Promise<TestDatabase> {
  const previous = loadMigrations().filter((m) => m.version <= 17);
  if (name === 'pglite') {
    const db = await openPglite(undefined);
    await migrate(db, previous);
    return { db, close: () => db.close().catch(() => undefined) };
  }
  return openPostgresSchema(previous);
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`weekly top-issue counts on ${backend.name}`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await openAt17(backend.name);
    });
    afterAll(async () => database.close());

    it('are filled by the migration, kept by each rollup, and read the same as the days', async () => {
      const { db } = database;
      const random = prng(7);
      // Before schema 18: daily counts as the rollup of schema 17 wrote them.
      for (let i = 0; i < 40; i++) {
        for (const query of QUERIES) {
          if (random() < 0.3) continue;
          await db.query('INSERT INTO feedback_issue_counts (workspace_id, day, query, negatives) VALUES ($1, $2::date, $3, $4)', ['ws_a', dayOf(i), query, 1 + Math.floor(random() * 9)]);
        }
      }
      await db.query(`INSERT INTO feedback_issue_counts (workspace_id, day, query, negatives) VALUES ('ws_b', $1::date, 'reset password', 500)`, [dayOf(3)]);
      await migrate(db);
      // After it: days rolled up the current way, some of them again with other counts.
      for (const i of [...Array.from({ length: DAYS - 40 }, (_, k) => 40 + k), 5, 12, 39]) {
        const issues = QUERIES.filter(() => random() < 0.7).map((query) => ({ query, negatives: 1 + Math.floor(random() * 9) }));
        await db.transaction((tx) =>
          writeDay(tx, 'ws_a', dayOf(i), { metrics: [], metricsJson: '[]', cellsJson: null, users: { ids: [], sums: [], digests: [] }, issues }, new Date()),
        );
      }
      // Two rollups of days of one week at once: the week holds both.
      await Promise.all(
        [50, 51].map((i) =>
          db.transaction((tx) =>
            writeDay(tx, 'ws_a', dayOf(i), { metrics: [], metricsJson: '[]', cellsJson: null, users: { ids: [], sums: [], digests: [] }, issues: [{ query: 'race', negatives: 1000 + i }] }, new Date()),
          ),
        ),
      );
      const weekly = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM feedback_issue_counts_weekly WHERE workspace_id = 'ws_a'`);
      expect(weekly[0]!.n).toBeGreaterThan(40);

      for (let k = 0; k < 60; k++) {
        const a = Math.floor(random() * (DAYS + 4)) - 2;
        const b = a + Math.floor(random() * 50);
        const from = dayOf(a);
        const to = dayOf(b);
        expect(await topIssueCounts(db, 'ws_a', from, to, 5), `${from}..${to}`).toEqual(await plainTop(db, 'ws_a', from, to, 5));
      }
      const race = await topIssueCounts(db, 'ws_a', dayOf(44), dayOf(60), 1);
      expect(race).toEqual([{ query: 'race', negatives: 2101 }]);
      // Another workspace's counts stay its own.
      expect(await topIssueCounts(db, 'ws_b', dayOf(0), dayOf(30), 5)).toEqual([{ query: 'reset password', negatives: 500 }]);
    });
  });
}
