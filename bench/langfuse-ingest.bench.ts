/**
 * Benchmark (issue 26 §5): ingestion through the Langfuse drop-in, `POST /api/public/ingestion`,
 * vs feedloop's own `POST /v1/feedback/batch`, on one feedloop server (production profile, fresh
 * Postgres database) in the same run. Each Langfuse batch holds 333 traces as Langfuse's SDK
 * sends them (a trace-create with chat input and output, a generation-create naming the model, a
 * NUMERIC score-create: 999 events); each feedloop batch 1,000 feedback events on registered
 * responses (bench/bench-workload.ts). A few keep-alive clients send prebuilt bodies for
 * BENCH_DURATION_MS each; the figure is stored events per second (Langfuse: envelopes answered
 * 201), with responses created per second beside it.
 *
 * The bodies are built here in the wire format the Langfuse server validates (langfuse-js's
 * `{ batch: [{ id, type, timestamp, body }] }`); the compatibility itself is tested with the real
 * SDKs (packages/server/test/langfuse-sdk.test.ts). Keys: a secret key as Bearer (taken as Basic's
 * full access).
 *
 * Run: npm run build && node --import tsx bench/langfuse-ingest.bench.ts
 * Knobs: BENCH_DATABASE_URL, BENCH_DURATION_MS (10000), BENCH_BATCH_CLIENTS (4).
 */
import { createFreshDatabase } from './bench-database.js';
import { dec, envInt, int, isMain, keepAliveAgent, post, sleep, startFeedloop, token, type BenchResult, type ChildServer } from './bench-server.js';
import { answerText, makeEvent, registerResponses, type WireEvent } from './bench-workload.js';

const TRACES_PER_REQUEST = 333;
const EVENTS_PER_REQUEST = 1_000;
const RESPONSES = 1_000;
const WARMUP_REQUESTS = 4;
const MAX_REQUESTS = 400;

interface Run {
  requests: number;
  ok: number;
  refused: number;
  failedRequests: number;
  firstProblem: string | undefined;
  elapsedMs: number;
}

/** Sends bodies `from`..`to` from `clients` connections until `durationMs`; counts per-item outcomes with `count`. */
async function load(
  server: ChildServer,
  key: string,
  path: string,
  bodies: Buffer[],
  from: number,
  to: number,
  clients: number,
  durationMs: number,
  count: (text: string) => { ok: number; refused: number; problem?: string },
): Promise<Run> {
  const agent = keepAliveAgent(clients);
  const run: Run = { requests: 0, ok: 0, refused: 0, failedRequests: 0, firstProblem: undefined, elapsedMs: 0 };
  let next = from;
  const t0 = performance.now();
  let last = t0;
  const worker = async (): Promise<void> => {
    while (performance.now() < t0 + durationMs && next < to) {
      const res = await post(agent, server.url, path, key, bodies[next++] as Buffer);
      last = performance.now();
      run.requests++;
      if (res.status !== 207) {
        run.failedRequests++;
        run.firstProblem ??= `HTTP ${res.status}: ${res.text.slice(0, 300)}`;
        continue;
      }
      const c = count(res.text);
      run.ok += c.ok;
      run.refused += c.refused;
      if (c.problem) run.firstProblem ??= c.problem;
    }
  };
  await Promise.all(Array.from({ length: clients }, worker));
  run.elapsedMs = last - t0;
  agent.destroy();
  return run;
}

/** One Langfuse batch: `TRACES_PER_REQUEST` traces, each a trace, its generation and a score. */
function langfuseBody(runId: string, b: number, at: string): Buffer {
  const batch: unknown[] = [];
  for (let i = 0; i < TRACES_PER_REQUEST; i++) {
    const n = b * TRACES_PER_REQUEST + i;
    const traceId = `lf-${runId}-${n}`;
    const messages = [
      { role: 'system', content: 'You are a support agent.' },
      { role: 'user', content: `How do I change my plan? (#${n})` },
    ];
    const output = { role: 'assistant', content: answerText(n) };
    batch.push(
      { id: `${traceId}-t`, type: 'trace-create', timestamp: at, body: { id: traceId, timestamp: at, name: 'support-chat', userId: `user-${n % 5_000}`, sessionId: `sess-${n % 997}`, input: messages, output, metadata: { tenant: 'acme' }, tags: ['bench'], environment: 'default' } },
      { id: `${traceId}-g`, type: 'generation-create', timestamp: at, body: { id: `${traceId}-gen`, traceId, name: 'llm', startTime: at, model: n % 3 === 0 ? 'gpt-large' : 'gpt-small', input: messages, output, environment: 'default' } },
      { id: `${traceId}-s`, type: 'score-create', timestamp: at, body: { id: `${traceId}-score`, traceId, name: 'helpfulness', value: (n % 10) / 10, dataType: 'NUMERIC', environment: 'default' } },
    );
  }
  return Buffer.from(JSON.stringify({ batch, metadata: { batch_size: batch.length, sdk_name: 'langfuse-js' } }));
}

