/**
 * Durability: nothing acknowledged is ever lost. A real `feedloop start` process takes a load of
 * concurrent single and batch submissions and is SIGKILLed mid-load; after a restart on the same
 * data every acknowledged event is stored, a client's retry of every sent event is idempotent
 * (acknowledged ones answer `duplicate`), each id is stored exactly once, and a SIGTERM under load
 * finishes the in-flight writes and exits 0. Runs on PGlite (a data folder; the restart also takes
 * over the killed process's stale lock) and on Postgres (a database of its own).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite } from '../src/db/pglite-client.js';
import { BACKENDS, POSTGRES_URL, withPgClient } from './harness.js';
import { JsonClient, killAllServers, startServerProcess, within, type ServerProcess } from './process-helpers.js';
import {
  CLIENTS,
  KILL_AFTER_ACKED,
  TERM_AFTER_ACKED,
  RESPONSES,
  TEST_TIMEOUT_MS,
  type LoadReport,
  isAck,
  runLoad,
  replay,
  listedIds,
  repeated,
  sentIds,
  sample,
} from './durability-load.js';

const SECRET_KEY = `fl_sk_durability_${randomBytes(12).toString('hex')}`;


/** One database under test, with a way to read its stored event ids. */
interface Target {
  name: 'pglite' | 'postgres';
  available: boolean;
  setup(): Promise<void>;
  env(): Record<string, string>;
  /** Stored ids while the server runs (PGlite: through the API, since the server holds the folder). */
  idsLive(client: JsonClient): Promise<string[]>;
  /** Stored ids once the server has exited, straight from the database. */
  idsOffline(): Promise<string[]>;
  /** For PGlite, the pid in the data folder's lock file (undefined when there is none). */
  lockOwner(): string | undefined;
  teardown(): Promise<void>;
}

