import { describe, expect, it } from 'vitest';
import { GroupCommitter } from '../src/ingest/group-commit.js';

describe('GroupCommitter', () => {
  it('writes concurrent submissions in shared batches and answers each after its flush', async () => {
    const batches: number[][] = [];
    const committer = new GroupCommitter<number, number>(
      async (items) => {
        batches.push(items);
        await new Promise((r) => setTimeout(r, 5));
        return items.map((i) => i * 10);
      },
      { maxBatch: 100, concurrency: 1 },
    );
    const results = await Promise.all(Array.from({ length: 250 }, (_, i) => committer.submit(i)));
    expect(results).toEqual(Array.from({ length: 250 }, (_, i) => i * 10));
    expect(batches.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 250 }, (_, i) => i));
    expect(Math.max(...batches.map((b) => b.length))).toBe(100);
    expect(batches.length).toBeLessThanOrEqual(4);
  });

  it('keeps at most `concurrency` flushes in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const committer = new GroupCommitter<number, number>(
      async (items) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 10));
        inFlight--;
        return items;
      },
      { maxBatch: 5, concurrency: 2 },
    );
    await committer.submitMany(Array.from({ length: 40 }, (_, i) => i));
    expect(peak).toBe(2);
  });

  it('fails every item of a failed flush and goes on with the next', async () => {
    let calls = 0;
    const committer = new GroupCommitter<string, string>(
      async (items) => {
        calls++;
        if (calls === 1) throw new Error('database down');
        return items;
      },
      { maxBatch: 10, concurrency: 1 },
    );
    const failing = Promise.allSettled([committer.submit('a'), committer.submit('b')]);
    expect((await failing).map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await expect(committer.submit('c')).resolves.toBe('c');
  });

  it('drains: resolves once everything submitted is written', async () => {
    const written: number[] = [];
    const committer = new GroupCommitter<number, void>(
      async (items) => {
        await new Promise((r) => setTimeout(r, 20));
        written.push(...items);
        return items.map(() => undefined);
      },
      { maxBatch: 3, concurrency: 1 },
    );
    void committer.submitMany([1, 2, 3, 4, 5, 6, 7]);
    await committer.drain();
    expect(written).toEqual([1, 2, 3, 4, 5, 6, 7]);
    await committer.drain();
  });

  it('refuses a flush that answers the wrong number of results', async () => {
    const committer = new GroupCommitter<number, number>(async () => [], { maxBatch: 10, concurrency: 1 });
    await expect(committer.submit(1)).rejects.toThrow(/0 results for 1 items/);
  });
});