const langfuseCount = (text: string) => {
  const { successes, errors } = JSON.parse(text) as { successes: unknown[]; errors: Array<{ status: number; error: string; message: string }> };
  const first = errors[0];
  return { ok: successes.length, refused: errors.length, ...(first ? { problem: `${first.status} ${first.error}: ${first.message}` } : {}) };
};

const feedbackCount = (text: string) => {
  const { results } = JSON.parse(text) as { results: Array<{ status: string; error?: { code: string; message: string } }> };
  const bad = results.filter((r) => r.status !== 'accepted' && r.status !== 'duplicate');
  const first = bad[0];
  return { ok: results.length - bad.length, refused: bad.length, ...(first ? { problem: `${first.status} ${first.error?.code}: ${first.error?.message}` } : {}) };
};

/** Runs the benchmark: the Langfuse path, then feedloop's batch route, on one server. */
export async function runLangfuseIngestBench(): Promise<BenchResult[]> {
  const durationMs = envInt('BENCH_DURATION_MS', 10_000);
  const clients = envInt('BENCH_BATCH_CLIENTS', 4);
  const runId = token(4);
  const key = `fl_sk_bench_${token(16)}`;
  const db = await createFreshDatabase();
  let server: ChildServer | undefined;
  try {
    server = await startFeedloop({ databaseUrl: db.url, secretKey: key });
    const responses = await registerResponses(server.url, key, runId, RESPONSES);
    const at = new Date().toISOString();
    const total = WARMUP_REQUESTS + MAX_REQUESTS;
    const lfBodies = Array.from({ length: total }, (_, b) => langfuseBody(runId, b, at));
    const fbBodies = Array.from({ length: total }, (_, b) => {
      const events: WireEvent[] = [];
      for (let i = 0; i < EVENTS_PER_REQUEST; i++) events.push(makeEvent(b * EVENTS_PER_REQUEST + i, runId, responses, at));
      return Buffer.from(JSON.stringify({ events }));
    });

    const lfWarm = await load(server, key, '/api/public/ingestion', lfBodies, 0, WARMUP_REQUESTS, clients, 60_000, langfuseCount);
    const fbWarm = await load(server, key, '/v1/feedback/batch', fbBodies, 0, WARMUP_REQUESTS, clients, 60_000, feedbackCount);
    if (lfWarm.refused + lfWarm.failedRequests + fbWarm.refused + fbWarm.failedRequests > 0) throw new Error(`warm-up: ${lfWarm.firstProblem ?? fbWarm.firstProblem}`);
    const lf = await load(server, key, '/api/public/ingestion', lfBodies, WARMUP_REQUESTS, total, clients, durationMs, langfuseCount);
    const fb = await load(server, key, '/v1/feedback/batch', fbBodies, WARMUP_REQUESTS, total, clients, durationMs, feedbackCount);
    const lfRate = lf.ok / (lf.elapsedMs / 1000);
    const fbRate = fb.ok / (fb.elapsedMs / 1000);
    const tracesPerS = lfRate / 3;
    console.log(`Langfuse ingestion: ${int(lfRate)} events/s (${int(tracesPerS)} traces/s as responses, each with a generation and a score)  |  POST /v1/feedback/batch: ${int(fbRate)} events/s  |  ratio ${dec(lfRate / fbRate)}`);
    console.log(
      `  Langfuse: ${int(lf.requests)} requests × ${TRACES_PER_REQUEST * 3} events, refused ${int(lf.refused)}, failed requests ${lf.failedRequests}${lf.firstProblem ? ` (${lf.firstProblem})` : ''}; ` +
        `feedback batch: ${int(fb.requests)} requests × ${EVENTS_PER_REQUEST} events, refused ${int(fb.refused)}, failed requests ${fb.failedRequests}; ${clients} clients, ${dec(durationMs / 1000, 0)} s each`,
    );
    return [
      {
        name: 'Langfuse /api/public/ingestion (trace + generation + score)',
        value: lfRate,
        unit: 'events/s',
        baseline: fbRate,
        ratio: lfRate / fbRate,
        baselineLabel: 'events/s POST /v1/feedback/batch',
      },
    ];
  } finally {
    if (server) await server.stop();
    await sleep(100);
    await db.drop();
  }
}

if (isMain(import.meta.url)) {
  await runLangfuseIngestBench();
}