function pgliteTarget(): Target {
  let dir = '';
  return {
    name: 'pglite',
    available: true,
    async setup() {
      dir = mkdtempSync(join(tmpdir(), 'feedloop-durability-'));
    },
    env: () => ({ FEEDLOOP_DATA_DIR: dir }),
    idsLive: listedIds,
    async idsOffline() {
      const db = await openPglite(join(dir, 'pgdata'));
      try {
        return (await db.query<{ id: string }>('SELECT id FROM feedback_events')).map((r) => r.id);
      } finally {
        await db.close();
      }
    },
    lockOwner() {
      const path = join(dir, 'feedloop.lock');
      // The lock names its owner as JSON ({ pid, start, boot, token }): the pid is what is compared.
      return existsSync(path) ? String((JSON.parse(readFileSync(path, 'utf8')) as { pid: number }).pid) : undefined;
    },
    async teardown() {
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgresTarget(available: boolean): Target {
  const database = `fl_dur_${randomBytes(6).toString('hex')}`;
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${database}`;
  let created = false;
  const admin = withPgClient;
  const ids = () => admin(async (c) => (await c.query<{ id: string }>('SELECT id FROM feedback_events')).rows.map((r) => r.id), url.href);
  return {
    name: 'postgres',
    available,
    async setup() {
      await admin((c) => c.query(`CREATE DATABASE ${database}`));
      created = true;
    },
    env: () => ({ DATABASE_URL: url.href }),
    idsLive: ids,
    idsOffline: ids,
    lockOwner: () => undefined,
    async teardown() {
      if (created) await admin((c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
    },
  };
}

const postgresAvailable = BACKENDS.find((b) => b.name === 'postgres')?.available ?? false;

for (const target of [pgliteTarget(), postgresTarget(postgresAvailable)]) {
  describe.skipIf(!target.available)(`durability on ${target.name}`, () => {
    const env = (): Record<string, string> => ({
      ...target.env(),
      FEEDLOOP_INIT_WORKSPACE: 'durability',
      FEEDLOOP_INIT_SECRET_KEY: SECRET_KEY,
    });
    const auth = { authorization: `Bearer ${SECRET_KEY}` };
    const seed = Date.now() >>> 0;
    const clients: JsonClient[] = [];
    const connect = (server: ServerProcess): JsonClient => {
      const c = new JsonClient(server.url, auth, CLIENTS * 2);
      clients.push(c);
      return c;
    };
    let killed: LoadReport;
    let restarted: ServerProcess;
    let client: JsonClient;

    beforeAll(async () => {
      await target.setup();
    });
    afterAll(async () => {
      for (const c of clients) c.close();
      await killAllServers();
      await target.teardown();
    });

    it(
      'keeps every acknowledged event through a SIGKILL mid-load, and restarts on the same data',
      async () => {
        const first = await startServerProcess(env());
        const firstClient = connect(first);
        // The load sends implicit signals without a consent step (issue 11: new workspaces require one).
        await firstClient.request('PATCH', '/v1/workspace/settings', { implicitConsent: 'assumed' });
        for (let i = 0; i < RESPONSES; i++) {
          const res = await firstClient.request('POST', '/v1/responses', {
            id: `resp-${i}`,
            query: `sales by region, take ${i}`,
            answer: 'SELECT region, sum(amount) FROM sales GROUP BY region',
          });
          expect(res.status, JSON.stringify(res.body)).toBe(201);
        }

        const startedAt = Date.now();
        killed = await runLoad(firstClient, { prefix: `${target.name}-k`, seed, signalAfterAcked: KILL_AFTER_ACKED, signal: () => first.signal('SIGKILL') });
        const exit = await within(first.exited, 10_000, 'exit after SIGKILL');
        firstClient.close();

        expect(killed.problems, `seed ${seed}`).toEqual([]);
        expect(exit).toEqual({ code: null, signal: 'SIGKILL' });
        // The kill came from the load, not from a time or size limit, with requests in flight.
        expect(killed.ackedBeforeSignal).toBeGreaterThanOrEqual(KILL_AFTER_ACKED);
        expect(killed.requestsOutstandingAtSignal).toBeGreaterThan(0);
        expect(killed.failedEvents, 'the kill cut requests off, so the retries below include unacknowledged events').toBeGreaterThan(0);
        const sent = sentIds(killed.requests);
        expect(killed.acked.size).toBeLessThanOrEqual(sent.length);

        // PGlite: the killed process left its lock behind, and the restart takes it over.
        if (target.name === 'pglite') expect(target.lockOwner()).toBe(String(first.pid));
        restarted = await startServerProcess(env());
        client = connect(restarted);
        if (target.name === 'pglite') expect(target.lockOwner()).toBe(String(restarted.pid));

        const stored = await target.idsLive(client);
        const storedSet = new Set(stored);
        const lost = [...killed.acked.keys()].filter((id) => !storedSet.has(id));
        expect(sample(lost), `${lost.length} acknowledged events lost (seed ${seed})`).toEqual([]);
        const sentSet = new Set(sent);
        expect(sample(stored.filter((id) => !sentSet.has(id)))).toEqual([]);
        expect(sample(repeated(stored))).toEqual([]);

        console.info(
          `[durability ${target.name}] SIGKILL after ${Date.now() - startedAt} ms of load: ${sent.length} events sent in ${killed.requests.length} requests, ` +
            `${killed.ackedBeforeSignal} acked before the kill (+${killed.ackedAfterSignal} answers read after it), ` +
            `${killed.requestsOutstandingAtSignal} requests / ${killed.eventsOutstandingAtSignal} events in flight, ` +
            `${killed.failedRequests} requests / ${killed.failedEvents} events unanswered; ${stored.length} stored after restart`,
        );
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'answers a retry of every sent event idempotently and stores each id once',
      async () => {
        expect(killed, 'the SIGKILL test ran').toBeDefined();
        const sent = sentIds(killed.requests);
        const { answers, problems } = await replay(client, killed.requests);
        expect(problems).toEqual([]);
        expect(answers.size).toBe(sent.length);

        const notDuplicate = [...killed.acked.keys()].filter((id) => answers.get(id) !== 'duplicate');
        expect(sample(notDuplicate), 'acknowledged events must answer duplicate on retry').toEqual([]);
        const unacked = sent.filter((id) => !killed.acked.has(id));
        const unackedAnswers = unacked.map((id) => answers.get(id));
        expect(unackedAnswers.filter((s) => !isAck(s))).toEqual([]);

        const stored = await target.idsLive(client);
        expect(stored.length).toBe(sent.length);
        expect(sample(repeated(stored))).toEqual([]);
        const storedSet = new Set(stored);
        expect(sample(sent.filter((id) => !storedSet.has(id)))).toEqual([]);

        console.info(
          `[durability ${target.name}] retried ${sent.length} events in ${killed.requests.length} requests: ${killed.acked.size} acked ones all duplicate; ` +
            `of ${unacked.length} unacked, ${unackedAnswers.filter((s) => s === 'duplicate').length} duplicate (committed, answer lost) and ` +
            `${unackedAnswers.filter((s) => s === 'accepted').length} accepted; ${stored.length} stored, each once`,
        );
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'exits 0 on SIGTERM under load after finishing the writes in flight',
      async () => {
        expect(restarted, 'the SIGKILL test ran').toBeDefined();
        const startedAt = Date.now();
        let termAt = 0;
        const termed = await runLoad(client, {
          prefix: `${target.name}-t`,
          seed: seed + 1,
          signalAfterAcked: TERM_AFTER_ACKED,
          signal: () => {
            termAt = Date.now();
            restarted.signal('SIGTERM');
          },
        });
        // Every request in flight has its answer now; the server answered them with
        // `Connection: close`, so it exits without waiting for this client to hang up.
        const answeredMs = Date.now() - termAt;
        const exit = await within(restarted.exited, 15_000, 'exit after SIGTERM');
        const exitMs = Date.now() - termAt;
        client.close();

        expect(termed.problems, `seed ${seed + 1}`).toEqual([]);
        expect(exit, restarted.output()).toEqual({ code: 0, signal: null });
        expect(termed.ackedBeforeSignal).toBeGreaterThanOrEqual(TERM_AFTER_ACKED);
        // Requests the server was working on when the signal came were answered, not cut off.
        expect(termed.ackedAfterSignal).toBeGreaterThan(0);
        if (target.name === 'pglite') expect(target.lockOwner(), 'a graceful exit releases the lock').toBeUndefined();

        const stored = await target.idsOffline();
        const storedSet = new Set(stored);
        const sentBefore = sentIds(killed.requests);
        const sentNow = sentIds(termed.requests);
        const lost = [...termed.acked.keys()].filter((id) => !storedSet.has(id));
        expect(sample(lost), `${lost.length} acknowledged events lost at SIGTERM`).toEqual([]);
        expect(sample(sentBefore.filter((id) => !storedSet.has(id)))).toEqual([]);
        const sentAll = new Set([...sentBefore, ...sentNow]);
        expect(sample(stored.filter((id) => !sentAll.has(id)))).toEqual([]);
        expect(sample(repeated(stored))).toEqual([]);

        console.info(
          `[durability ${target.name}] SIGTERM after ${termAt - startedAt} ms of load: ${termed.ackedBeforeSignal} acked before, ` +
            `${termed.requestsOutstandingAtSignal} requests / ${termed.eventsOutstandingAtSignal} events in flight, ${termed.ackedAfterSignal} events acked after; ` +
            `statuses ${JSON.stringify(termed.statuses)}; in-flight answered ${answeredMs} ms and exit 0 ${exitMs} ms after the signal; ${stored.length} stored`,
        );
      },
      TEST_TIMEOUT_MS,
    );
  });
}
