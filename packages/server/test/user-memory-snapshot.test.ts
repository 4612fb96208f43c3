/**
 * The user memory snapshot (migration 0023, store/user-memory-window.ts) on both stores: every
 * read through it answers exactly what a full read of the log would (userMemory over
 * readMemoryEvents), whatever happened since the snapshot was written: new events (folded in
 * from the log, then written back), a vote replaced by a newer one, the window's limit sliding,
 * an older facts version; and erasure removes it. Two readers (two processes) share the table:
 * `warm` keeps decoded snapshots in its cache, `cold` keeps none; each read is named
 * `<warm source>/<cold source>`.
 */
import { MEMORY_FACTS_VERSION, memoryFromFacts, userMemory } from '@feedloop/core';
import { commentPhrasesOf } from '../src/nlp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eraseUser } from '../src/store/erasure.js';
import { readMemoryEvents } from '../src/store/user-memory.js';
import { MemoryFactsCache } from '../src/store/memory-facts-cache.js';
import { MemoryWindowReader, SNAPSHOT_REFRESH_EVENTS } from '../src/store/user-memory-window.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const TYPES = ['thumbs_down', 'edit', 'error_categories', 'thumbs_up', 'rating', 'correction', 'review'];

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`user memory snapshot on ${backend.name}`, () => {
    let t: TestApp;
    let n = 0;
    const post = (url: string, payload: object) => t.app.inject({ method: 'POST', url, headers: t.auth, payload });

    /** Registers `count` responses of the user and one event on each (a mix of every kind memory reads). */
    async function addEvents(userId: string, count: number): Promise<string[]> {
      const responses = [];
      const events = [];
      for (let i = 0; i < count; i++) {
        n += 1;
        const type = TYPES[n % TYPES.length] as string;
        const at = Date.now() - (count - i) * 3_600_000;
        responses.push({ id: `${userId}-r${n}`, query: `q${n}`, answer: `Hey! I think it is ${n} 🎉\n- one\n- two`, userId, queryType: n % 3 ? 'sql' : 'chat', createdAt: new Date(at - 60_000).toISOString() });
        const payload =
          type === 'edit' ? { edited: `It is ${n}.` }
          : type === 'correction' ? { corrected: `It is ${n}, formally.`, comment: 'wrong number again' }
          : type === 'error_categories' ? { categories: ['hallucination', 'missing_context'], comment: 'made up numbers again' }
          : type === 'rating' ? { rating: 1 + (n % 5), comment: 'too verbose' }
          : type === 'review' ? { verdict: n % 2 ? 'approved' : 'rejected', issues: ['missed_requirement'] }
          : {};
        events.push({ id: `${userId}-e${n}`, responseId: `${userId}-r${n}`, userId, type, payload, occurredAt: new Date(at).toISOString() });
      }
      const created = await post('/v1/responses/batch', { responses });
      expect(created.json().results.every((r: { status: string }) => r.status === 'created')).toBe(true);
      const accepted = await post('/v1/feedback/batch', { events });
      expect(accepted.json().results.every((r: { status: string }) => r.status === 'accepted')).toBe(true);
      return events.map((e) => e.id);
    }

    let warm: MemoryWindowReader;
    let cold: MemoryWindowReader;

    /** Both readers' windows against the full read of the log and the memories each gives; their sources. */
    async function both(userId: string, limit?: number) {
      const now = new Date();
      const windows = [await warm.read(t.workspaceId, userId, limit), await cold.read(t.workspaceId, userId, limit)];
      const events = await readMemoryEvents(t.db, t.workspaceId, userId, limit);
      for (const window of windows) {
        expect(window.facts.map((f) => f.id)).toEqual(events.map((e) => e.id));
        for (const halfLifeDays of [30, 1]) expect(memoryFromFacts(window.facts, now, { halfLifeDays })).toEqual(userMemory(events, now, { halfLifeDays, phrasesOf: commentPhrasesOf }));
      }
      return { source: windows.map((w) => w.source).join('/'), facts: windows[0]?.facts ?? [] };
    }

    const snapshotOf = async (userId: string) =>
      (await t.db.query<{ through_seq: string; event_count: number }>('SELECT through_seq::text, event_count FROM user_memory_snapshots WHERE workspace_id = $1 AND user_id = $2', [t.workspaceId, userId]))[0];

    beforeAll(async () => {
      t = await startTestApp(await backend.open());
      warm = new MemoryWindowReader(t.db);
      cold = new MemoryWindowReader(t.db, new MemoryFactsCache(0));
    });
    afterAll(async () => {
      await t?.close();
    });

    it('is written by the first read, then answers from itself and the events committed since', async () => {
      await addEvents('snap-a', 30);
      expect((await both('snap-a')).source).toBe('rebuilt/snapshot');
      const first = await snapshotOf('snap-a');
      expect(first?.event_count).toBe(30);
      expect((await both('snap-a')).source).toBe('cached/snapshot');
      // A few new events are folded in from the log without a write...
      await addEvents('snap-a', 3);
      expect((await both('snap-a')).source).toBe('cached/snapshot');
      expect(await snapshotOf('snap-a')).toEqual(first);
      // ...and enough of them are written back.
      await addEvents('snap-a', SNAPSHOT_REFRESH_EVENTS);
      expect((await both('snap-a')).source).toBe('refreshed/snapshot');
      expect((await snapshotOf('snap-a'))?.event_count).toBe(33 + SNAPSHOT_REFRESH_EVENTS);
      expect((await both('snap-a')).source).toBe('cached/snapshot');
    });

    it('is rebuilt when a vote it holds is replaced by a newer one', async () => {
      await addEvents('snap-b', 5);
      const now = Date.now();
      await post('/v1/responses', { id: 'snap-b-vote', query: 'q', answer: 'a', userId: 'snap-b', queryType: 'sql', createdAt: new Date(now - 120_000).toISOString() });
      await post('/v1/feedback', { id: 'snap-b-up', responseId: 'snap-b-vote', type: 'thumbs_up', userId: 'snap-b', occurredAt: new Date(now - 60_000).toISOString() });
      expect((await both('snap-b')).facts.map((f) => f.id)).toContain('snap-b-up');
      await post('/v1/feedback', { id: 'snap-b-down', responseId: 'snap-b-vote', type: 'thumbs_down', userId: 'snap-b', occurredAt: new Date(now - 20_000).toISOString() });
      const after = await both('snap-b');
      expect(after.source).toBe('rebuilt/snapshot');
      expect(after.facts.map((f) => f.id)).not.toContain('snap-b-up');
      // A late older vote arrives already replaced: nothing changes in the window.
      await post('/v1/feedback', { id: 'snap-b-late', responseId: 'snap-b-vote', type: 'thumbs_up', userId: 'snap-b', occurredAt: new Date(now - 40_000).toISOString() });
      expect((await both('snap-b')).source).toBe('cached/snapshot');
    });

    it('keeps the newest events of its limit as the window slides', async () => {
      await addEvents('snap-c', 12);
      expect((await both('snap-c', 8)).facts).toHaveLength(8);
      await addEvents('snap-c', 2);
      expect((await both('snap-c', 8)).source).toBe('cached/snapshot');
      await addEvents('snap-c', SNAPSHOT_REFRESH_EVENTS + 5);
      expect((await both('snap-c', 8)).source).toBe('refreshed/snapshot');
      await addEvents('snap-c', 1);
      expect((await both('snap-c', 8)).source).toBe('cached/snapshot');
    });

    it('is rebuilt when it was written by another facts version', async () => {
      await addEvents('snap-d', 4);
      await both('snap-d');
      await t.db.query('UPDATE user_memory_snapshots SET facts_version = $3 WHERE workspace_id = $1 AND user_id = $2', [t.workspaceId, 'snap-d', MEMORY_FACTS_VERSION + 1]);
      expect((await both('snap-d')).source).toBe('rebuilt/snapshot');
    });

    it('a cached copy is used only while it is the stored snapshot', async () => {
      await addEvents('snap-h', 6);
      expect((await both('snap-h')).source).toBe('rebuilt/snapshot');
      // Another process rebuilds it (same events, a new stamp): the cache reads the new one.
      await t.db.query('DELETE FROM user_memory_snapshots WHERE workspace_id = $1 AND user_id = $2', [t.workspaceId, 'snap-h']);
      expect((await cold.read(t.workspaceId, 'snap-h')).source).toBe('rebuilt');
      expect((await both('snap-h')).source).toBe('snapshot/snapshot');
      expect((await both('snap-h')).source).toBe('cached/snapshot');
    });

    it('the route answers from it exactly what the log says, explain ids included', async () => {
      await addEvents('snap-e', 40);
      const get = async () => (await t.app.inject({ method: 'GET', url: '/v1/users/snap-e/context?explain=true', headers: t.auth })).json();
      const first = await get();
      await addEvents('snap-e', 2);
      const second = await get();
      const events = await readMemoryEvents(t.db, t.workspaceId, 'snap-e');
      expect(second.eventsRead).toBe(42);
      expect(second.items.map((i: { eventIds: string[] }) => i.eventIds.length)).toEqual(userMemory(events, new Date(), { phrasesOf: commentPhrasesOf }).items.map((i) => i.eventIds.length));
      expect(second.text).toBe(userMemory(events, new Date(), { phrasesOf: commentPhrasesOf }).text);
      expect(first.eventsRead).toBe(40);
    });

    it('goes with an erased user, and with the users whose events on their responses went', async () => {
      await addEvents('snap-f', 3);
      await both('snap-f');
      await t.app.inject({ method: 'POST', url: '/v1/feedback', headers: t.auth, payload: { id: 'snap-g-e1', responseId: 'snap-f-r' + n, userId: 'snap-g', type: 'thumbs_up' } });
      await both('snap-g');
      expect(await snapshotOf('snap-g')).toBeDefined();
      const report = await eraseUser(t.db, t.workspaceId, 'snap-f', new Date(0));
      expect(report.user_memory_snapshots).toBe(2);
      expect(await snapshotOf('snap-f')).toBeUndefined();
      expect(await snapshotOf('snap-g')).toBeUndefined();
    });
  });
}
