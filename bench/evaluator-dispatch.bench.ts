/**
 * Benchmark (issue 28, "Tests and figures"): evaluator dispatch throughput against a local
 * endpoint that answers at once, vs webhook delivery throughput to the same kind of endpoint in
 * the same run, on one feedloop server per profile (embedded: `feedloop start` on PGlite with the
 * in-process queue; production: an API node and a worker on Postgres + Redis/BullMQ).
 *
 * - The endpoint is a plain `node:http` server in this process that answers every POST at once
 *   with `{"thumbs":"up"}` (a valid pointwise thumbs answer; a webhook takes any 2xx) and counts
 *   what it got by `X-Feedloop-Event` and `X-Feedloop-Delivery`. Its own capacity is measured
 *   first (keep-alive clients in this same process, so a lower bound): it must be far above both
 *   figures, or it would be the bottleneck.
 * - Baseline, webhooks: a webhook subscribed to `feedback.submitted`; N thumbs events on
 *   registered responses are sent through `POST /v1/feedback/batch` (BENCH_JUDGE_BATCH a
 *   request, one client); the clock runs from the first request until the endpoint has got all
 *   N distinct deliveries (each event processed by the pipeline, then delivered).
 * - Dispatch: the webhook deleted, one pointwise thumbs evaluator (sample 1, ratePerMinute
 *   10,000, so the budget never binds); N new responses through `POST /v1/responses/batch` (the
 *   same batch size); the clock runs from the first request until the evaluator shows N calls
 *   `done` (each answered and its judge event written) and `GET /v1/pipeline` shows nothing
 *   pending (the judge events processed).
 * - A warm-up of BENCH_JUDGE_WARMUP items goes through each path first, untimed.
 *
 * Both paths have the same shape (an outbox row, a claim with a lease, 8 parallel POSTs), so
 * the ratio says what a judge's call costs beyond a delivery: its planning, the call's body read
 * from the response, and the answer written back through the ingest path and processed.
 *
 * Run: npm run build && node --import tsx bench/evaluator-dispatch.bench.ts
 * Knobs: BENCH_JUDGE_N (2000), BENCH_JUDGE_BATCH (100), BENCH_JUDGE_WARMUP (100),
 * BENCH_JUDGE_STORES (pglite,postgres), BENCH_DATABASE_URL, BENCH_REDIS_URL.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFreshDatabase } from './bench-database.js';
import { batchSizeStats, describeBatchStats, diffBatchStats, fetchMetrics } from './bench-measure.js';
import {
  benchStores,
  dec,
  envInt,
  int,
  isMain,
  keepAliveAgent,
  LOOPBACK,
  post,
  sleep,
  startEmbeddedFeedloop,
  startFeedloop,
  startFeedloopWorker,
  token,
  type BenchResult,
  type ChildServer,
} from './bench-server.js';
import { makeResponses, registerResponses } from './bench-workload.js';

const POLL_MS = 50;
const RUN_TIMEOUT_MS = 600_000;
const CAPACITY_REQUESTS = 20_000;
const CAPACITY_CLIENTS = 8;
const ANSWER = Buffer.from(JSON.stringify({ thumbs: 'up' }));
/** Lets the servers send to the loopback endpoint (docs/webhooks.md, address rules). */
const ALLOW_PRIVATE = { FEEDLOOP_WEBHOOK_ALLOW_PRIVATE: 'true' };

/** The local endpoint: answers every POST at once, counts distinct deliveries per event type. */
interface Endpoint {
  url: string;
  /** Distinct `X-Feedloop-Delivery` ids seen for an `X-Feedloop-Event`. */
  seen(event: string): number;
  /** Requests answered in all (attempts included). */
  requests(): number;
  /** Forgets what it saw: a delivery id is a row id, so the next server's ids repeat the last one's. */
  reset(): void;
  close(): Promise<void>;
}

