/**
 * The embedded database's lanes (db/pglite-thread.ts, issue 22): on PGlite's one connection a
 * heavy read's statement (`db.heavyReads()`) waits while a request's statement waits, is not
 * counted as a request in `inFlight`, and is not starved by a steady stream of requests. Issue 21:
 * the processing of events goes before upkeep, and a chain of background transactions run in the
 * database's thread lets requests in between its transactions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite } from '../src/db/pglite-client.js';
import { heavyReadClient, type SqlClient } from '../src/db/sql-client.js';
import { BACKGROUND_CHAIN_MODULE } from './background-chain.js';

describe('PGlite lanes', () => {
  let db: SqlClient;

  beforeAll(async () => {
    db = await openPglite(undefined);
  });
  afterAll(async () => {
    await db.close();
  });

  it("a request's statement goes before a heavy read's that was sent first", async () => {
    const order: string[] = [];
    // The connection is busy: both statements below arrive while it sleeps and wait.
    const busy = db.query('SELECT pg_sleep(0.3)').then(() => order.push('busy'));
    await new Promise((r) => setTimeout(r, 50));
    const heavy = heavyReadClient(db)
      .query<{ lane: string }>("SELECT 'heavy' AS lane")
      .then((rows) => order.push(rows[0]?.lane ?? '?'));
    const request = db.query<{ lane: string }>("SELECT 'request' AS lane").then((rows) => order.push(rows[0]?.lane ?? '?'));
    // The heavy read's statement is not a request waiting (the pipeline's batch sizer reads this).
    expect(db.inFlight?.()).toBe(2);
    await Promise.all([busy, heavy, request]);
    expect(order).toEqual(['busy', 'request', 'heavy']);
  });

  it("a heavy read's statement still runs under a steady stream of requests' statements", async () => {
    let stop = false;
    let requests = 0;
    const stream = async (): Promise<void> => {
      while (!stop) {
        await db.query('SELECT 1');
        requests++;
      }
    };
    // Four callers: one of them always waits, so the request lane is never empty.
    const streams = Array.from({ length: 4 }, stream);
    await new Promise((r) => setTimeout(r, 50));
    const before = requests;
    const rows = await heavyReadClient(db).query<{ n: number }>('SELECT count(*)::int AS n FROM generate_series(1, 1000)');
    const during = requests - before;
    stop = true;
    await Promise.all(streams);
    expect(rows).toEqual([{ n: 1000 }]);
    // It ran while the requests kept coming (they did not all have to end first).
    expect(during).toBeGreaterThan(0);
  });

  it('a transaction of a heavy read commits like any other', async () => {
    const heavy = heavyReadClient(db);
    await heavy.query('CREATE TEMP TABLE lane_t (n int)');
    await heavy.transaction(async (tx) => {
      await tx.query('INSERT INTO lane_t VALUES (1), (2)');
    });
    expect(await db.query('SELECT sum(n)::int AS s FROM lane_t')).toEqual([{ s: 3 }]);
  });

  it('processing goes before upkeep that waited longer', async () => {
    const order: string[] = [];
    const busy = db.query('SELECT pg_sleep(0.2)').then(() => order.push('busy'));
    await new Promise((r) => setTimeout(r, 30));
    const upkeep = db.transaction((tx) => tx.query('SELECT 1'), { background: true }).then(() => order.push('upkeep'));
    await new Promise((r) => setTimeout(r, 30));
    const processing = db.transaction((tx) => tx.query('SELECT 1'), { background: true, processing: true }).then(() => order.push('processing'));
    await Promise.all([busy, upkeep, processing]);
    expect(order).toEqual(['busy', 'processing', 'upkeep']);
  });

  it("lets a request in between the transactions of a background chain run in the database's thread", async () => {
    // Six transactions of 80 ms back to back, chained by promises in the thread: the request's
    // statement, sent meanwhile, used to sit unread in the thread's port until the last one ended.
    const chain = db.runInThread?.<number[]>(BACKGROUND_CHAIN_MODULE, 'backgroundChain', [6, 0.08]);
    if (!chain) throw new Error('the embedded client runs functions in its thread');
    await new Promise((r) => setTimeout(r, 40));
    await db.query('SELECT 1');
    const answered = Date.now();
    const ends = await chain;
    expect(ends).toHaveLength(6);
    expect(answered).toBeLessThan(ends[3] as number);
  });
});
