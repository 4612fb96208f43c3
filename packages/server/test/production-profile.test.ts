import { randomUUID } from 'node:crypto';
/**
 * The production profile: several API instances on one Postgres server and one Redis, as
 * `feedloop start` runs them with DATABASE_URL and REDIS_URL. Real connections, no mocks.
 */
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { openPostgres } from '../src/db/postgres-client.js';
import type { SqlClient } from '../src/db/sql-client.js';
import { buildApp } from '../src/http/app.js';
import { createServices } from '../src/server.js';
import { BACKENDS, REDIS_URL, serviceAvailable, type TestApp, startTestApp } from './harness.js';

const postgres = BACKENDS.find((b) => b.name === 'postgres');
const redisUp = await serviceAvailable('Redis', async () => {
  const r = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2_000 });
  try {
    await r.connect();
  } finally {
    r.disconnect();
  }
});

describe.skipIf(!postgres?.available || !redisUp)('production profile: two API instances, Postgres + Redis', () => {
  let first: TestApp;
  let second: { app: FastifyInstance; close: () => Promise<void> };
  let secondDb: SqlClient;
  /** One deployment: both instances share queues, counters and rate limits under one prefix. */
  const prefix = `fltest-${randomUUID()}`;

  beforeAll(async () => {
    if (!postgres) return;
    first = await startTestApp(await postgres.open(), { REDIS_URL, FEEDLOOP_REDIS_PREFIX: prefix });
    // The second instance gets its own pool on the same schema, like another process would.
    const searchPath = (await first.db.query<{ s: string }>('SELECT current_schema() AS s'))[0]?.s ?? 'public';
    secondDb = await openPostgres(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test', { schema: searchPath });
    const { services, close } = createServices(
      loadConfig({ LOG_LEVEL: 'silent', REDIS_URL, FEEDLOOP_KEY_CACHE_SECONDS: '0', FEEDLOOP_REDIS_PREFIX: prefix }),
      secondDb,
    );
    const app = await buildApp(services, { logger: false });
    await app.ready();
    second = {
      app,
      close: async () => {
        await app.close();
        await close();
        await secondDb.close();
      },
    };
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('shares the public-key rate limit across instances through Redis', async () => {
    await first.app.inject({ method: 'POST', url: '/v1/responses', headers: first.auth, payload: { id: 'r-rl', query: 'q', answer: 'a' } });
    const headers = { authorization: `Bearer ${first.publicKey}`, 'x-forwarded-for': '203.0.113.7' };
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const app = i % 2 === 0 ? first.app : second.app;
      const res = await app.inject({ method: 'POST', url: '/v1/feedback', headers, payload: { responseId: 'r-rl', type: 'skip' }, remoteAddress: '203.0.113.7' });
      statuses.push(res.statusCode);
      if (res.statusCode === 429) {
        expect(res.json().error.code).toBe('FEEDLOOP_ERR_RATE_LIMITED');
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      }
    }
    expect(statuses).toEqual([...Array(10).fill(202), 429, 429]);
    // Another client IP has its own allowance; secret keys are not limited.
    const other = await second.app.inject({
      method: 'POST',
      url: '/v1/feedback',
      headers: { authorization: `Bearer ${first.publicKey}` },
      payload: { responseId: 'r-rl', type: 'skip' },
      remoteAddress: '198.51.100.1',
    });
    expect(other.statusCode).toBe(202);
    const secret = await second.app.inject({ method: 'POST', url: '/v1/feedback', headers: first.auth, payload: { responseId: 'r-rl', type: 'skip' }, remoteAddress: '203.0.113.7' });
    expect(secret.statusCode).toBe(202);
  });

  it('stores concurrent retries of the same events through both instances once', async () => {
    await first.app.inject({ method: 'POST', url: '/v1/responses', headers: first.auth, payload: { id: 'r-multi', query: 'q', answer: 'a' } });
    const events = Array.from({ length: 200 }, (_, i) => ({ id: `m-${i}`, responseId: 'r-multi', type: 'rating', userId: `mu-${i}`, payload: { rating: (i % 5) + 1 } }));
    const sends = events.flatMap((e) => [first.app, second.app, first.app].map((app) => app.inject({ method: 'POST', url: '/v1/feedback', headers: first.auth, payload: e })));
    const results = await Promise.all(sends);
    const accepted = results.filter((r) => r.json().status === 'accepted').length;
    expect(accepted).toBe(200);
    expect(results.filter((r) => r.json().status === 'duplicate').length).toBe(400);
    const rows = await first.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM feedback_events WHERE response_id = 'r-multi'`);
    expect(rows[0]?.n).toBe(200);
  });

  it('keeps one of the same comment sent through two instances at once, the other marked its duplicate', async () => {
    // Each instance flushes its own requests; the two flushes on the same response run at once,
    // and only the response locks taken before the write (with a snapshot taken after them) let
    // the later one see the earlier one's commit.
    await first.app.inject({ method: 'POST', url: '/v1/responses', headers: first.auth, payload: { id: 'r-dup-race', query: 'q', answer: 'a' } });
    // Both instances know the response already, so neither's flush waits for a lookup first.
    for (const app of [first.app, second.app]) {
      await app.inject({ method: 'POST', url: '/v1/feedback', headers: first.auth, payload: { responseId: 'r-dup-race', type: 'skip' } });
    }
    const pairs = Array.from({ length: 40 }, (_, i) => ({ userId: `dup-user-${i}`, comment: `the same words ${i}` }));
    // Rounds, each its own race: one round's two flushes need not overlap.
    for (let round = 0; round < 4; round++) {
      const sends = pairs.flatMap((p, i) =>
        [first.app, second.app].map((app, side) =>
          app.inject({
            method: 'POST',
            url: '/v1/feedback',
            headers: first.auth,
            payload: { id: `dup-race-${round}-${i}-${side}`, responseId: 'r-dup-race', type: 'comment', userId: `${p.userId}-${round}`, payload: { comment: p.comment } },
          }),
        ),
      );
      const statuses = (await Promise.all(sends)).map((r) => r.json().status as string);
      for (let i = 0; i < pairs.length; i++) expect([statuses[2 * i], statuses[2 * i + 1]].sort()).toEqual(['accepted', 'duplicate']);
    }
    const counted = await first.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM feedback_events WHERE response_id = 'r-dup-race' AND type = 'comment' AND duplicate_of IS NULL`);
    expect(counted[0]?.n).toBe(4 * pairs.length);
  });

  it('keeps one current vote when a user changes it through two instances at once', async () => {
    await first.app.inject({ method: 'POST', url: '/v1/responses', headers: first.auth, payload: { id: 'r-race', query: 'q', answer: 'a' } });
    const base = Date.now() - 60_000;
    const votes = Array.from({ length: 20 }, (_, i) => ({
      id: `race-${i}`,
      responseId: 'r-race',
      type: i % 2 === 0 ? 'thumbs_up' : 'thumbs_down',
      userId: 'racer',
      occurredAt: new Date(base + i * 1_000).toISOString(),
      payload: { comment: `vote ${i}` },
    }));
    await Promise.all(votes.map((v, i) => (i % 2 === 0 ? first.app : second.app).inject({ method: 'POST', url: '/v1/feedback', headers: first.auth, payload: v })));
    const current = await first.db.query<{ id: string }>(`SELECT id FROM feedback_events WHERE response_id = 'r-race' AND superseded_by IS NULL`);
    expect(current.map((r) => r.id)).toEqual(['race-19']);
  });
});
