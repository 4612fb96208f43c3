/**
 * Plain numbered SQL migrations (`migrations/0001_name.sql`), applied in order, each once, in one
 * transaction under an advisory lock so that several processes starting together apply them once.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { SqlClient } from './sql-client.js';

/** The folder that ships the migrations, next to `dist/` and `src/`. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));

/** An arbitrary constant that names feedloop's migration lock among advisory locks. */
const MIGRATION_LOCK_KEY = 7_263_501_889;

/** A migration file. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** What a run did. */
export interface MigrationReport {
  applied: Array<{ version: number; name: string }>;
  current: number;
}

/**
 * Reads the migration files of a folder, ordered by version.
 *
 * @example
 * loadMigrations() // [{ version: 1, name: 'init', sql: 'CREATE TABLE ...' }]
 */
export function loadMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .map((file) => /^(\d+)_([\w-]+)\.sql$/.exec(file))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ version: Number(m[1]), name: m[2] ?? '', sql: readFileSync(`${dir}/${m[0]}`, 'utf8') }))
    .sort((a, b) => a.version - b.version);
}

/**
 * Applies the migrations the database has not seen yet and reports them.
 *
 * @example
 * const { applied } = await migrate(db); // [{ version: 1, name: 'init' }] on a new database
 */
export async function migrate(db: SqlClient, migrations: Migration[] = loadMigrations()): Promise<MigrationReport> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await tx.exec(
      'CREATE TABLE IF NOT EXISTS feedloop_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set(
      (await tx.query<{ version: number }>('SELECT version FROM feedloop_migrations')).map((r) => r.version),
    );
    const applied: MigrationReport['applied'] = [];
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await tx.exec(m.sql);
      await tx.query('INSERT INTO feedloop_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push({ version: m.version, name: m.name });
    }
    const current = Math.max(0, ...done, ...applied.map((a) => a.version));
    return { applied, current };
  });
}

/**
 * Migrates `db` and reports, before what this call applied, the migrations applied when its
 * embedded folder was created (`appliedAtCreation`: a new PGlite folder is migrated in the child
 * that creates it, see pglite-initdb.ts), so `feedloop migrate` and the start-up log still say
 * what a first start did.
 *
 * @example
 * const { applied } = await migrateOpened(await openDatabase(config));
 */
export async function migrateOpened(db: SqlClient & { appliedAtCreation?: MigrationReport['applied'] }): Promise<MigrationReport> {
  const report = await migrate(db);
  const created = db.appliedAtCreation ?? [];
  return created.length === 0 ? report : { ...report, applied: [...created, ...report.applied] };
}
