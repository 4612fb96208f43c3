/**
 * Many processes on one Postgres and one Redis, as in production: an API process
 * (`feedloop start --api-only`) and two `feedloop worker` processes. Every event is processed by
 * exactly one worker, exactly once, while the workers' sweeps race their jobs on purpose.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, POSTGRES_URL, REDIS_URL, withPgClient } from './harness.js';
import { JsonClient, killAllServers, startServerProcess, startWorkerProcess, within, type ServerProcess } from './process-helpers.js';

const postgres = BACKENDS.find((b) => b.name === 'postgres');
const SECRET_KEY = `fl_sk_${randomBytes(16).toString('hex')}`;
const EVENTS = 3_000;
const BATCH = 100;

describe.skipIf(!postgres?.available)('pipeline across processes: one API, two workers, one Redis', () => {
  const database = `fl_mp_${randomBytes(5).toString('hex')}`;
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${database}`;
  const prefix = `fltest-mp-${randomBytes(5).toString('hex')}`;
  const env = {
    DATABASE_URL: url.href,
    REDIS_URL,
    FEEDLOOP_REDIS_PREFIX: prefix,
    FEEDLOOP_PIPELINE_BATCH: '50',
    // Sweeps every 100 ms re-enqueue anything pending for 200 ms: they race the regular jobs.
    FEEDLOOP_SWEEP_INTERVAL_SECONDS: '0.1',
    FEEDLOOP_SWEEP_GRACE_SECONDS: '0.2',
    FEEDLOOP_INIT_WORKSPACE: 'multiprocess',
    FEEDLOOP_INIT_SECRET_KEY: SECRET_KEY,
  };
  let api: ServerProcess;
  const workers: ServerProcess[] = [];
  const claimedBy = [0, 0];

  beforeAll(async () => {
    await withPgClient((c) => c.query(`CREATE DATABASE ${database}`));
    api = await startServerProcess(env, 60_000, ['--api-only']);
    for (const index of [0, 1]) {
      let pending = '';
      const onOutput = (chunk: string): void => {
        pending += chunk;
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          if (!line.includes('batch processed')) continue;
          claimedBy[index] = (claimedBy[index] ?? 0) + (JSON.parse(line) as { claimed: number }).claimed;
        }
      };
      workers.push(await startWorkerProcess({ ...env, LOG_LEVEL: 'debug' }, onOutput));
    }
  }, 120_000);

  afterAll(async () => {
    await killAllServers();
    await withPgClient((c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  });

  it('processes every event exactly once, split between the workers', async () => {
    const client = new JsonClient(api.url, { authorization: `Bearer ${SECRET_KEY}` });
    const responses = Array.from({ length: 30 }, (_, i) => ({ id: `mp-r${i}`, query: `q${i}`, answer: `a${i}`, contextDocumentIds: [`d${i % 3}`] }));
    expect((await client.request('POST', '/v1/responses/batch', { responses })).status).toBe(207);
    const types = [{ type: 'thumbs_up' }, { type: 'thumbs_down' }, { type: 'rating', payload: { rating: 2 } }];
    const sends = [];
    for (let start = 0; start < EVENTS; start += BATCH) {
      const events = Array.from({ length: BATCH }, (_, j) => ({
        id: `mp-e${start + j}`,
        responseId: `mp-r${(start + j) % 30}`,
        userId: `mp-u${start + j}`,
        ...types[(start + j) % types.length],
      }));
      sends.push(client.request('POST', '/v1/feedback/batch', { events }));
    }
    const answers = await Promise.all(sends);
    expect(answers.every((a) => a.status === 207)).toBe(true);

    const count = (sql: string) => withPgClient(async (c) => Number((await c.query<{ n: string }>(sql)).rows[0]?.n), url.href);
    await within(
      (async () => {
        while ((await count('SELECT count(*) AS n FROM pipeline_pending')) > 0 || (await count('SELECT count(*) AS n FROM pipeline_effects')) > 0)
          await new Promise((r) => setTimeout(r, 100));
      })(),
      60_000,
      'the workers to drain the outbox',
    );
    await new Promise((r) => setTimeout(r, 500)); // let the last log lines arrive

    expect(await count('SELECT count(*) AS n FROM feedback_signals')).toBe(EVENTS);
    expect(await count('SELECT count(DISTINCT event_id) AS n FROM feedback_signals')).toBe(EVENTS);
    // Each worker claimed a share, and the claims add up to the events: none was taken twice.
    expect(claimedBy[0]).toBeGreaterThan(0);
    expect(claimedBy[1]).toBeGreaterThan(0);
    expect((claimedBy[0] ?? 0) + (claimedBy[1] ?? 0)).toBe(EVENTS);
    // Live counters in Redis and the document tallies counted each event once.
    // Live counters are per UTC day (the event's own): a run across midnight counts on two days.
    const days = await withPgClient(
      async (c) => (await c.query<{ day: string }>(`SELECT DISTINCT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM feedback_events`)).rows.map((r) => r.day),
      url.href,
    );
    let live = 0;
    for (const day of days) live += ((await client.request('GET', `/v1/stats/live?day=${day}`)).body as { total: number }).total;
    expect(live).toBe(EVENTS);
    expect(await count('SELECT sum(positive + negative + neutral) AS n FROM document_effectiveness')).toBe(EVENTS);
    // Graceful shutdown: SIGTERM drains and exits 0.
    for (const w of workers) w.signal('SIGTERM');
    const exits = await Promise.all(workers.map((w) => within(w.exited, 20_000, `worker ${w.pid} exit`)));
    expect(exits.map((e) => e.code)).toEqual([0, 0]);
  }, 120_000);
});
