/**
 * A processing transaction that loses a deadlock (production: a rescore and processing locking the
 * same score marks) goes again whole: it is not split into one transaction an event, and no event
 * is set aside as failed for it. Both stores (the deadlock is simulated: PGlite has one connection).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlClient } from '../src/db/sql-client.js';
import { processIsolating } from '../src/pipeline/process-isolating.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const deadlock = (): Error => Object.assign(new Error('deadlock detected'), { code: '40P01' });

/** The database, its transactions counted, the first `failures` of them failing with a deadlock. */
function losingDeadlocks(db: SqlClient, failures: number): { db: SqlClient; transactions: () => number } {
  let calls = 0;
  const wrapped = new Proxy(db, {
    get(target, prop, receiver) {
      // Without the thread, so that each transaction goes through `transaction` here.
      if (prop === 'runInThread') return undefined;
      if (prop === 'transaction') {
        return (...args: Parameters<SqlClient['transaction']>) => {
          calls++;
          if (calls <= failures) return Promise.reject(deadlock());
          return target.transaction(...args);
        };
      }
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { db: wrapped, transactions: () => calls };
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`processIsolating on ${backend.name}`, () => {
    let t: TestApp;
    const applied: number[] = [];
    const options = { counters: { kind: 'outbox' as const }, stream: false, applyEffects: async (id: number) => void applied.push(id) };
    const statusOf = async (ids: string[]) =>
      (
        await t.db.query<{ event_id: string; status: string }>('SELECT event_id, status FROM feedback_signals WHERE workspace_id = $1 AND event_id = ANY($2::text[]) ORDER BY event_id', [
          t.workspaceId,
          ids,
        ])
      ).map((r) => [r.event_id, r.status]);
    const commit = async (ids: string[]) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/feedback/batch',
        headers: t.auth,
        payload: { events: ids.map((id) => ({ id, responseId: 'iso-r', type: 'thumbs_up', userId: `u-${id}` })) },
      });
      expect(res.statusCode).toBe(207);
    };

    beforeAll(async () => {
      // No worker: the committed events wait in the outbox for the calls below.
      t = await startTestApp(await backend.open());
      expect((await t.app.inject({ method: 'POST', url: '/v1/responses', headers: t.auth, payload: { id: 'iso-r', query: 'q', answer: 'a' } })).statusCode).toBeLessThan(300);
    });
    afterAll(async () => {
      await t.close();
    });

    it('runs a batch that lost deadlocks again whole, and counts every event', async () => {
      const ids = ['iso-a1', 'iso-a2', 'iso-a3'];
      await commit(ids);
      const { db, transactions } = losingDeadlocks(t.db, 2);
      const report = await processIsolating(db, ids.map((id) => [t.workspaceId, id]), options);
      expect(transactions()).toBe(3); // two lost, the third whole: not one transaction an event
      expect(report).toMatchObject({ claimed: 3, counted: 3, failed: 0 });
      expect(await statusOf(ids)).toEqual(ids.map((id) => [id, 'counted']));
    });

    it('rethrows a deadlock that keeps coming, leaving the events in the outbox rather than failed', async () => {
      const ids = ['iso-b1', 'iso-b2'];
      await commit(ids);
      const { db } = losingDeadlocks(t.db, Number.POSITIVE_INFINITY);
      await expect(processIsolating(db, ids.map((id) => [t.workspaceId, id]), options)).rejects.toThrow(/deadlock/);
      expect(await statusOf(ids)).toEqual([]);
      const pending = await t.db.query<{ event_id: string }>('SELECT event_id FROM pipeline_pending WHERE workspace_id = $1 AND event_id = ANY($2::text[]) ORDER BY event_id', [t.workspaceId, ids]);
      expect(pending.map((p) => p.event_id)).toEqual(ids);
    });
  });
}
