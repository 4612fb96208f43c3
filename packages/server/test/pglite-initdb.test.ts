/**
 * A new embedded data folder survives a start killed while creating it: the process and its
 * initdb child are SIGKILLed once the database files exist but before creation and migrations
 * finish, and the next start builds a complete, migrated database.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMigrations } from '../src/db/migrate.js';
import { openPglite } from '../src/db/pglite-client.js';
import { ensurePgliteDataDir } from '../src/db/pglite-initdb.js';
import { REPO_ROOT } from './process-helpers.js';

const root = mkdtempSync(join(tmpdir(), 'feedloop-initdb-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Any folder under `dir` that holds `PG_VERSION`: initdb has started writing the database there. */
const databaseStarted = (dir: string): boolean => readdirSync(dir).some((name) => existsSync(join(dir, name, 'PG_VERSION')));

describe('creating the embedded data folder', () => {
  it('builds a complete database after a start killed half-way through creating it', async () => {
    const dataDir = join(root, 'killed', 'pgdata');
    mkdirSync(join(root, 'killed'));
    const script = `import { ensurePgliteDataDir } from ${JSON.stringify(join(REPO_ROOT, 'packages/server/src/db/pglite-initdb.ts'))};
await ensurePgliteDataDir(${JSON.stringify(dataDir)});`;
    // Its own process group, so the initdb child dies with it, as under a supervisor's kill.
    const starter = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: REPO_ROOT, detached: true, stdio: 'ignore' });
    const deadline = Date.now() + 120_000;
    while (!databaseStarted(join(root, 'killed'))) {
      if (Date.now() > deadline || starter.exitCode !== null) throw new Error('initdb never started writing the database');
      await new Promise((r) => setTimeout(r, 20));
    }
    process.kill(-starter.pid!, 'SIGKILL');
    await new Promise((r) => starter.once('exit', r));

    const applied = await ensurePgliteDataDir(dataDir);
    expect(applied.length).toBe(loadMigrations().length);
    const db = await openPglite(dataDir);
    try {
      const rows = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM feedloop_migrations');
      expect(rows[0]?.n).toBe(loadMigrations().length);
    } finally {
      await db.close();
    }
    // Only the finished folder is left: the interrupted start's staging folder is gone.
    expect(readdirSync(join(root, 'killed'))).toEqual(['pgdata']);
  }, 300_000);

  it('refuses a folder that is not empty and holds no database, and leaves it as it is', async () => {
    const dataDir = join(root, 'foreign');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'notes.txt'), 'mine');
    await expect(ensurePgliteDataDir(dataDir)).rejects.toMatchObject({ code: 'FEEDLOOP_ERR_INTERNAL', message: expect.stringContaining('not empty') });
    expect(readdirSync(dataDir)).toEqual(['notes.txt']);
  });
});