async function startEndpoint(): Promise<Endpoint> {
  const deliveries = new Map<string, Set<string>>();
  let requests = 0;
  const server = http.createServer((req, res) => {
    // Read the body to its end (a real judge would), then answer.
    req.on('data', () => undefined);
    req.on('end', () => {
      requests++;
      const event = String(req.headers['x-feedloop-event'] ?? 'none');
      const id = String(req.headers['x-feedloop-delivery'] ?? requests);
      let set = deliveries.get(event);
      if (!set) deliveries.set(event, (set = new Set()));
      set.add(id);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': ANSWER.length });
      res.end(ANSWER);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, LOOPBACK, () => r()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://${LOOPBACK}:${port}/judge`,
    seen: (event) => deliveries.get(event)?.size ?? 0,
    requests: () => requests,
    reset: () => deliveries.clear(),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The endpoint's own capacity: keep-alive POSTs of a call-sized body from this process (a lower bound: client and server share a thread). */
async function endpointCapacity(endpoint: Endpoint): Promise<number> {
  const agent = keepAliveAgent(CAPACITY_CLIENTS);
  const body = JSON.stringify({ callId: 1, response: makeResponses('cap', 1)[0] });
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CAPACITY_CLIENTS }, async () => {
      while (next++ < CAPACITY_REQUESTS) {
        const res = await post(agent, endpoint.url, '/judge', 'none', body);
        if (res.status !== 200) throw new Error(`endpoint answered ${res.status}`);
      }
    }),
  );
  agent.destroy();
  return CAPACITY_REQUESTS / ((performance.now() - t0) / 1000);
}

async function api<T>(server: ChildServer, key: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 500)}`);
  return (text ? JSON.parse(text) : {}) as T;
}

/** Polls `check` every POLL_MS until it is true; throws after RUN_TIMEOUT_MS with `state()`. */
async function until(check: () => Promise<boolean> | boolean, state: () => Promise<string> | string): Promise<void> {
  const deadline = performance.now() + RUN_TIMEOUT_MS;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out: ${await state()}`);
    await sleep(POLL_MS);
  }
}

