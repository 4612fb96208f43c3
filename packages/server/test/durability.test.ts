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
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite } from '../src/db/pglite-client.js';
import { BACKENDS, POSTGRES_URL } from './harness.js';
import { JsonClient, killAllServers, startServerProcess, within, type ServerProcess } from './process-helpers.js';

const SECRET_KEY = `fl_sk_durability_${randomBytes(12).toString('hex')}`;
/** Concurrent HTTP clients of the load. */
const CLIENTS = 32;
/** Acknowledged events before the SIGKILL, and before the SIGTERM. */
const KILL_AFTER_ACKED = 1_500;
const TERM_AFTER_ACKED = 500;
/** Bounds of one load, whatever happens. */
const MAX_EVENTS_PER_LOAD = 20_000;
const LOAD_TIME_LIMIT_MS = 30_000;
const RESPONSES = 8;
const TEST_TIMEOUT_MS = 120_000;

interface WireEvent {
  id: string;
  responseId: string;
  type: string;
  userId?: string;
  targetId?: string;
  payload?: Record<string, unknown>;
}

interface SentRequest {
  kind: 'single' | 'batch';
  events: WireEvent[];
}

type Ack = 'accepted' | 'duplicate';

interface LoadReport {
  requests: SentRequest[];
  /** Event id → the answer that acknowledged it. */
  acked: Map<string, Ack>;
  signalled: boolean;
  ackedBeforeSignal: number;
  /** Events acknowledged by answers read after the signal was sent. */
  ackedAfterSignal: number;
  requestsOutstandingAtSignal: number;
  eventsOutstandingAtSignal: number;
  /** Requests (and their events) that got no answer: connection refused, reset or cut off. */
  failedRequests: number;
  failedEvents: number;
  /** Requests by HTTP status, `error` for no answer. */
  statuses: Record<string, number>;
  /** Answers that must never happen: rejections, malformed bodies, unexpected statuses. */
  problems: string[];
}

/** A small seeded PRNG (mulberry32), so a failing run can be replayed from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * A valid event of a random type. Each event has its own user (or none), so no two events share
 * a content fingerprint or a vote slot: the dedup window and vote replacement never merge them.
 */
function makeEvent(id: string, rnd: () => number): WireEvent {
  const base = { id, responseId: `resp-${Math.floor(rnd() * RESPONSES)}`, ...(rnd() < 0.8 ? { userId: `user-${id}` } : {}) };
  const n = Math.floor(rnd() * 1_000_000);
  switch (Math.floor(rnd() * 11)) {
    case 0:
      return { ...base, type: 'thumbs_up' };
    case 1:
      return { ...base, type: 'thumbs_down', payload: { comment: `wrong table ${n}`, category: 'accuracy' } };
    case 2:
      return { ...base, type: 'rating', payload: { rating: 1 + (n % 5) } };
    case 3:
      return { ...base, type: 'comment', payload: { comment: `comment ${id}` } };
    case 4: // no original: the edit distance is computed against the stored answer
      return { ...base, type: 'correction', payload: { corrected: `SELECT region, sum(amount) FROM sales WHERE year = ${1990 + (n % 40)} GROUP BY region` } };
    case 5:
      return { ...base, type: 'correction', payload: { original: 'SELECT 1', corrected: `SELECT ${n}`, format: 'sql' } };
    case 6:
      return { ...base, type: 'edit', payload: { edited: `edited answer ${n}` } };
    case 7:
      return { ...base, type: 'error_categories', payload: { categories: ['hallucination', 'wrong_context'] } };
    case 8:
      return { ...base, type: 'flag_irrelevant', targetId: `frag-${n % 50}`, payload: { reason: 'off topic' } };
    case 9:
      return { ...base, type: 'quality_scores', payload: { accuracy: n % 101 } };
    default:
      return { ...base, type: 'outcome', payload: { metric: 'conversion', value: n / 1000, source: 'integration' } };
  }
}

const isAck = (s: unknown): s is Ack => s === 'accepted' || s === 'duplicate';

/**
 * Reads one answer: the acknowledged events with their statuses, or the problems it shows.
 * Events without an acknowledgement in a well-formed answer (503) are simply unacknowledged.
 */
function readAnswer(req: SentRequest, status: number, body: unknown, problems: string[]): Map<string, Ack> {
  const acks = new Map<string, Ack>();
  const first = req.events[0] as WireEvent;
  if (status === 503) return acks;
  if (req.kind === 'single') {
    const b = body as { id?: unknown; status?: unknown } | undefined;
    if (status === 202 && b?.id === first.id && isAck(b.status)) acks.set(first.id, b.status);
    else problems.push(`single ${first.id}: ${status} ${JSON.stringify(body)}`);
    return acks;
  }
  const results = (body as { results?: unknown } | undefined)?.results;
  if (status !== 207 || !Array.isArray(results) || results.length !== req.events.length) {
    problems.push(`batch from ${first.id}: ${status} ${JSON.stringify(body).slice(0, 500)}`);
    return acks;
  }
  req.events.forEach((e, i) => {
    const r = results[i] as { id?: unknown; status?: unknown };
    if (r.id === e.id && isAck(r.status)) acks.set(e.id, r.status);
    else problems.push(`batch event ${e.id}: ${JSON.stringify(r)}`);
  });
  return acks;
}

