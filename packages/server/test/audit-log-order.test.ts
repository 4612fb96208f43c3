import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlClient } from '../src/db/sql-client.js';
import { appendAudit, listAudit } from '../src/store/audit-log.js';
import { createWorkspace } from '../src/store/workspaces.js';
import { BACKENDS, type TestDatabase } from './harness.js';

// Issue 24: ids were compared as text once they passed 9 ('10' < '9'), so "newest first" was
// wrong and paging skipped entries. The privacy trail must be complete and in order.
for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`audit log order on ${backend.name}`, () => {
    let database: TestDatabase;
    let db: SqlClient;
    let ws: string;
    beforeAll(async () => {
      database = await backend.open();
      db = database.db;
      ws = (await createWorkspace(db, { name: 'audit-order' })).workspace.id;
      for (let i = 1; i <= 14; i++) {
        await appendAudit(db, { workspaceId: ws, action: i === 12 ? 'retention.archived' : 'settings.changed', details: { n: i } });
      }
    });
    afterAll(async () => {
      await database.close();
    });

    it('lists 14 entries newest first by their numeric id', async () => {
      const { entries, nextCursor } = await listAudit(db, ws, { limit: 100 });
      expect(nextCursor).toBeNull();
      expect(entries.map((e) => (e.details as { n: number }).n)).toEqual([14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
      const ids = entries.map((e) => Number(e.id));
      expect([...ids].sort((a, b) => b - a)).toEqual(ids);
    });

    it('pages two at a time through every entry, none skipped or repeated', async () => {
      const seen: number[] = [];
      let before: string | undefined;
      for (let pages = 0; pages < 20; pages++) {
        const page = await listAudit(db, ws, { limit: 2, ...(before ? { before } : {}) });
        seen.push(...page.entries.map((e) => (e.details as { n: number }).n));
        if (!page.nextCursor) break;
        before = page.nextCursor;
      }
      expect(seen).toEqual([14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    });

    it('filters by action without losing the order', async () => {
      const { entries } = await listAudit(db, ws, { limit: 10, action: 'retention.archived' });
      expect(entries.map((e) => (e.details as { n: number }).n)).toEqual([12]);
    });
  });
}
