/**
 * Shared by the queue suites: small backoffs, a poll-until, and queues that are closed (and whose
 * Redis keys are deleted) after each test.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach } from 'vitest';
import { BullmqQueue } from '../src/queue/bullmq-queue.js';
import type { JobQueue, QueueOptions } from '../src/queue/job-queue.js';
import { REDIS_URL } from './harness.js';

/** Keys of test queues live under their own prefix, deleted after each test. */
export const TEST_PREFIX = 'feedloop-test';
/** Small backoff so that retries take milliseconds. */
export const FAST: Partial<QueueOptions> = { backoffMs: 20, maxBackoffMs: 1_000 };
/** Generous bound for `idle()` in tests; a hang fails the test instead of the whole run. */
export const IDLE_MS = 5_000;
/** Nothing listens on this port: the producer's fail-fast target. */
export const CLOSED_PORT_URL = 'redis://127.0.0.1:6390';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it holds; fails with `what` after `timeoutMs`. */
export async function until(check: () => boolean, what: string, timeoutMs = IDLE_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** Queues made by the current test (closed after it) and BullMQ queue names (whose keys are deleted). */
const openQueues: Array<JobQueue<never>> = [];
export const bullmqNames = new Set<string>();

afterEach(async () => {
  await Promise.all(openQueues.splice(0).map((q) => q.close()));
  if (bullmqNames.size === 0) return;
  const redis = new Redis(REDIS_URL);
  try {
    for (const name of bullmqNames) {
      const keys = await redis.keys(`${TEST_PREFIX}:${name}:*`);
      if (keys.length > 0) await redis.del(...keys);
    }
  } finally {
    bullmqNames.clear();
    redis.disconnect();
  }
});

export function track<M extends Record<string, unknown>>(queue: JobQueue<M>): JobQueue<M> {
  openQueues.push(queue as unknown as JobQueue<never>);
  return queue;
}

/** A BullMQ queue under the test prefix; `name` lets two instances share one queue. */
export function bullmq<M extends Record<string, unknown>>(options: Partial<QueueOptions> = {}, name = `q-${randomUUID()}`): JobQueue<M> {
  bullmqNames.add(name);
  return track(new BullmqQueue<M>(name, REDIS_URL, { ...FAST, ...options, prefix: TEST_PREFIX }));
}


/** The job map most tests use: one job name carrying a number. */
export type Numbered = { job: { n: number } };