/** Sends `bodies` one after the other (one client), each a 207 with every item accepted/created. */
async function sendAll(server: ChildServer, key: string, path: string, bodies: string[], ok: string): Promise<void> {
  const agent = keepAliveAgent(1);
  try {
    for (const body of bodies) {
      const res = await post(agent, server.url, path, key, body);
      if (res.status !== 207) throw new Error(`${path}: HTTP ${res.status} ${res.text.slice(0, 300)}`);
      const { results } = JSON.parse(res.text) as { results: Array<{ status: string }> };
      const bad = results.filter((r) => r.status !== ok);
      if (bad.length > 0) throw new Error(`${path}: ${bad.length} items not ${ok}: ${res.text.slice(0, 300)}`);
    }
  } finally {
    agent.destroy();
  }
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Webhook delivery: `n` thumbs events → n `feedback.submitted` deliveries; per second. */
async function webhookRun(server: ChildServer, key: string, endpoint: Endpoint, runId: string, label: string, n: number, batch: number, seenBefore: number): Promise<number> {
  const responses = await registerResponses(server.url, key, `${runId}-${label}`, Math.min(n, 1_000));
  const events = Array.from({ length: n }, (_, i) => ({
    id: `ev-${runId}-${label}-${i}`,
    responseId: (responses[i % responses.length] as { id: string }).id,
    userId: `user-${label}-${i}`,
    type: 'thumbs_up',
    payload: {},
  }));
  const bodies = chunks(events, batch).map((events) => JSON.stringify({ events }));
  const t0 = performance.now();
  await sendAll(server, key, '/v1/feedback/batch', bodies, 'accepted');
  await until(
    () => endpoint.seen('feedback.submitted') >= seenBefore + n,
    () => `${endpoint.seen('feedback.submitted') - seenBefore} of ${n} webhook deliveries`,
  );
  return n / ((performance.now() - t0) / 1000);
}

/** Evaluator dispatch: `n` new responses → n calls done and their judge events processed; per second. */
async function dispatchRun(server: ChildServer, key: string, evaluatorId: string, runId: string, label: string, n: number, batch: number, doneBefore: number): Promise<{ rate: number; callsDoneAt: number }> {
  const responses = makeResponses(`${runId}-${label}`, n);
  const bodies = chunks(responses, batch).map((responses) => JSON.stringify({ responses }));
  const counts = async () => (await api<{ calls: { pending: number; done: number; dead: number } }>(server, key, 'GET', `/v1/evaluators/${evaluatorId}`)).calls;
  const pending = async () => (await api<{ backlog: { pending: number } }>(server, key, 'GET', '/v1/pipeline')).backlog.pending;
  const t0 = performance.now();
  await sendAll(server, key, '/v1/responses/batch', bodies, 'created');
  let last = { pending: 0, done: 0, dead: 0 };
  await until(
    async () => {
      last = await counts();
      if (last.dead > 0) throw new Error(`${last.dead} evaluator calls dead-lettered`);
      return last.done >= doneBefore + n;
    },
    () => `${last.done - doneBefore} of ${n} calls done, ${last.pending} pending`,
  );
  const callsDoneAt = performance.now();
  let backlog = 0;
  await until(
    async () => (backlog = await pending()) === 0,
    () => `${backlog} events pending`,
  );
  const end = performance.now();
  return { rate: n / ((end - t0) / 1000), callsDoneAt: n / ((callsDoneAt - t0) / 1000) };
}

/** One profile: the endpoint's capacity, webhooks, then the evaluator, on one server. */
async function runProfile(store: 'pglite' | 'postgres', endpoint: Endpoint, capacity: number): Promise<BenchResult[]> {
  const n = envInt('BENCH_JUDGE_N', 2_000);
  const batch = envInt('BENCH_JUDGE_BATCH', 100);
  const warmup = envInt('BENCH_JUDGE_WARMUP', 100);
  const runId = token(4);
  const key = `fl_sk_bench_${token(16)}`;
  let server: ChildServer | undefined;
  let worker: ChildServer | undefined;
  let cleanup: () => Promise<void> = async () => undefined;
  try {
    if (store === 'pglite') {
      const dataDir = await mkdtemp(join(tmpdir(), 'fl-bench-judges-'));
      cleanup = () => rm(dataDir, { recursive: true, force: true });
      server = await startEmbeddedFeedloop({ dataDir, secretKey: key, env: ALLOW_PRIVATE });
    } else {
      const db = await createFreshDatabase();
      cleanup = () => db.drop();
      const redisPrefix = `flbench-${token()}`;
      server = await startFeedloop({ databaseUrl: db.url, secretKey: key, redisPrefix, env: ALLOW_PRIVATE });
      worker = await startFeedloopWorker({ databaseUrl: db.url, redisPrefix, env: ALLOW_PRIVATE });
    }

    endpoint.reset();
    const hook = await api<{ id: string }>(server, key, 'POST', '/v1/webhooks', { url: endpoint.url, events: ['feedback.submitted'] });
    const seen0 = endpoint.seen('feedback.submitted');
    await webhookRun(server, key, endpoint, runId, 'wwarm', warmup, batch, seen0);
    const seen1 = endpoint.seen('feedback.submitted');
    // The server's group commits per phase (embedded: every commit; production: the API node's, not the worker's judge answers).
    const commits = async () => batchSizeStats(await fetchMetrics((server as ChildServer).url));
    const w0 = await commits();
    const webhookRate = await webhookRun(server, key, endpoint, runId, 'w', n, batch, seen1);
    const webhookCommits = diffBatchStats(await commits(), w0);
    await api(server, key, 'DELETE', `/v1/webhooks/${hook.id}`);

    const evaluator = await api<{ id: string }>(server, key, 'POST', '/v1/evaluators', {
      name: 'bench-judge',
      url: endpoint.url,
      kind: 'pointwise',
      output: 'thumbs',
      sample: 1,
      ratePerMinute: 10_000,
    });
    await dispatchRun(server, key, evaluator.id, runId, 'jwarm', warmup, batch, 0);
    const j0 = await commits();
    const judge = await dispatchRun(server, key, evaluator.id, runId, 'j', n, batch, warmup);
    const judgeCommits = diffBatchStats(await commits(), j0);

    const profile = store === 'pglite' ? 'embedded (PGlite)' : 'production (Postgres + Redis)';
    console.log(
      `${profile}: evaluator dispatch ${int(judge.rate)} calls/s (calls done alone ${int(judge.callsDoneAt)}/s)  |  webhook delivery ${int(webhookRate)} deliveries/s  |  ratio ${dec(judge.rate / webhookRate)}` +
        `  (${int(n)} items, batches of ${batch}; endpoint capacity ≥ ${int(capacity)} requests/s)`,
    );
    console.log(`  feedback group commits (this server process): webhooks phase ${describeBatchStats(webhookCommits)}; dispatch phase ${describeBatchStats(judgeCommits)}`);
    return [
      {
        name: `evaluator dispatch, ${profile}`,
        value: judge.rate,
        unit: 'calls/s',
        baseline: webhookRate,
        ratio: judge.rate / webhookRate,
        baselineLabel: 'deliveries/s webhooks',
      },
    ];
  } finally {
    if (worker) await worker.stop();
    if (server) await server.stop();
    await sleep(100);
    await cleanup();
  }
}

/** Runs the benchmark on each store of BENCH_JUDGE_STORES (default both). */
export async function runEvaluatorDispatchBench(): Promise<BenchResult[]> {
  const endpoint = await startEndpoint();
  try {
    const capacity = await endpointCapacity(endpoint);
    console.log(`endpoint: ${int(capacity)} requests/s on its own (keep-alive, ${CAPACITY_CLIENTS} clients in the same process)`);
    const results: BenchResult[] = [];
    for (const store of benchStores('BENCH_JUDGE_STORES')) results.push(...(await runProfile(store, endpoint, capacity)));
    return results;
  } finally {
    await endpoint.close();
  }
}

if (isMain(import.meta.url)) {
  await runEvaluatorDispatchBench();
}
