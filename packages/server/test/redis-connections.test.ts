/**
 * Issue 25: the composition root owns the Redis connections. A production-profile process (API
 * and worker) holds one connection set: the shared command connection (queue producer, rate
 * limiter, live counters) and BullMQ's worker connections duplicated from the worker template;
 * all of them named, and none left once the services are closed.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKENDS, REDIS_URL, redisUp, startTestApp } from './harness.js';

const postgres = BACKENDS.find((b) => b.name === 'postgres');
const admin = redisUp ? new Redis(REDIS_URL, { lazyConnect: true }) : undefined;
afterAll(() => admin?.disconnect());

/** The names of the connections whose name starts with `prefix`, sorted. */
async function connectionsNamed(prefix: string): Promise<string[]> {
  const list = (await admin!.call('CLIENT', 'LIST')) as string;
  return list
    .split('\n')
    .map((line) => /(?:^| )name=(\S*)/.exec(line)?.[1] ?? '')
    .filter((name) => name.startsWith(prefix))
    .sort();
}

describe.skipIf(!redisUp || !postgres?.available)('Redis connections of a process', () => {
  it('one set, made and closed by the composition root: commands shared, worker duplicated by BullMQ', async () => {
    const t = await startTestApp(await postgres!.open(), { REDIS_URL }, { worker: true });
    const prefix = t.services.config.redisPrefix;
    // Every user of Redis at work: the limiter (a public key), the queue (process), the live counters (effects, a read).
    const registered = await t.app.inject({ method: 'POST', url: '/v1/responses', headers: t.auth, payload: { id: 'rc-r1', query: 'q', answer: 'a' } });
    expect(registered.statusCode).toBe(201);
    const sent = await t.app.inject({ method: 'POST', url: '/v1/feedback', headers: { authorization: `Bearer ${t.publicKey}` }, payload: { responseId: 'rc-r1', type: 'thumbs_up' } });
    expect(sent.statusCode).toBe(202);
    await t.services.pipeline.idle(10_000);
    const live = await t.app.inject({ method: 'GET', url: '/v1/stats/live', headers: t.auth });
    expect(live.json().total).toBe(1);

    const names = await connectionsNamed(prefix);
    expect(names.filter((n) => n === `${prefix}:commands`)).toHaveLength(1);
    // The worker's template is never connected itself: BullMQ's duplicates are, one blocking
    // connection per queue it consumes (renamed by BullMQ to the queue's name in base64: the
    // upkeep queue and the processing lane, issue 21) and the worker's own.
    const blocking = (queue: string) => `${prefix}:${Buffer.from(queue).toString('base64')}`;
    expect(names.filter((n) => n !== `${prefix}:commands`)).toEqual([blocking('pipeline'), blocking('pipeline-process'), `${prefix}:worker`].sort());
    await t.close();
    expect(await connectionsNamed(prefix)).toEqual([]);
  });
});
