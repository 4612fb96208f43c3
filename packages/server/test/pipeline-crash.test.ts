/**
 * A processing transaction that dies after its claim loses nothing, on both stores: the claim (the
 * outbox rows' delete) and every effect commit together or not at all, so the events stay pending
 * and the next transaction processes each of them once. On PGlite the claim is the exclusive one
 * (no lock probe) and the list tags are written from what it read (only what changes): the tags
 * must still equal what the counted signals derive.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlClient, SqlExecutor } from '../src/db/sql-client.js';
import { processEvents } from '../src/pipeline/process-events.js';
import { derivedTags } from '../src/store/response-list-tags.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

/** `db`, whose transactions throw at the first statement whose text contains `at` (a crash mid-batch). */
function crashingAt(db: SqlClient, at: string): SqlClient {
  const crashing = (tx: SqlExecutor): SqlExecutor => ({
    query: (text, params, options) => (text.includes(at) ? Promise.reject(new Error(`crash at ${at}`)) : tx.query(text, params, options)),
    exec: (script) => tx.exec(script),
  });
  return {
    dialect: db.dialect,
    query: (text, params, options) => db.query(text, params, options),
    exec: (script) => db.exec(script),
    transaction: (fn, options) => db.transaction((tx) => fn(crashing(tx)), options),
    close: () => db.close(),
  };
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`a crash mid-batch on ${backend.name}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(await backend.open());
    });
    afterAll(async () => {
      await t?.close();
    });

    const pending = async (ids: readonly string[]) =>
      (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM pipeline_pending WHERE workspace_id = $1 AND event_id = ANY($2::text[])', [t.workspaceId, ids]))[0]?.n;
    const signals = async (ids: readonly string[]) =>
      (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM feedback_signals WHERE workspace_id = $1 AND event_id = ANY($2::text[])', [t.workspaceId, ids]))[0]?.n;
    const tagLines = async () =>
      (
        await t.db.query<{ line: string }>('SELECT response_id || \' \' || tag AS line FROM response_list_tags WHERE workspace_id = $1 ORDER BY 1', [t.workspaceId])
      ).map((r) => r.line);

    it('keeps every claimed event pending when the transaction dies after its claim, and processes each once after', async () => {
      const responses = ['cr-r1', 'cr-r2', 'cr-r3', 'cr-r4'];
      for (const id of responses) {
        expect((await t.app.inject({ method: 'POST', url: '/v1/responses', headers: t.auth, payload: { id, query: `q ${id}`, answer: `a ${id}` } })).statusCode).toBe(201);
      }
      // Several events a response in one batch: votes both ways and categories, so tags are added,
      // already there, and `unrated` is taken away (cr-r4 gets none: it stays unrated).
      const events = Array.from({ length: 24 }, (_, i) => {
        const responseId = responses[i % 3] as string;
        if (i % 4 === 0) return { id: `cr-e${i}`, responseId, type: 'error_categories', userId: `u${i}`, payload: { categories: [i % 8 === 0 ? 'hallucination' : 'wrong_context'] } };
        return { id: `cr-e${i}`, responseId, type: i % 3 === 1 ? 'thumbs_down' : 'thumbs_up', userId: `u${i}` };
      });
      const ids = events.map((e) => e.id);
      const sent = await t.app.inject({ method: 'POST', url: '/v1/feedback/batch', headers: t.auth, payload: { events } });
      expect(sent.json().results.map((r: { status: string }) => r.status)).toEqual(ids.map(() => 'accepted'));
      const keys = ids.map((id): [string, string] => [t.workspaceId, id]);
      const tagsBefore = await tagLines();

      // Dies after the claim and the signal rows, at the tags; then again at the rescore marks.
      for (const at of ['INSERT INTO response_list_tags', 'INSERT INTO score_dirty']) {
        await expect(processEvents(crashingAt(t.db, at), keys, { counters: { kind: 'outbox' }, stream: false })).rejects.toThrow(`crash at ${at}`);
        expect(await pending(ids)).toBe(ids.length);
        expect(await signals(ids)).toBe(0);
        expect(await tagLines()).toEqual(tagsBefore);
      }

      const report = await processEvents(t.db, keys, { counters: { kind: 'outbox' }, stream: false });
      expect(report.claimed).toBe(ids.length);
      expect(report.counted).toBe(ids.length);
      expect(await pending(ids)).toBe(0);
      expect(await signals(ids)).toBe(ids.length);
      const tags = await tagLines();
      expect(tags).toEqual(await derivedTags(t.db, t.workspaceId));
      expect(tags).toEqual(
        expect.arrayContaining(['cr-r1 rating:positive', 'cr-r1 category:hallucination', 'cr-r2 rating:negative', 'cr-r2 category:wrong_context', 'cr-r4 unrated']),
      );
      expect(tags.filter((l) => l.startsWith('cr-r1 ') || l.startsWith('cr-r2 ') || l.startsWith('cr-r3 ')).some((l) => l.endsWith(' unrated'))).toBe(false);

      // Replayed: nothing left to claim, nothing counted twice.
      const again = await processEvents(t.db, keys, { counters: { kind: 'outbox' }, stream: false });
      expect(again.claimed).toBe(0);
      expect(await signals(ids)).toBe(ids.length);
    });
  });
}
