/**
 * The key cache on a real database: requests that find an entry expired share one lookup, and a
 * revocation made in this process (`clear()`) is never undone by a lookup that started before it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlClient } from '../src/db/sql-client.js';
import { KeyCache } from '../src/http/key-cache.js';
import { createApiKey, revokeApiKey } from '../src/store/api-keys.js';
import { createWorkspace } from '../src/store/workspaces.js';
import { BACKENDS, type TestDatabase } from './harness.js';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`KeyCache on ${backend.name}`, () => {
    let t: TestDatabase;
    let queries = 0;
    let counted: SqlClient;
    let workspaceId: string;

    beforeAll(async () => {
      t = await backend.open();
      // The real database, its queries counted.
      counted = { ...t.db, query: (text, params) => (queries++, t.db.query(text, params)) };
      workspaceId = (await createWorkspace(t.db, { name: 'keys' })).workspace.id;
    });
    afterAll(async () => {
      await t.close();
    });

    it('concurrent requests with an unknown or expired entry share one lookup', async () => {
      const { key } = await createApiKey(t.db, workspaceId, 'secret');
      const keys = new KeyCache(counted, 60_000);
      queries = 0;
      const all = await Promise.all(Array.from({ length: 50 }, () => keys.resolve(key)));
      expect(queries).toBe(1);
      expect(new Set(all.map((a) => a?.workspaceId))).toEqual(new Set([workspaceId]));
      expect(await keys.resolve(key)).toMatchObject({ workspaceId, kind: 'secret' });
      expect(queries).toBe(1);
    });

    it('a revocation followed by clear() is seen at once, even with a lookup under way', async () => {
      const { key, info } = await createApiKey(t.db, workspaceId, 'public');
      const keys = new KeyCache(counted, 60_000);
      const before = keys.resolve(key);
      await revokeApiKey(t.db, workspaceId, info.id);
      keys.clear();
      // A request after the clear neither joins the older lookup nor finds its answer cached.
      expect(await keys.resolve(key)).toBeUndefined();
      await before;
      expect(await keys.resolve(key)).toBeUndefined();
    });
  });
}