const send = (client: JsonClient, req: SentRequest) =>
  req.kind === 'single' ? client.request('POST', '/v1/feedback', req.events[0]) : client.request('POST', '/v1/feedback/batch', { events: req.events });

/**
 * Runs {@link CLIENTS} clients, each sending single events and batches of 20-100 back to back.
 * Once `signalAfterAcked` events are acknowledged, a timer (so the moment is not tied to an
 * answer) calls `signal`; the clients then send nothing new and wait for their requests in flight.
 */
async function runLoad(client: JsonClient, opts: { prefix: string; seed: number; signalAfterAcked: number; signal: () => void }): Promise<LoadReport> {
  const rnd = prng(opts.seed);
  const report: LoadReport = {
    requests: [],
    acked: new Map(),
    signalled: false,
    ackedBeforeSignal: 0,
    ackedAfterSignal: 0,
    requestsOutstandingAtSignal: 0,
    eventsOutstandingAtSignal: 0,
    failedRequests: 0,
    failedEvents: 0,
    statuses: {},
    problems: [],
  };
  const outstanding = new Set<SentRequest>();
  let generated = 0;
  const deadline = Date.now() + LOAD_TIME_LIMIT_MS;
  const fire = (): void => {
    if (report.signalled) return;
    report.signalled = true;
    report.ackedBeforeSignal = report.acked.size;
    report.requestsOutstandingAtSignal = outstanding.size;
    for (const r of outstanding) report.eventsOutstandingAtSignal += r.events.length;
    opts.signal();
  };
  const trigger = setInterval(() => {
    if (report.acked.size >= opts.signalAfterAcked || Date.now() > deadline || generated >= MAX_EVENTS_PER_LOAD) fire();
  }, 1);

  const worker = async (): Promise<void> => {
    while (!report.signalled && generated < MAX_EVENTS_PER_LOAD) {
      const size = rnd() < 0.5 ? 1 : 20 + Math.floor(rnd() * 81);
      const events = Array.from({ length: size }, () => makeEvent(`${opts.prefix}-${generated++}`, rnd));
      const req: SentRequest = { kind: size === 1 && rnd() < 0.9 ? 'single' : 'batch', events };
      report.requests.push(req);
      outstanding.add(req);
      let answer;
      try {
        answer = await send(client, req);
      } catch (err) {
        // Before the signal every request must be answered.
        if (!report.signalled) report.problems.push(`request from ${events[0]?.id} failed before the signal: ${(err as Error).message}`);
        report.failedRequests++;
        report.failedEvents += events.length;
        report.statuses.error = (report.statuses.error ?? 0) + 1;
        continue;
      } finally {
        outstanding.delete(req);
      }
      report.statuses[answer.status] = (report.statuses[answer.status] ?? 0) + 1;
      if (answer.status === 503 && !report.signalled) report.problems.push(`request from ${events[0]?.id}: 503 before the signal`);
      const acks = readAnswer(req, answer.status, answer.body, report.problems);
      for (const [id, status] of acks) {
        // Every id is new and its content unique: a first submission is never a duplicate.
        if (status !== 'accepted') report.problems.push(`first submission of ${id} answered ${status}`);
        report.acked.set(id, status);
      }
      if (report.signalled) report.ackedAfterSignal += acks.size;
    }
  };
  try {
    await Promise.all(Array.from({ length: CLIENTS }, worker));
  } finally {
    clearInterval(trigger);
  }
  return report;
}

/** Sends every request again, as a client retrying would; returns each event's answer. */
async function replay(client: JsonClient, requests: SentRequest[], concurrency = 8): Promise<{ answers: Map<string, Ack>; problems: string[] }> {
  const answers = new Map<string, Ack>();
  const problems: string[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let req = requests[next++]; req !== undefined; req = requests[next++]) {
      try {
        const { status, body } = await send(client, req);
        const acks = readAnswer(req, status, body, problems);
        if (status === 503) problems.push(`retry from ${req.events[0]?.id}: 503`);
        for (const [id, s] of acks) answers.set(id, s);
      } catch (err) {
        problems.push(`retry from ${req.events[0]?.id}: ${(err as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { answers, problems };
}

/** All event ids a running server lists, page by page (content duplicates are not listed; the load makes none). */
async function listedIds(client: JsonClient): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await client.request('GET', `/v1/feedback?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(page.status).toBe(200);
    const body = page.body as { data: Array<{ id: string }>; nextCursor: string | null };
    for (const e of body.data) ids.push(e.id);
    cursor = body.nextCursor;
  } while (cursor !== null);
  return ids;
}

/** Ids stored more than once. */
function repeated(ids: string[]): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const id of ids) (seen.has(id) ? twice : seen).add(id);
  return [...twice];
}

const sentIds = (requests: SentRequest[]): string[] => requests.flatMap((r) => r.events.map((e) => e.id));
const sample = (ids: string[]): string[] => ids.slice(0, 20);

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
      return existsSync(path) ? readFileSync(path, 'utf8').trim() : undefined;
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
  const admin = async <T>(fn: (c: pg.Client) => Promise<T>, connectionString = POSTGRES_URL): Promise<T> => {
    const c = new pg.Client({ connectionString });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };
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
        const exit = await within(restarted.exited, 30_000, 'exit after SIGTERM');
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
            `statuses ${JSON.stringify(termed.statuses)}; exit 0 after ${exitMs} ms; ${stored.length} stored`,
        );
      },
      TEST_TIMEOUT_MS,
    );
  });
}
