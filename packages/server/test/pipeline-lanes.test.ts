/**
 * The processing lane (pipeline-jobs.ts, `PROCESS_QUEUE`): `process` jobs have worker slots of
 * their own, so an upkeep job that holds its slot for long (a busy day's rollup, the rescore loop,
 * a webhook delivery waiting for its endpoint) never delays processing. Production: with one slot
 * a queue, a rollup held on its lock must not keep committed events out of the live counters; on
 * one shared queue it did. Embedded (issue 21), one in-memory queue keeps a slot for `process` jobs
 * (memory-queue.ts, `urgentJobs`): webhook deliveries that hang must not hold them back.
 */
import pg from 'pg';
import { utcDay } from '@feedloop/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhook } from '../src/store/webhooks.js';
import { BACKENDS, POSTGRES_URL, REDIS_URL, redisUp, startTestApp, type TestApp } from './harness.js';
import { SECRET, startReceiver } from './webhook-helpers.js';

const postgres = BACKENDS.find((b) => b.name === 'postgres');

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!postgres?.available || !redisUp)('pipeline in production: the processing lane', () => {
  let t: TestApp;
  /** Holds the rollup's advisory lock on today, so that the rollup job waits in its slot. */
  let holder: pg.Client;

  beforeAll(async () => {
    if (!postgres) return;
    t = await startTestApp(
      await postgres.open(),
      { REDIS_URL, FEEDLOOP_WORKER_CONCURRENCY: '1', FEEDLOOP_ROLLUP_INTERVAL_SECONDS: '0.2', FEEDLOOP_SWEEP_INTERVAL_SECONDS: '0.2' },
      { worker: true },
    );
    holder = new pg.Client({ connectionString: POSTGRES_URL });
    await holder.connect();
  });
  afterAll(async () => {
    await holder?.end().catch(() => undefined);
    await t?.close();
  });

  const liveTotal = async (): Promise<number> => (await t.app.inject({ method: 'GET', url: '/v1/stats/live', headers: t.auth })).json().total ?? 0;
  const send = async (ids: string[]): Promise<void> => {
    const events = ids.map((id, i) => ({ id, responseId: 'lane-r', userId: `u-${id}`, type: i % 2 ? 'thumbs_up' : 'rating', ...(i % 2 ? {} : { payload: { rating: 4 } }) }));
    const res = await t.app.inject({ method: 'POST', url: '/v1/feedback/batch', headers: t.auth, payload: { events } });
    expect(res.statusCode).toBe(207);
    expect(res.json().results.filter((r: { status: string }) => r.status !== 'accepted')).toEqual([]);
  };

  it('processes committed events while the only upkeep slot is held by a rollup waiting on its lock', async () => {
    const day = utcDay(new Date());
    const key = [t.workspaceId, day];
    const reg = await t.app.inject({ method: 'POST', url: '/v1/responses', headers: t.auth, payload: { id: 'lane-r', query: 'q', answer: 'a' } });
    expect(reg.statusCode).toBeLessThan(300);
    await holder.query('BEGIN');
    await holder.query("SELECT pg_advisory_xact_lock(hashtext('feedloop.rollup'), hashtext($1 || '/' || $2))", key);

    // The first event marks today dirty; the scheduled rollup takes the upkeep slot and waits.
    await send(['lane-e0']);
    await until('the first event counted', async () => ((await liveTotal()) >= 1 ? true : undefined));
    const rollupWaits = async (): Promise<boolean> =>
      (
        await holder.query(
          `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
              AND classid = hashtext('feedloop.rollup')::oid AND objid = hashtext($1 || '/' || $2)::oid`,
          key,
        )
      ).rowCount === 1;
    await until('the rollup waiting on its lock', async () => ((await rollupWaits()) ? true : undefined));

    const ids = Array.from({ length: 20 }, (_, i) => `lane-e${i + 1}`);
    await send(ids);
    await until('the events processed past the waiting rollup', async () => ((await liveTotal()) >= 21 ? true : undefined), 10_000);
    expect(await liveTotal()).toBe(21);
    expect(await rollupWaits()).toBe(true); // still holding its slot: processing did not wait for it

    await holder.query('COMMIT');
    await until('the rollup written', async () => {
      const rows = await t.db.query('SELECT 1 FROM feedback_metrics_daily WHERE workspace_id = $1 AND day = $2::date', key);
      return rows.length > 0 ? true : undefined;
    });
  });
});

describe('embedded pipeline: a slot kept for processing', () => {
  let t: TestApp;
  const pglite = BACKENDS.find((b) => b.name === 'pglite');

  beforeAll(async () => {
    if (!pglite) throw new Error('the embedded backend is always there');
    t = await startTestApp(await pglite.open(), { FEEDLOOP_WORKER_CONCURRENCY: '2', FEEDLOOP_WEBHOOK_ALLOW_PRIVATE: 'true' }, { worker: true });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('keeps a slot for processing while webhook deliveries wait for their endpoint', async () => {
    // The endpoint never answers: a delivery holds its slot for its 10 s timeout.
    const receiver = await startReceiver(() => 'hang');
    await createWebhook(t.db, t.workspaceId, { url: receiver.url, events: ['feedback.submitted'], secret: SECRET });
    const reg = await t.app.inject({ method: 'POST', url: '/v1/responses', headers: t.auth, payload: { id: 'lane-r', query: 'q', answer: 'a' } });
    expect(reg.statusCode).toBeLessThan(300);
    const liveTotal = async (): Promise<number> => (await t.app.inject({ method: 'GET', url: '/v1/stats/live', headers: t.auth })).json().total ?? 0;
    const send = async (id: string) => expect((await t.app.inject({ method: 'POST', url: '/v1/feedback', headers: t.auth, payload: { id, responseId: 'lane-r', userId: `u-${id}`, type: 'thumbs_up' } })).statusCode).toBe(202);

    await send('lane-e0');
    await until('the first delivery hanging on its endpoint', async () => (receiver.requests.length > 0 ? true : undefined));
    await send('lane-e1');
    await until('the second event counted', async () => ((await liveTotal()) >= 2 ? true : undefined));
    // Its delivery would take the second slot if nothing kept it: give it the time to.
    await new Promise((r) => setTimeout(r, 500));
    for (let i = 2; i <= 21; i++) await send(`lane-e${i}`);
    // With both slots held by deliveries, the process jobs waited their 10 s behind them.
    await until('the events processed past the hanging deliveries', async () => ((await liveTotal()) >= 22 ? true : undefined), 5_000);
    expect(await liveTotal()).toBe(22);
    expect(receiver.requests).toHaveLength(1); // the second delivery waits: upkeep takes one slot of two
  });
});

