/**
 * One suite, two job queues: every semantic of `JobQueue` is proven on the memory queue and on
 * BullMQ over the real Redis, with real time. What needs several processes is in
 * queue-bullmq.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  QueueClosedError,
  retryDelayMs,
  UnrecoverableJobError,
  type JobHandlers,
  type JobQueue,
  type QueueOptions,
} from '../src/queue/job-queue.js';
import { MemoryQueue } from '../src/queue/memory-queue.js';
import { redisUp } from './harness.js';
import { bullmq, FAST, IDLE_MS, sleep, track, until, type Numbered } from './queue-helpers.js';

interface Implementation {
  name: 'memory' | 'bullmq';
  available: boolean;
  make<M extends Record<string, unknown>>(options?: Partial<QueueOptions>): JobQueue<M>;
}

const IMPLEMENTATIONS: Implementation[] = [
  { name: 'memory', available: true, make: (options = {}) => track(new MemoryQueue({ ...FAST, ...options })) },
  { name: 'bullmq', available: redisUp, make: (options = {}) => bullmq(options) },
];


describe('retryDelayMs', () => {
  it('doubles from backoffMs and stops at maxBackoffMs', () => {
    const options = { backoffMs: 1_000, maxBackoffMs: 5_000 };
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelayMs(attempt, options))).toEqual([1_000, 2_000, 4_000, 5_000, 5_000]);
  });
});

for (const impl of IMPLEMENTATIONS) {
  describe.skipIf(!impl.available)(`job queue conformance: ${impl.name}`, () => {
    it('hands a job to its handler with plain JSON data and its context', async () => {
      type M = { greet: { who: string; at: Date }; other: { n: number } };
      const q = impl.make<M>();
      expect(q.kind).toBe(impl.name);
      const seen: unknown[] = [];
      q.work({
        greet: async (data, ctx) => void seen.push({ data, ctx }),
        other: async () => undefined,
      });
      await q.add('greet', { who: 'ada', at: new Date('2024-05-01T00:00:00Z') }, { jobId: 'greet-ada' });
      await q.idle(IDLE_MS);
      // The Date arrives as its JSON string on both: handlers only ever get plain JSON.
      expect(seen).toEqual([{ data: { who: 'ada', at: '2024-05-01T00:00:00.000Z' }, ctx: { jobId: 'greet-ada', name: 'greet', attempt: 1 } }]);
    });

    it('runs jobs concurrently up to `concurrency`, each job in one handler at a time', async () => {
      const q = impl.make<Numbered>({ concurrency: 3 });
      let active = 0;
      let maxActive = 0;
      const running = new Set<number>();
      const handled: number[] = [];
      let overlapped = false;
      q.work({
        job: async ({ n }) => {
          if (running.has(n)) overlapped = true;
          running.add(n);
          active += 1;
          maxActive = Math.max(maxActive, active);
          await sleep(80);
          active -= 1;
          running.delete(n);
          handled.push(n);
        },
      });
      await q.addBulk(Array.from({ length: 9 }, (_, n) => ({ name: 'job' as const, data: { n } })));
      await q.idle(IDLE_MS);
      expect(maxActive).toBe(3);
      expect(overlapped).toBe(false);
      expect(handled.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    });

    it('retries a throwing handler with exponential backoff capped at maxBackoffMs', async () => {
      // Uncapped the gaps would be 50, 100, 200, 400 ms; capped at 60 they are 50, 60, 60, 60.
      const q = impl.make<Numbered>({ attempts: 5, backoffMs: 50, maxBackoffMs: 60 });
      const attempts: number[] = [];
      const times: number[] = [];
      q.work({
        job: async (_data, ctx) => {
          attempts.push(ctx.attempt);
          times.push(Date.now());
          if (ctx.attempt < 5) throw new Error(`flaky ${ctx.attempt}`);
        },
      });
      await q.add('job', { n: 1 });
      await q.idle(IDLE_MS);
      expect(attempts).toEqual([1, 2, 3, 4, 5]);
      const gaps = times.slice(1).map((t, i) => t - (times[i] ?? t));
      expect(gaps[0]).toBeGreaterThanOrEqual(45);
      for (const gap of gaps.slice(1)) expect(gap).toBeGreaterThanOrEqual(55);
      // Capped: far below the 400 ms an uncapped fourth backoff would take.
      expect(gaps[3]).toBeLessThan(300);
      expect((await q.counts()).failed).toBe(0);
    });

    it('moves a job that used up its attempts to the failed set with its error and attempt count', async () => {
      const q = impl.make<Numbered>({ attempts: 3 });
      let calls = 0;
      q.work({
        job: async (_data, ctx) => {
          calls += 1;
          throw new Error(`boom on attempt ${ctx.attempt}`);
        },
      });
      const before = Date.now();
      await q.add('job', { n: 7 }, { jobId: 'doomed' });
      await q.idle(IDLE_MS);
      expect(calls).toBe(3);
      const failed = await q.failed();
      expect(failed).toEqual([{ id: 'doomed', name: 'job', data: { n: 7 }, error: 'boom on attempt 3', attempts: 3, failedAt: expect.any(Date) }]);
      expect(failed[0]?.failedAt.getTime()).toBeGreaterThanOrEqual(before);
      expect(await q.counts()).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 1 });
    });

    it('fails at once, without retries, on UnrecoverableJobError', async () => {
      const q = impl.make<Numbered>({ attempts: 5 });
      let calls = 0;
      q.work({
        job: async () => {
          calls += 1;
          throw new UnrecoverableJobError('bad input');
        },
      });
      await q.add('job', { n: 1 }, { jobId: 'bad' });
      await q.idle(IDLE_MS);
      expect(calls).toBe(1);
      expect(await q.failed()).toMatchObject([{ id: 'bad', error: 'bad input', attempts: 1 }]);
    });

    it('fails at once a job whose name has no handler', async () => {
      type M = { known: { n: number }; unknown: { n: number } };
      const q = impl.make<M>();
      // A producer may know job names this worker does not (a newer version, a typo).
      q.work({ known: async () => undefined } as unknown as JobHandlers<M>);
      await q.add('unknown', { n: 1 }, { jobId: 'orphan' });
      await q.idle(IDLE_MS);
      expect(await q.failed()).toMatchObject([{ id: 'orphan', name: 'unknown', attempts: 1, error: 'no handler for job unknown' }]);
    });

    it('never lets a poison job block the others', async () => {
      type M = { poison: { n: number }; good: { n: number } };
      // Backoffs 100+200+400+800 ms: the poison job is retried for about 1.5 s.
      const q = impl.make<M>({ attempts: 5, backoffMs: 100, concurrency: 1 });
      let poisonCalls = 0;
      let poisonCallsWhenGoodDone = -1;
      const good = new Set<number>();
      q.work({
        poison: async () => {
          poisonCalls += 1;
          throw new Error('poison');
        },
        good: async ({ n }) => {
          good.add(n);
          if (good.size === 20) poisonCallsWhenGoodDone = poisonCalls;
        },
      });
      await q.add('poison', { n: 0 }, { jobId: 'poison' });
      await q.addBulk(Array.from({ length: 20 }, (_, n) => ({ name: 'good' as const, data: { n } })));
      await q.idle(IDLE_MS);
      expect(good.size).toBe(20);
      // All good jobs were done while the poison one was still being retried.
      expect(poisonCallsWhenGoodDone).toBeGreaterThanOrEqual(1);
      expect(poisonCallsWhenGoodDone).toBeLessThan(5);
      expect(await q.failed()).toMatchObject([{ id: 'poison', attempts: 5, error: 'poison' }]);
    });

    it('keeps the newest keepFailed failed jobs, newest first', async () => {
      const q = impl.make<Numbered>({ keepFailed: 3, concurrency: 1 });
      q.work({
        job: async ({ n }) => {
          throw new UnrecoverableJobError(`no ${n}`);
        },
      });
      for (const [n, id] of ['f-a', 'f-b', 'f-c', 'f-d', 'f-e'].entries()) await q.add('job', { n }, { jobId: id });
      await q.idle(IDLE_MS);
      expect((await q.failed()).map((f) => f.id)).toEqual(['f-e', 'f-d', 'f-c']);
      expect((await q.failed(2)).map((f) => f.error)).toEqual(['no 4', 'no 3']);
      expect((await q.counts()).failed).toBe(3);
    });

    it('retryFailed moves a failed job back with fresh attempts; its id stays taken until then', async () => {
      const q = impl.make<Numbered>({ attempts: 2 });
      let broken = true;
      const attempts: number[] = [];
      q.work({
        job: async (_data, ctx) => {
          attempts.push(ctx.attempt);
          if (broken) throw new Error('downstream down');
        },
      });
      await q.add('job', { n: 1 }, { jobId: 'redo' });
      await q.idle(IDLE_MS);
      expect(attempts).toEqual([1, 2]);
      // Adding the id of a failed job is a no-op, as in BullMQ (the failed job keeps it).
      await q.add('job', { n: 2 }, { jobId: 'redo' });
      await q.idle(IDLE_MS);
      expect(attempts).toEqual([1, 2]);
      broken = false;
      expect(await q.retryFailed('redo')).toBe(true);
      await q.idle(IDLE_MS);
      expect(attempts).toEqual([1, 2, 1]);
      expect(await q.failed()).toEqual([]);
      expect(await q.retryFailed('redo')).toBe(false);
      expect(await q.retryFailed('never-existed')).toBe(false);
    });

    it('deduplicates by jobId while waiting, delayed or active; a completed id can be added again', async () => {
      type M = { job: { n: number }; slow: { n: number } };
      const q = impl.make<M>();
      await q.add('job', { n: 1 }, { jobId: 'x' });
      await q.add('job', { n: 2 }, { jobId: 'x' });
      await q.addBulk([{ name: 'job', data: { n: 3 }, options: { jobId: 'x' } }]);
      await q.add('job', { n: 4 }, { jobId: 'later', delayMs: 150 });
      await q.add('job', { n: 5 }, { jobId: 'later', delayMs: 150 });
      expect(await q.counts()).toEqual({ waiting: 1, active: 0, delayed: 1, failed: 0 });
      const handled: number[] = [];
      let slowStarted = false;
      q.work({
        job: async ({ n }) => void handled.push(n),
        slow: async ({ n }) => {
          slowStarted = true;
          handled.push(n);
          await sleep(200);
        },
      });
      await q.add('slow', { n: 10 }, { jobId: 'busy' });
      await until(() => slowStarted, 'the slow job to start');
      await q.add('slow', { n: 11 }, { jobId: 'busy' });
      await q.idle(IDLE_MS);
      expect(handled.sort((a, b) => a - b)).toEqual([1, 4, 10]);
      // Completed: the ids are free again.
      await q.add('job', { n: 6 }, { jobId: 'x' });
      await q.add('slow', { n: 12 }, { jobId: 'busy' });
      await q.idle(IDLE_MS);
      expect(handled.sort((a, b) => a - b)).toEqual([1, 4, 6, 10, 12]);
    });

    it('refuses job ids that are integers or contain a colon', async () => {
      const q = impl.make<Numbered>();
      await expect(q.add('job', { n: 1 }, { jobId: '42' })).rejects.toThrow(RangeError);
      await expect(q.add('job', { n: 1 }, { jobId: 'a:b' })).rejects.toThrow(RangeError);
      await expect(q.addBulk([{ name: 'job', data: { n: 1 } }, { name: 'job', data: { n: 2 }, options: { jobId: '7' } }])).rejects.toThrow(RangeError);
      // All or nothing: the valid job of the refused bulk was not added either.
      expect((await q.counts()).waiting).toBe(0);
    });

    it('delays a job by delayMs', async () => {
      const q = impl.make<Numbered>();
      let ranAt = 0;
      q.work({ job: async () => void (ranAt = Date.now()) });
      const addedAt = Date.now();
      await q.add('job', { n: 1 }, { delayMs: 300 });
      expect(await q.counts()).toMatchObject({ waiting: 0, delayed: 1 });
      await q.idle(IDLE_MS);
      expect(ranAt - addedAt).toBeGreaterThanOrEqual(290);
      expect(ranAt - addedAt).toBeLessThan(1_000);
    });

    it('schedule repeats a job every everyMs; scheduling the same name again replaces it', async () => {
      type M = { tick: { v: number } };
      const q = impl.make<M>();
      const runs: Array<{ v: number; at: number }> = [];
      q.work({ tick: async ({ v }) => void runs.push({ v, at: Date.now() }) });
      await q.schedule('tick', 100, { v: 1 });
      await sleep(550);
      const firstRuns = runs.length;
      // A run at once, then one per 100 ms: about 6 in 550 ms.
      expect(firstRuns).toBeGreaterThanOrEqual(3);
      expect(firstRuns).toBeLessThanOrEqual(7);

      await q.schedule('tick', 100, { v: 2 });
      const replacedAt = Date.now();
      await sleep(450);
      const after = runs.filter((r) => r.at > replacedAt + 20);
      // Replaced, not added: only the new data, at the same rate (not two schedules).
      expect(after.every((r) => r.v === 2)).toBe(true);
      expect(after.length).toBeGreaterThanOrEqual(2);
      expect(after.length).toBeLessThanOrEqual(5);
    });

    it("a schedule's next run counts as delayed, does not keep the queue from idle, and keeps its cadence when re-scheduled", async () => {
      type M = { tick: { v: number } };
      const q = impl.make<M>();
      const runs: number[] = [];
      q.work({ tick: async ({ v }) => void runs.push(v) });
      // The first run is at once; the next one a minute away.
      await q.schedule('tick', 60_000, { v: 1 });
      await until(() => runs.length === 1, 'the first scheduled run');
      await q.idle(IDLE_MS);
      expect(await q.counts()).toEqual({ waiting: 0, active: 0, delayed: 1, failed: 0 });
      // Every process calls schedule at start-up: the same interval keeps the pending run.
      await q.schedule('tick', 60_000, { v: 2 });
      await sleep(100);
      expect(runs).toEqual([1]);
      expect(await q.counts()).toEqual({ waiting: 0, active: 0, delayed: 1, failed: 0 });
      // A new interval starts over, with a run at once.
      await q.schedule('tick', 30_000, { v: 3 });
      await until(() => runs.length === 2, 'the run of the new interval');
      await q.idle(IDLE_MS);
      expect(runs).toEqual([1, 3]);
      expect((await q.counts()).delayed).toBe(1);
    });

    it('close() waits for the running handler and takes no new jobs', async () => {
      const q = impl.make<Numbered>({ concurrency: 1 });
      const started: number[] = [];
      let finished = false;
      q.work({
        job: async ({ n }) => {
          started.push(n);
          await sleep(300);
          finished = true;
        },
      });
      await q.add('job', { n: 1 });
      await q.add('job', { n: 2 });
      await until(() => started.length === 1, 'the first job to start');
      const closeStart = Date.now();
      await q.close();
      expect(finished).toBe(true);
      expect(Date.now() - closeStart).toBeGreaterThanOrEqual(200);
      await sleep(100);
      expect(started).toEqual([1]);
      await expect(q.add('job', { n: 3 })).rejects.toThrow(QueueClosedError);
      expect(() => q.work({ job: async () => undefined })).toThrow();
    });

    it('idle() rejects after its timeout while work is pending', async () => {
      const q = impl.make<Numbered>();
      q.work({ job: async () => undefined });
      await q.add('job', { n: 1 }, { delayMs: 5_000 });
      await expect(q.idle(100)).rejects.toThrow(/not idle/);
    });

    it('work() may be called only once', () => {
      const q = impl.make<Numbered>();
      q.work({ job: async () => undefined });
      expect(() => q.work({ job: async () => undefined })).toThrow(/already/);
    });
  });
}

describe('the memory queue keeps a slot for urgent jobs', () => {
  it('starts an urgent job first and never lets other jobs take the last slot', async () => {
    type Jobs = { upkeep: { n: number }; process: { n: number } };
    const q = track(new MemoryQueue<Jobs>({ ...FAST, concurrency: 3, urgentJobs: ['process'] }));
    const running: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    q.work({
      upkeep: async ({ n }) => {
        running.push(`upkeep-${n}`);
        await held;
      },
      process: async ({ n }) => {
        running.push(`process-${n}`);
      },
    });
    for (let n = 1; n <= 4; n++) await q.add('upkeep', { n });
    await until(() => running.length === 2, 'two upkeep jobs to start');
    await sleep(50);
    // Two of three slots: the third is kept.
    expect(running).toEqual(['upkeep-1', 'upkeep-2']);
    await q.add('process', { n: 1 });
    await until(() => running.includes('process-1'), 'the process job to start in the kept slot');
    release();
    await q.idle(2_000);
    expect(running).toEqual(['upkeep-1', 'upkeep-2', 'process-1', 'upkeep-3', 'upkeep-4']);
  });
});
