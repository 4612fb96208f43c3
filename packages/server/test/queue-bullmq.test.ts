/**
 * What BullMQ must prove with several processes (two queue instances with their own connections
 * stand in for two): one scheduled run per tick, each job handled once, recovery after dropped
 * connections, and the producer's fail-fast when Redis is away; and the profile's queue choice.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { BullmqQueue } from '../src/queue/bullmq-queue.js';
import { createJobQueue } from '../src/queue/create-job-queue.js';
import { MemoryQueue } from '../src/queue/memory-queue.js';
import { REDIS_URL, redisUp } from './harness.js';
import { bullmq, bullmqNames, CLOSED_PORT_URL, FAST, IDLE_MS, sleep, TEST_PREFIX, track, until, type Numbered } from './queue-helpers.js';

describe.skipIf(!redisUp)('BullMQ across processes', () => {
  it('two processes scheduling the same job run it once per tick', async () => {
    type M = { tick: { v: number } };
    const name = `q-${randomUUID()}`;
    const a = bullmq<M>({}, name);
    const b = bullmq<M>({}, name);
    const runs: string[] = [];
    a.work({ tick: async () => void runs.push('a') });
    b.work({ tick: async () => void runs.push('b') });
    const everyMs = 200;
    const windowMs = 1_200;
    const start = Date.now();
    await Promise.all([a.schedule('tick', everyMs, { v: 1 }), b.schedule('tick', everyMs, { v: 1 })]);
    await sleep(windowMs - (Date.now() - start));
    const ticks = windowMs / everyMs;
    expect(runs.length).toBeGreaterThanOrEqual(ticks - 2);
    expect(runs.length).toBeLessThanOrEqual(ticks + 1);
  });

  it('two workers share the jobs: each is handled by exactly one', async () => {
    const name = `q-${randomUUID()}`;
    const a = bullmq<Numbered>({ concurrency: 4 }, name);
    const b = bullmq<Numbered>({ concurrency: 4 }, name);
    const handledBy = new Map<number, string[]>();
    const record = (who: string) => async ({ n }: { n: number }) => {
      handledBy.set(n, [...(handledBy.get(n) ?? []), who]);
      await sleep(2);
    };
    a.work({ job: record('a') });
    b.work({ job: record('b') });
    await a.addBulk(Array.from({ length: 200 }, (_, n) => ({ name: 'job' as const, data: { n }, options: { jobId: `j-${n}` } })));
    await until(() => handledBy.size === 200, 'all 200 jobs');
    await a.idle(IDLE_MS);
    const workers = [...handledBy.values()];
    expect(workers.every((w) => w.length === 1)).toBe(true);
    expect(workers.filter((w) => w[0] === 'a').length).toBeGreaterThan(0);
    expect(workers.filter((w) => w[0] === 'b').length).toBeGreaterThan(0);
  });

  it('a job left waiting by a closing worker stays in Redis for the next process', async () => {
    const name = `q-${randomUUID()}`;
    const worker = bullmq<Numbered>({ concurrency: 1 }, name);
    let started = 0;
    worker.work({
      job: async () => {
        started += 1;
        await sleep(200);
      },
    });
    await worker.add('job', { n: 1 });
    await worker.add('job', { n: 2 });
    await until(() => started === 1, 'the first job to start');
    await worker.close();
    const next = bullmq<Numbered>({}, name);
    expect(await next.counts()).toEqual({ waiting: 1, active: 0, delayed: 0, failed: 0 });
    const handled: number[] = [];
    next.work({ job: async ({ n }) => void handled.push(n) });
    await next.idle(IDLE_MS);
    expect(handled).toEqual([2]);
    expect(started).toBe(1);
  });

  it('recovers by itself when its Redis connections drop', async () => {
    const name = `q-${randomUUID()}`;
    const q = bullmq<Numbered>({}, name);
    const handled: number[] = [];
    q.work({ job: async ({ n }) => void handled.push(n) });
    await q.add('job', { n: 1 });
    await until(() => handled.length === 1, 'the first job');
    // Kill exactly this queue's connections (by the names they carry), not anyone else's.
    const admin = new Redis(REDIS_URL);
    try {
      const markers = [name, Buffer.from(name).toString('base64')];
      const ours = String(await admin.client('LIST'))
        .split('\n')
        .filter((line) => markers.some((m) => line.includes(`name=${TEST_PREFIX}:${m}`)));
      expect(ours.length).toBe(3); // producer, worker, worker's blocking fetch
      for (const line of ours) await admin.client('KILL', 'ID', /\bid=(\d+)/.exec(line)?.[1] ?? '');
    } finally {
      admin.disconnect();
    }
    // The producer may refuse while it reconnects (fast, never hanging); then it accepts again.
    const deadline = Date.now() + IDLE_MS;
    for (;;) {
      try {
        await q.add('job', { n: 2 });
        break;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await sleep(50);
      }
    }
    await until(() => handled.includes(2), 'the job added after the reconnect');
    expect(handled).toEqual([1, 2]);
  });

  it('add fails fast when Redis is unreachable, without buffering', async () => {
    const q = track(new BullmqQueue<Numbered>(`q-${randomUUID()}`, CLOSED_PORT_URL, { prefix: TEST_PREFIX }));
    const start = Date.now();
    await expect(q.add('job', { n: 1 })).rejects.toThrow(/Redis/);
    expect(Date.now() - start).toBeLessThan(2_000);
    // A burst fails just as fast: nothing waits in an offline queue.
    const burstStart = Date.now();
    const results = await Promise.allSettled(Array.from({ length: 50 }, (_, n) => q.add('job', { n })));
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(Date.now() - burstStart).toBeLessThan(2_000);
    const closeStart = Date.now();
    await q.close();
    expect(Date.now() - closeStart).toBeLessThan(1_000);
  });
});

describe('createJobQueue', () => {
  it('makes a memory queue without a Redis URL', async () => {
    const q = track(createJobQueue<Numbered>({}, 'effects'));
    expect(q.kind).toBe('memory');
    expect(q).toBeInstanceOf(MemoryQueue);
  });

  it.skipIf(!redisUp)('makes a BullMQ queue with a Redis URL and prefix', async () => {
    const name = `q-${randomUUID()}`;
    bullmqNames.add(name);
    const q = track(createJobQueue<Numbered>({ redisUrl: REDIS_URL, redisPrefix: TEST_PREFIX }, name, FAST));
    expect(q.kind).toBe('bullmq');
    await q.add('job', { n: 1 });
    const redis = new Redis(REDIS_URL);
    try {
      expect((await redis.keys(`${TEST_PREFIX}:${name}:*`)).length).toBeGreaterThan(0);
    } finally {
      redis.disconnect();
    }
  });
});
