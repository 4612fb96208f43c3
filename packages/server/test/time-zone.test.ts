/**
 * Days are UTC whatever the database's own time zone: every connection runs in UTC, and the
 * rollup's day window is computed in UTC explicitly. Run on a Postgres database whose default
 * zone is Pacific/Kiritimati (UTC+14) and on a PGlite data folder configured the same way, with
 * events on both sides of midnight UTC: each must land on its own UTC day.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../src/db/migrate.js';
import { openPglite } from '../src/db/pglite-client.js';
import { openPostgres } from '../src/db/postgres-client.js';
import type { SqlClient } from '../src/db/sql-client.js';
import { rollupDirtyDays } from '../src/pipeline/rollup.js';
import { BACKENDS, POSTGRES_URL, startTestApp, withPgClient, type TestApp, type TestDatabase } from './harness.js';

/** Fourteen hours ahead of UTC: a day there starts at 10:00 UTC of the day before. */
const FAR_ZONE = 'Pacific/Kiritimati';
const MS_PER_DAY = 86_400_000;

/** A Postgres database of its own whose default time zone is {@link FAR_ZONE}. */
async function openFarZonePostgres(): Promise<TestDatabase> {
  const name = `fl_tz_${randomBytes(6).toString('hex')}`;
  await withPgClient(async (c) => {
    await c.query(`CREATE DATABASE ${name}`);
    await c.query(`ALTER DATABASE ${name} SET timezone = '${FAR_ZONE}'`);
  });
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  const db = await openPostgres(url.toString(), { max: 4 });
  await migrate(db);
  return {
    db,
    async close() {
      await db.close().catch(() => undefined);
      await withPgClient((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/** A PGlite data folder whose configured time zone is {@link FAR_ZONE}, opened again. */
async function openFarZonePglite(): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'fl-tz-'));
  const raw = await PGlite.create({ dataDir: dir });
  await raw.exec(`ALTER SYSTEM SET timezone = '${FAR_ZONE}'`);
  await raw.close();
  const db = await openPglite(dir);
  await migrate(db);
  return {
    db,
    async close() {
      await db.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const FAR_ZONE_DATABASES = [
  { name: 'pglite', available: true, open: openFarZonePglite },
  { name: 'postgres', available: BACKENDS.find((b) => b.name === 'postgres')?.available ?? false, open: openFarZonePostgres },
];

async function zoneOf(db: SqlClient): Promise<string | undefined> {
  const [row] = await db.query<{ TimeZone: string; timezone?: string }>('SHOW TimeZone');
  return row?.TimeZone ?? row?.timezone;
}

for (const backend of FAR_ZONE_DATABASES) {
  describe.skipIf(!backend.available)(`UTC days on ${backend.name} with a ${FAR_ZONE} default`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(await backend.open());
    });
    afterAll(() => t?.close());

    it('runs every connection in UTC, in and out of transactions', async () => {
      // Several at once, so a pool opens several connections.
      const zones = await Promise.all([
        ...Array.from({ length: 4 }, () => zoneOf(t.db)),
        ...Array.from({ length: 4 }, () => t.db.transaction(async (tx) => (await tx.query<{ TimeZone: string }>('SHOW TimeZone'))[0]?.TimeZone)),
      ]);
      expect(zones).toEqual(Array.from({ length: 8 }, () => 'UTC'));
    });

    it('rolls up events on either side of midnight UTC onto their own UTC day', async () => {
      // Two days ago at midnight UTC: both events lie in the past, whatever the time now.
      const midnight = Math.floor(Date.now() / MS_PER_DAY) * MS_PER_DAY - MS_PER_DAY;
      const before = new Date(midnight - 30 * 60_000);
      const after = new Date(midnight + 30 * 60_000);
      const dayOf = (d: Date) => d.toISOString().slice(0, 10);
      const post = (url: string, payload: object) => t.app.inject({ method: 'POST', url, headers: t.auth, payload });

      expect((await post('/v1/responses', { id: 'tz-r1', query: 'q', answer: 'a', createdAt: new Date(midnight - 2 * 3_600_000).toISOString() })).statusCode).toBe(201);
      const sent = await post('/v1/feedback/batch', {
        events: [
          { id: 'tz-e1', responseId: 'tz-r1', type: 'thumbs_up', userId: 'u1', occurredAt: before.toISOString() },
          { id: 'tz-e2', responseId: 'tz-r1', type: 'thumbs_down', userId: 'u2', occurredAt: after.toISOString() },
          { id: 'tz-e3', responseId: 'tz-r1', type: 'thumbs_down', userId: 'u3', occurredAt: after.toISOString() },
        ],
      });
      expect(sent.json().results.map((r: { status: string; error?: unknown }) => r.error ?? r.status)).toEqual(['accepted', 'accepted', 'accepted']);
      await t.services.pipeline.process([
        [t.workspaceId, 'tz-e1'],
        [t.workspaceId, 'tz-e2'],
        [t.workspaceId, 'tz-e3'],
      ]);
      const days = await rollupDirtyDays(t.db);
      expect(days.map((d) => d.day).sort()).toEqual([dayOf(before), dayOf(after)]);

      const rows = await t.db.query<{ day: string; total_events: number; positive_ratings: number; negative_ratings: number }>(
        `SELECT to_char(day, 'YYYY-MM-DD') AS day, total_events, positive_ratings, negative_ratings FROM feedback_metrics_daily
          WHERE workspace_id = $1 AND dimension = 'all' ORDER BY day`,
        [t.workspaceId],
      );
      expect(rows).toEqual([
        { day: dayOf(before), total_events: 1, positive_ratings: 1, negative_ratings: 0 },
        { day: dayOf(after), total_events: 2, positive_ratings: 0, negative_ratings: 2 },
      ]);
    });
  });
}
