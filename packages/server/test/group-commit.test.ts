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

  describe('a failed flush punishes only the items at fault', () => {
    type Out = { ok: true; v: number } | { ok: false; v: number };
    const poisoned = (bad: ReadonlySet<number>, committed: number[], flushes: number[][]) =>
      new GroupCommitter<number, Out>(
        async (items) => {
          flushes.push(items);
          await new Promise((r) => setImmediate(r));
          if (items.some((i) => bad.has(i))) throw Object.assign(new Error('bad value'), { code: '22P05' });
          committed.push(...items);
          return items.map((v) => ({ ok: true, v }));
        },
        { maxBatch: 1_000, concurrency: 1, splitOnFailure: (err) => (err as { code?: string }).code === '22P05', failedAlone: (v) => ({ ok: false, v }) },
      );

    it('splits the batch until the poisoned items are alone; everyone else is committed once', async () => {
      const bad = new Set([3, 77, 78, 150]);
      const committed: number[] = [];
      const flushes: number[][] = [];
      const committer = poisoned(bad, committed, flushes);
      const results = await committer.submitMany(Array.from({ length: 200 }, (_, i) => i));
      expect(results.filter((r) => !r.ok).map((r) => r.v)).toEqual([3, 77, 78, 150]);
      expect(results.filter((r) => r.ok)).toHaveLength(196);
      expect([...committed].sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i).filter((i) => !bad.has(i)));
      // Bisection is logarithmic per bad item, far from one flush per item.
      expect(flushes.length).toBeLessThan(4 * 2 * Math.ceil(Math.log2(200)) + 2);
      expect(committer.flushes).toBe(flushes.length);
    });

    it('writes a batch without failures in one flush, with no retries', async () => {
      const committed: number[] = [];
      const flushes: number[][] = [];
      const committer = poisoned(new Set(), committed, flushes);
      await committer.submitMany(Array.from({ length: 100 }, (_, i) => i));
      expect(flushes).toHaveLength(1);
    });

    it('does not split when the failure is no item\'s fault (database down): everyone fails at once', async () => {
      let calls = 0;
      const committer = new GroupCommitter<number, number>(
        async () => {
          calls++;
          throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
        },
        { maxBatch: 100, concurrency: 1, splitOnFailure: (err) => (err as { code?: string }).code !== 'ECONNREFUSED', failedAlone: (v) => v },
      );
      const settled = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => committer.submit(i)));
      expect(settled.every((r) => r.status === 'rejected')).toBe(true);
      expect(calls).toBe(1);
    });

    it('fails an item alone with the error when failedAlone throws, the others still committed', async () => {
      const committer = new GroupCommitter<number, number>(
        async (items) => {
          if (items.includes(5)) throw new TypeError('bug');
          return items;
        },
        { maxBatch: 100, concurrency: 1, splitOnFailure: () => true, failedAlone: (_, err) => { throw err; } },
      );
      const settled = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => committer.submit(i)));
      expect(settled.map((r) => r.status)).toEqual(Array.from({ length: 10 }, (_, i) => (i === 5 ? 'rejected' : 'fulfilled')));
    });
  });

  it('refuses a flush that answers the wrong number of results', async () => {
    const committer = new GroupCommitter<number, number>(async () => [], { maxBatch: 10, concurrency: 1 });
    await expect(committer.submit(1)).rejects.toThrow(/0 results for 1 items/);
  });
  it('with overlapShare, starts a second flush only once enough wait; with nothing in flight, at once', async () => {
    const batches: number[][] = [];
    const release: Array<() => void> = [];
    const tick = () => new Promise((r) => setImmediate(r));
    const committer = new GroupCommitter<number, number>(
      async (items) => {
        batches.push(items);
        await new Promise<void>((r) => release.push(r));
        return items;
      },
      { maxBatch: 100, concurrency: 2, overlapShare: 0.5 },
    );
    const all: Promise<number>[] = [];
    const submit = (from: number, n: number) => all.push(...Array.from({ length: n }, (_, i) => committer.submit(from + i)));
    submit(0, 10);
    await tick();
    expect(batches.map((b) => b.length)).toEqual([10]);
    // Four wait: fewer than half of the 10 in flight, so no second flush yet.
    submit(10, 4);
    await tick();
    await tick();
    expect(batches.map((b) => b.length)).toEqual([10]);
    // The fifth makes half: a second flush overlaps the first.
    submit(14, 1);
    await tick();
    expect(batches.map((b) => b.length)).toEqual([10, 5]);
    // A lone item waits while a flush is in flight (the 5 are below half of the last batch)...
    submit(15, 1);
    await tick();
    release.shift()?.();
    await tick();
    expect(batches.map((b) => b.length)).toEqual([10, 5]);
    // ...and goes as soon as none is.
    release.shift()?.();
    await tick();
    expect(batches.map((b) => b.length)).toEqual([10, 5, 1]);
    while (release.length > 0 || batches.flat().length < 16) {
      release.shift()?.();
      await tick();
    }
    expect(await Promise.all(all)).toEqual(Array.from({ length: 16 }, (_, i) => i));
  });

  it('without overlapShare, a second flush starts for a single waiting item', async () => {
    const batches: number[][] = [];
    const release: Array<() => void> = [];
    const committer = new GroupCommitter<number, number>(
      async (items) => {
        batches.push(items);
        await new Promise<void>((r) => release.push(r));
        return items;
      },
      { maxBatch: 100, concurrency: 2 },
    );
    const first = Array.from({ length: 10 }, (_, i) => committer.submit(i));
    await new Promise((r) => setImmediate(r));
    const second = committer.submit(10);
    await new Promise((r) => setImmediate(r));
    expect(batches.map((b) => b.length)).toEqual([10, 1]);
    for (const r of release.splice(0)) r();
    await Promise.all([...first, second]);
  });
});
