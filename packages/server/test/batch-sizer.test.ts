import { describe, expect, it } from 'vitest';
import { BatchSizer, EMBEDDED_IDLE_TRANSACTION_MS, EMBEDDED_TRANSACTION_MS, batchSizerFor } from '../src/pipeline/batch-sizer.js';

describe('BatchSizer', () => {
  it('learns a fixed and a per-item cost, and aims the next transaction at the target', () => {
    const sizer = new BatchSizer({ initial: 10, max: 1_000, targetMs: 20 });
    expect(sizer.size).toBe(10);
    sizer.record(10, 3); // 2 ms fixed + 0.1 ms an item
    sizer.record(40, 6);
    expect(sizer.model?.fixedMs).toBeCloseTo(2, 5);
    expect(sizer.model?.perItemMs).toBeCloseTo(0.1, 5);
    expect(sizer.size).toBe(180); // (20 - 2) / 0.1
  });

  it('never settles on one item a transaction when the fixed cost is most of it', () => {
    // What collapsed the embedded pipeline: ~10 ms a transaction whatever its size, read as 10 ms
    // an item, so every transaction after took one event.
    const sizer = new BatchSizer({ initial: 1, max: 500, targetMs: 10 });
    let size = sizer.size;
    for (let round = 0; round < 20; round++) {
      sizer.record(size, 10 + 0.05 * size);
      size = sizer.size;
    }
    expect(sizer.model?.fixedMs).toBeGreaterThan(5);
    // Aimed at four times the fixed cost: (40 - 10) / 0.05 = 600, within max.
    expect(size).toBe(500);
  });

  it('follows a per-item cost that changes while every transaction has the same size', () => {
    const sizer = new BatchSizer({ initial: 10, max: 200, targetMs: 20 });
    sizer.record(10, 2 + 0.01 * 10);
    sizer.record(40, 2 + 0.01 * 40);
    expect(sizer.size).toBe(200); // (20 - 2) / 0.01 = 1,800, capped
    // Now each item costs ten times more, and every transaction had max items: no spread to fit.
    for (let round = 0; round < 30; round++) sizer.record(sizer.size, 2 + 0.1 * sizer.size);
    expect(sizer.size).toBeLessThanOrEqual(Math.ceil((20 - 2) / 0.1) + 1);
    expect(sizer.size).toBeGreaterThan(100);
  });

  it('stays within 1 and max, and ignores empty or unmeasured rounds', () => {
    const sizer = new BatchSizer({ initial: 10, max: 50, targetMs: 10 });
    sizer.record(10, 0.001);
    sizer.record(20, 0.002);
    expect(sizer.size).toBe(50);
    const slow = new BatchSizer({ initial: 10, max: 50, targetMs: 10 });
    slow.record(10, 10_000);
    slow.record(20, 20_000);
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
    lite.record(10, 1);
    lite.record(20, 2);
    expect(lite.size).toBe(EMBEDDED_TRANSACTION_MS / 0.1);
  });

  it('on PGlite takes long transactions while the connection is free and short ones while others want it', () => {
    let inFlight = 0;
    const lite = batchSizerFor({ dialect: 'pglite', inFlight: () => inFlight }, 10_000);
    lite.record(10, 1); // 0.1 ms an item, no fixed part
    lite.record(30, 3);
    expect(lite.size).toBe(EMBEDDED_IDLE_TRANSACTION_MS / 0.1);
    inFlight = 2;
    expect(lite.size).toBe(EMBEDDED_TRANSACTION_MS / 0.1);
    inFlight = 0;
    expect(lite.size).toBe(EMBEDDED_IDLE_TRANSACTION_MS / 0.1);
  });

  it('takes a quarter of a backlog at a time, up to max, and a small job as before', () => {
    const sizer = new BatchSizer({ initial: 10, max: 200, targetMs: 10 });
    sizer.record(10, 3); // 2 ms fixed + 0.1 ms an item: 80 items aimed at 10 ms
    sizer.record(40, 6);
    expect(sizer.size).toBe(80);
    expect(sizer.sizeFor(13)).toBe(80);
    expect(sizer.sizeFor(500)).toBe(125);
    expect(sizer.sizeFor(5_000)).toBe(200);
  });
});
