import { describe, expect, it } from 'vitest';
import { BatchSizer, EMBEDDED_IDLE_TRANSACTION_MS, EMBEDDED_TRANSACTION_MS, batchSizerFor } from '../src/pipeline/batch-sizer.js';

describe('BatchSizer', () => {
  it('aims the next transaction at the target duration from the last one', () => {
    const sizer = new BatchSizer({ initial: 10, max: 1_000, targetMs: 10 });
    expect(sizer.size).toBe(10);
    sizer.record(10, 5); // 0.5 ms an item
    expect(sizer.size).toBe(20);
    sizer.record(20, 40); // 2 ms an item: smoothed with the last, 1.25 ms
    expect(sizer.size).toBe(8);
  });

  it('stays within 1 and max, and ignores empty or unmeasured rounds', () => {
    const sizer = new BatchSizer({ initial: 10, max: 50, targetMs: 10 });
    sizer.record(10, 0.001);
    expect(sizer.size).toBe(50);
    const slow = new BatchSizer({ initial: 10, max: 50, targetMs: 10 });
    slow.record(10, 10_000);
    expect(slow.size).toBe(1);
    slow.record(0, 5);
    slow.record(5, 0);
    expect(slow.size).toBe(1);
  });

  it('keeps a fixed size without a target (Postgres) and adapts on PGlite', () => {
    const pg = batchSizerFor({ dialect: 'postgres' }, 1_000);
    pg.record(1_000, 5_000);
    expect(pg.size).toBe(1_000);
    const lite = batchSizerFor({ dialect: 'pglite' }, 1_000);
    expect(lite.size).toBeLessThan(1_000);
    lite.record(lite.size, lite.size * 0.1);
    expect(lite.size).toBe(EMBEDDED_TRANSACTION_MS / 0.1);
  });

  it('on PGlite takes long transactions while the connection is free and short ones while others want it', () => {
    let inFlight = 0;
    const lite = batchSizerFor({ dialect: 'pglite', inFlight: () => inFlight }, 10_000);
    lite.record(10, 1); // 0.1 ms an item
    expect(lite.size).toBe(EMBEDDED_IDLE_TRANSACTION_MS / 0.1);
    inFlight = 2;
    expect(lite.size).toBe(EMBEDDED_TRANSACTION_MS / 0.1);
    inFlight = 0;
    expect(lite.size).toBe(EMBEDDED_IDLE_TRANSACTION_MS / 0.1);
  });
});
