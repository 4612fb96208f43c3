/**
 * The sweep's read of the outbox past the events this process holds (pipeline/held-events.ts), on
 * a real PGlite: held rows are left out, and a sweep within its grace of a whole read (the
 * start-up pickup) reads nothing, since each row it would find was in that read. A read cut by
 * its limit is not whole, and once the grace has passed the rows are read again: a row is only
 * ever deferred, never lost.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SqlClient } from '../src/db/sql-client.js';
import { HeldEvents } from '../src/pipeline/held-events.js';
import { BACKENDS } from './harness.js';

const GRACE_MS = 10_000;
const pglite = BACKENDS.find((b) => b.name === 'pglite');

describe('HeldEvents on PGlite', () => {
  let db: SqlClient;
  let close: () => Promise<void>;

  beforeAll(async () => {
    if (!pglite) throw new Error('no pglite backend in the harness');
    ({ db, close } = await pglite.open());
  });
  afterAll(() => close());
  afterEach(async () => {
    vi.useRealTimers();
    await db.query('DELETE FROM pipeline_pending');
  });

  /** Outbox rows committed about a minute ago (older than the grace), a millisecond apart in `ids`' order. */
  const oldRows = (ids: string[]) =>
    db.query(
      `INSERT INTO pipeline_pending (workspace_id, event_id, created_at, seq, received_at)
       SELECT 'ws_h', id, now() - interval '1 minute' + n * interval '1 millisecond', n, now() FROM unnest($1::text[]) WITH ORDINALITY AS x(id, n)`,
      [ids],
    );

  it('leaves held rows out, and reads past them', async () => {
    await oldRows(['a', 'b', 'c']);
    const held = new HeldEvents(true);
    held.add([['ws_h', 'a'], ['ws_h', 'b']]);
    // A limit of 1 still finds c behind the two held rows.
    expect(await held.stale(db, GRACE_MS, 1)).toEqual([['ws_h', 'c']]);
    held.release([['ws_h', 'a']]);
    expect(await held.stale(db, GRACE_MS, 10)).toEqual([['ws_h', 'a'], ['ws_h', 'c']]);
  });

  it('after a whole read, defers the sweep until its grace has passed', async () => {
    await oldRows(['a', 'b']);
    const held = new HeldEvents(true);
    const taken = await held.stale(db, 0, 10);
    expect(taken).toHaveLength(2);
    held.add(taken);
    // Job of a ended without processing it (its row stays): within the grace the sweep does not read.
    held.release([['ws_h', 'a']]);
    expect(await held.stale(db, GRACE_MS, 10)).toEqual([]);
    // Once the grace has passed since the whole read, the sweep reads again and finds a.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + GRACE_MS + 1);
    expect(await held.stale(db, GRACE_MS, 10)).toEqual([['ws_h', 'a']]);
  });

  it('a read cut by its limit is not whole: the next sweep reads on', async () => {
    await oldRows(['a', 'b', 'c']);
    const held = new HeldEvents(true);
    const taken = await held.stale(db, 0, 2);
    expect(taken).toHaveLength(2);
    held.add(taken);
    expect(await held.stale(db, GRACE_MS, 10)).toHaveLength(1);
  });

  it('a sweep without grace always reads', async () => {
    await oldRows(['a']);
    const held = new HeldEvents(true);
    expect(await held.stale(db, 0, 10)).toEqual([['ws_h', 'a']]);
    expect(await held.stale(db, 0, 10)).toEqual([['ws_h', 'a']]);
  });
});
