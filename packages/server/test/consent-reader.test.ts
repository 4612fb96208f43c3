import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlClient, SqlExecutor } from '../src/db/sql-client.js';
import { ConsentReader } from '../src/ingest/consent-reader.js';
import { changeConsent } from '../src/store/consent.js';
import { createWorkspace } from '../src/store/workspaces.js';
import { BACKENDS, type TestDatabase } from './harness.js';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`consent reads for ingest on ${backend.name}`, () => {
    let database: TestDatabase;
    let db: SqlClient;
    let ws: string;
    let other: string;
    beforeAll(async () => {
      database = await backend.open();
      db = database.db;
      ws = (await createWorkspace(db, { name: 'consent-reader' })).workspace.id;
      other = (await createWorkspace(db, { name: 'consent-reader-2' })).workspace.id;
      await changeConsent(db, ws, 'u1', { implicit: true });
      await changeConsent(db, ws, 'u2', { implicit: false });
      await changeConsent(db, other, 'u1', { implicit: false });
    });
    afterAll(() => database.close());

    it('answers concurrent reads with one statement per workspace, each with its own users', async () => {
      let statements = 0;
      const counting: SqlExecutor = { query: (text, params) => (statements++, db.query(text, params)), exec: (s) => db.exec(s) };
      const reader = new ConsentReader(counting);
      const [a, b, c, none] = await Promise.all([
        reader.read(ws, ['u1']),
        reader.read(ws, ['u2', 'u3']),
        reader.read(other, ['u1']),
        reader.read(ws, []),
      ]);
      expect(statements).toBe(2);
      expect([...a.keys()]).toEqual(['u1']);
      expect(a.get('u1')?.implicit).toBe(true);
      expect([...b.keys()]).toEqual(['u2']);
      expect(b.get('u2')?.implicit).toBe(false);
      expect(c.get('u1')?.implicit).toBe(false);
      expect(none.size).toBe(0);
    });

    it('never answers a read with consent older than a change made before it', async () => {
      const reader = new ConsentReader(db);
      expect((await reader.read(ws, ['u4'])).get('u4')).toBeUndefined();
      await changeConsent(db, ws, 'u4', { implicit: false });
      expect((await reader.read(ws, ['u4'])).get('u4')?.implicit).toBe(false);
    });

    it('fails every read of a gathering when the database does', async () => {
      const failing: SqlExecutor = { query: async () => Promise.reject(new Error('down')), exec: async () => undefined };
      const reader = new ConsentReader(failing);
      const results = await Promise.allSettled([reader.read(ws, ['u1']), reader.read(ws, ['u2'])]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    });
  });
}
