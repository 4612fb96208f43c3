/**
 * The experiment totals the rescore keeps (store/experiment-upkeep.ts) on both stores: they
 * always equal the sum of the responses' facts, two rescores of one response at once count it
 * once, and migration 0008 backfills them from what was counted before it.
 */
import { experimentFacts, type ExperimentFacts } from '@feedloop/core';
import { afterEach, describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../src/db/migrate.js';
import { openPglite } from '../src/db/pglite-client.js';
import type { SqlClient } from '../src/db/sql-client.js';
import { updateExperimentTotals } from '../src/store/experiment-upkeep.js';
import { experimentTotals } from '../src/store/experiment-totals.js';
import { BACKENDS, openPostgresSchema, type TestDatabase } from './harness.js';

const WS = 'ws_upkeep';
const up = { type: 'thumbs_up', polarity: 'positive', editDistance: null } as const;
const down = { type: 'thumbs_down', polarity: 'negative', editDistance: null } as const;
const correction = { type: 'correction', polarity: 'negative', editDistance: 40 } as const;

async function seedResponses(db: SqlClient, rows: Array<[id: string, variant: string | null]>): Promise<void> {
  await db.query('INSERT INTO workspaces (id, name) VALUES ($1, $1) ON CONFLICT DO NOTHING', [WS]);
  for (const [id, variant] of rows) {
    await db.query(
      `INSERT INTO responses (workspace_id, id, query, answer, experiment_id, variant, created_at) VALUES ($1, $2, 'q', 'a', $3, $4, now())`,
      [WS, id, variant === null ? null : 'exp', variant],
    );
  }
}

const rescore = (db: SqlClient, facts: Array<[string, ExperimentFacts]>) =>
  db.transaction((tx) => updateExperimentTotals(tx, facts.map(([rid, f]) => ({ ws: WS, rid, facts: f }))));

async function totalsOf(db: SqlClient): Promise<Record<string, unknown>> {
  const byVariant = (await experimentTotals(db, WS, 'exp')).get('exp') ?? [];
  return Object.fromEntries(byVariant.map((t) => [t.variant, t]));
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`experiment totals on ${backend.name}`, () => {
    let database: TestDatabase | undefined;
    afterEach(async () => {
      await database?.close();
      database = undefined;
    });

    it('follow each response from its previous facts to its new ones, and skip untagged responses', async () => {
      database = await backend.open();
      const { db } = database;
      await seedResponses(db, [['a1', 'control'], ['a2', 'control'], ['b1', 'B'], ['x', null]]);
      await rescore(db, [
        ['a1', experimentFacts([up], 0.5)],
        ['a2', experimentFacts([down, correction], -0.5)],
        ['b1', experimentFacts([up, up, down], 1)],
        ['x', experimentFacts([up], 1)],
      ]);
      expect(await totalsOf(db)).toEqual({
        control: { variant: 'control', responses: 2, rated: 2, positive: 1, corrected: 1, edits: 1, editDistanceSum: 40, scored: 2, scoreSum: 0, scoreSumSquares: 0.5 },
        B: { variant: 'B', responses: 1, rated: 1, positive: 1, corrected: 0, edits: 0, editDistanceSum: 0, scored: 1, scoreSum: 1, scoreSumSquares: 1 },
      });
      // a1's vote is replaced by a thumbs down: still rated, no longer positive.
      await rescore(db, [['a1', experimentFacts([down], -1)]]);
      expect(await totalsOf(db)).toMatchObject({ control: { rated: 2, positive: 0, scored: 2, scoreSum: -1.5, scoreSumSquares: 1.25 } });
      const facts = await db.query('SELECT response_id FROM experiment_response_facts WHERE workspace_id = $1 ORDER BY response_id', [WS]);
      expect(facts.map((f) => f.response_id)).toEqual(['a1', 'a2', 'b1']);
    });

    it('counts a response once when two rescores of it run at once', async () => {
      database = await backend.open();
      const { db } = database;
      await seedResponses(db, [['c1', 'control']]);
      const facts = experimentFacts([up], 1);
      await Promise.all([rescore(db, [['c1', facts]]), rescore(db, [['c1', facts]]), rescore(db, [['c1', facts]])]);
      expect(await totalsOf(db)).toMatchObject({ control: { responses: 1, rated: 1, positive: 1, scored: 1, scoreSum: 1 } });
    });

    it('are backfilled by migration 0008 from the signals counted before it', async () => {
      const before = loadMigrations().filter((m) => m.version < 8);
      database = backend.name === 'postgres' ? await openPostgresSchema(before) : await pgliteAt(before);
      const { db } = database;
      await seedResponses(db, [['d1', 'control'], ['d2', 'B']]);
      const signal = async (id: string, rid: string, type: string, polarity: string, superseded: string | null = null) => {
        await db.query(
          `INSERT INTO feedback_events (workspace_id, id, response_id, type, source, payload, occurred_at, received_at, superseded_by)
           VALUES ($1, $2, $3, $4, 'explicit', '{}', now(), now(), $5)`,
          [WS, id, rid, type, superseded],
        );
        await db.query(`INSERT INTO feedback_event_ids (workspace_id, id, received_at, seq) SELECT workspace_id, id, received_at, seq FROM feedback_events WHERE id = $1`, [id]);
        await db.query(
          `INSERT INTO feedback_signals (workspace_id, event_id, response_id, type, status, polarity, occurred_at) VALUES ($1, $2, $3, $4, 'counted', $5, now())`,
          [WS, id, rid, type, polarity],
        );
      };
      await signal('e1', 'd1', 'thumbs_up', 'positive', 'e2'); // replaced by e2
      await signal('e2', 'd1', 'thumbs_down', 'negative');
      await signal('e3', 'd2', 'thumbs_up', 'positive');
      await migrate(db);
      expect(await totalsOf(db)).toMatchObject({ control: { responses: 1, rated: 1, positive: 0 }, B: { responses: 1, rated: 1, positive: 1 } });
    });
  });
}

async function pgliteAt(migrations: ReturnType<typeof loadMigrations>): Promise<TestDatabase> {
  const db = await openPglite(undefined);
  await migrate(db, migrations);
  return { db, close: () => db.close().catch(() => undefined) };
}
