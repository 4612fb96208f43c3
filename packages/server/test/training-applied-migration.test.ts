/**
 * Migration 0017 upgrades a database with corrections batches in it: the events the old column
 * `applied_to_training` gave a batch become that batch's `training_applied_events` rows (kind
 * `corrections`), so the next corrections batch takes only the correction nobody used, while the
 * same events are still free for the other kinds.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../src/db/migrate.js';
import { openPglite } from '../src/db/pglite-client.js';
import { createTrainingBatch } from '../src/pipeline/training-batch-maker.js';
import { BACKENDS, openPostgresSchema, type TestDatabase } from './harness.js';

const VERSION = 17;
const dir = mkdtempSync(join(tmpdir(), 'feedloop-applied-migration-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A database migrated up to the schema before this one. */
async function openPrevious(name: string): Promise<TestDatabase> {
  const previous = loadMigrations().filter((m) => m.version < VERSION);
  if (name === 'pglite') {
    const db = await openPglite(undefined);
    await migrate(db, previous);
    return { db, close: () => db.close().catch(() => undefined) };
  }
  return openPostgresSchema(previous);
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`migration 0017, training_applied_events (${backend.name})`, () => {
    it('moves the old batches into the table; the next batch takes only the unused correction', async () => {
      const { db, close } = await openPrevious(backend.name);
      try {
        const ws = 'ws-migrated';
        await db.query(`INSERT INTO workspaces (id, name) VALUES ($1, $1)`, [ws]);
        await db.query(`INSERT INTO responses (workspace_id, id, query, answer, created_at) VALUES ($1, 'r1', 'q1?', 'a1', now()), ($1, 'r2', 'q2?', 'a2', now()), ($1, 'r3', 'q3?', 'a3', now())`, [ws]);
        const now = new Date().toISOString();
        for (const [id, response, batch] of [['c1', 'r1', 'tb_old'], ['c2', 'r2', 'tb_old'], ['c3', 'r3', null]] as const) {
          await db.query(
            `INSERT INTO feedback_events (workspace_id, id, response_id, type, source, user_id, payload, occurred_at, received_at, applied_to_training)
             VALUES ($1, $2, $3, 'correction', 'correction', 'u1', $4::jsonb, $5, $5, $6)`,
            [ws, id, response, JSON.stringify({ corrected: `fixed ${id}` }), now, batch],
          );
          await db.query(`INSERT INTO feedback_signals (workspace_id, event_id, response_id, type, status, occurred_at) VALUES ($1, $2, $3, 'correction', 'counted', $4)`, [ws, id, response, now]);
        }
        await db.query(`INSERT INTO training_batches (workspace_id, id, kind, format, event_count, row_count) VALUES ($1, 'tb_old', 'corrections', 'trl-dpo', 2, 2)`, [ws]);

        const report = await migrate(db);
        expect(report.applied.map((a) => a.version)).toContain(VERSION);
        const rows = await db.query<{ kind: string; event_id: string; batch_id: string }>(
          `SELECT kind, event_id, batch_id FROM training_applied_events WHERE workspace_id = $1 ORDER BY event_id`,
          [ws],
        );
        expect(rows).toEqual([
          { kind: 'corrections', event_id: 'c1', batch_id: 'tb_old' },
          { kind: 'corrections', event_id: 'c2', batch_id: 'tb_old' },
        ]);

        const next = await createTrainingBatch(db, { workspaceId: ws, kind: 'corrections', minEvents: 1, dir, stream: false });
        expect(next?.batch.eventCount).toBe(1);
        expect(readFileSync(next?.batch.file as string, 'utf8')).toBe(`${JSON.stringify({ prompt: 'q3?', chosen: 'fixed c3', rejected: 'a3', provenance: { trust: 'verified', verifiedEvents: 1, unverifiedEvents: 0 } })}\n`);
        const [c3] = await db.query<{ applied_to_training: string }>(`SELECT applied_to_training FROM feedback_events WHERE workspace_id = $1 AND id = 'c3'`, [ws]);
        expect(c3?.applied_to_training).toBe(next?.batch.id);
        // The corrections are still SFT examples: another kind, not used yet.
        const sft = await createTrainingBatch(db, { workspaceId: ws, kind: 'sft', minEvents: 1, dir, stream: false });
        expect(sft?.batch.eventCount).toBe(3);
        expect(sft?.batch.rowCount).toBe(3);
      } finally {
        await close();
      }
    }, 60_000);
  });
}
