/**
 * The embedded database written to one file and opened again from it (`PgliteClient.dumpTo`,
 * `openPglite(undefined, _, { loadDataDir })`): what the test harness's migrated template is made
 * of. The copy holds the rows, sequences and settings of the original, and is independent of it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPglite } from '../src/db/pglite-client.js';

describe('PGlite dump and load', () => {
  const dir = mkdtempSync(join(tmpdir(), 'feedloop-dump-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('opens a copy with the rows and sequence of the dumped database, and leaves the original alone', async () => {
    const original = await openPglite(undefined);
    await original.exec('CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL)');
    await original.query('INSERT INTO notes (body) VALUES ($1), ($2)', ['first', 'second']);
    const file = join(dir, 'db.tar');
    await original.dumpTo(file);

    const copy = await openPglite(undefined, undefined, { loadDataDir: file });
    try {
      expect(await copy.query('SELECT id, body FROM notes ORDER BY id')).toEqual([
        { id: 1, body: 'first' },
        { id: 2, body: 'second' },
      ]);
      // The sequence came along: no duplicate key. A copy starts as after a crash, so the sequence
      // goes on from the value it last logged (Postgres logs 32 ahead), not from 3.
      const [next] = await copy.query<{ id: number }>("INSERT INTO notes (body) VALUES ('third') RETURNING id");
      expect(next?.id).toBeGreaterThan(2);
      // Days are UTC days in a copy too (pglite-thread.ts sets it on every open).
      expect(await copy.query('SHOW TimeZone')).toEqual([{ TimeZone: 'UTC' }]);
      expect(await original.query('SELECT count(*)::int AS n FROM notes')).toEqual([{ n: 2 }]);
    } finally {
      await copy.close();
      await original.close();
    }
  });

  it('refuses to start from a dump file that is not there, with the reason', async () => {
    await expect(openPglite(undefined, undefined, { loadDataDir: join(dir, 'missing.tar') })).rejects.toThrow(/ENOENT|no such file/);
  });
});
