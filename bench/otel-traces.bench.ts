/**
 * Benchmark: OpenTelemetry traces through `POST /v1/traces` (OTLP/HTTP protobuf), in spans per
 * second, beside batched feedback (`POST /v1/feedback/batch` ×1,000) in events per second, against
 * the same feedloop server (production profile, API only, fresh Postgres database) in the same run.
 * Each OTLP request carries 100 traces of two spans (a root span with the question and answer as
 * OpenInference `input.value`/`output.value` and a user, and a GenAI `chat` span with its model and
 * messages), as a BatchSpanProcessor would send them; every trace becomes a new response. The
 * bodies are encoded before the clock starts by OpenTelemetry's generated protobuf code.
 *
 * Run: npm run build && node --import tsx bench/otel-traces.bench.ts
 * Knobs: BENCH_DATABASE_URL, BENCH_DURATION_MS (10000), BENCH_OTEL_CLIENTS (4).
 */
import type http from 'node:http';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { createFreshDatabase } from './bench-database.js';
import { ROOT, dec, envInt, int, isMain, keepAliveAgent, sleep, startFeedloop, token, type BenchResult, type ChildServer } from './bench-server.js';
import { makeEvent, registerResponses, type WireEvent } from './bench-workload.js';

const TRACES_PER_REQUEST = 100;
const SPANS_PER_TRACE = 2;
const EVENTS_PER_REQUEST = 1_000;
const RESPONSES = 1_000;
const WARMUP_REQUESTS = 5;
/** Bodies built per path; a run stops early when they run out (said in the output). */
const MAX_REQUESTS = 2_000;

// The server's own OTLP protobuf code (a dependency of packages/server), resolved from there.
const otlpRoot: unknown = createRequire(resolve(ROOT, 'packages/server/package.json'))('@opentelemetry/otlp-transformer/build/src/generated/root.js');
const v1 = (otlpRoot as {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: { encode(m: unknown): { finish(): Uint8Array }; fromObject(o: unknown): unknown } } } } } };
}).opentelemetry.proto.collector.trace.v1;

const str = (key: string, value: string) => ({ key, value: { stringValue: value } });

/** One OTLP request body: `TRACES_PER_REQUEST` traces of a root and a chat span. */
function otlpBody(runId: string, request: number): Buffer {
  const now = BigInt(Date.now()) * 1_000_000n;
  const spans = [];
  for (let t = 0; t < TRACES_PER_REQUEST; t++) {
    const n = request * TRACES_PER_REQUEST + t;
    const traceId = Buffer.from(`${runId}${n.toString(16).padStart(24, '0')}`, 'hex');
    const root = Buffer.from(`1${n.toString(16).padStart(15, '0')}`, 'hex');
    const child = Buffer.from(`2${n.toString(16).padStart(15, '0')}`, 'hex');
    spans.push({
      traceId,
      spanId: root,
      name: 'POST /ask',
      kind: 2,
      startTimeUnixNano: String(now),
      endTimeUnixNano: String(now + 900_000_000n),
      attributes: [str('input.value', `How do I change the plan of account ${n}?`), str('output.value', `Open Billing, choose Plan, and confirm (${n}).`), str('user.id', `user-${n % 5_000}`)],
    });
    spans.push({
      traceId,
      spanId: child,
      parentSpanId: root,
      name: 'chat gpt-4o-mini',
      kind: 3,
      startTimeUnixNano: String(now + 100_000_000n),
      endTimeUnixNano: String(now + 800_000_000n),
      attributes: [
        str('gen_ai.operation.name', 'chat'),
        str('gen_ai.request.model', 'gpt-4o-mini'),
        str('gen_ai.input.messages', JSON.stringify([{ role: 'system', parts: [{ type: 'text', content: 'You help with billing.' }] }, { role: 'user', parts: [{ type: 'text', content: `change plan ${n}` }] }])),
        str('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: `Billing > Plan (${n})` }] }])),
      ],
    });
  }
  const message = v1.ExportTraceServiceRequest.fromObject({
    resourceSpans: [{ resource: { attributes: [str('service.name', 'bench')] }, scopeSpans: [{ scope: { name: 'bench' }, spans }] }],
  });
  return Buffer.from(v1.ExportTraceServiceRequest.encode(message).finish());
}

/** One POST; resolves with the status and body. */
function send(agent: http.Agent, url: string, path: string, key: string, contentType: string, body: Buffer): Promise<{ status: number; body: Buffer }> {
  const target = new URL(path, url);
  return new Promise((resolve, reject) => {
    const req = request(
      { agent, host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { 'content-type': contentType, 'content-length': body.length, authorization: `Bearer ${key}` } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

interface Run {
  requests: number;
  elapsedMs: number;
  ranOut: boolean;
  problem: string | undefined;
}

/** Sends `bodies[from, to)` from `clients` keep-alive connections until `durationMs`; `ok` judges each answer. */
async function load(
  server: ChildServer,
  key: string,
  path: string,
  contentType: string,
  bodies: Buffer[],
  range: [number, number],
  clients: number,
  durationMs: number,
  ok: (status: number, body: Buffer) => string | undefined,
): Promise<Run> {
  const agent = keepAliveAgent(clients);
  const run: Run = { requests: 0, elapsedMs: 0, ranOut: false, problem: undefined };
  let next = range[0];
  const t0 = performance.now();
  let last = t0;
  const worker = async (): Promise<void> => {
    while (performance.now() < t0 + durationMs) {
      if (next >= range[1]) {
        run.ranOut = true;
        return;
      }
      const res = await send(agent, server.url, path, key, contentType, bodies[next++] as Buffer);
      last = performance.now();
      run.requests++;
      run.problem ??= ok(res.status, res.body);
    }
  };
  await Promise.all(Array.from({ length: clients }, worker));
  run.elapsedMs = last - t0;
  agent.destroy();
  return run;
}

/** OTLP answers a request taken whole with 200 and an empty `ExportTraceServiceResponse`. */
const otlpOk = (status: number, body: Buffer): string | undefined => (status === 200 && body.length === 0 ? undefined : `HTTP ${status}, ${body.length} bytes`);

const batchOk = (status: number, body: Buffer): string | undefined => {
  if (status !== 207) return `HTTP ${status}: ${body.toString().slice(0, 200)}`;
  const { results } = JSON.parse(body.toString()) as { results: Array<{ status: string }> };
  const bad = results.find((r) => r.status !== 'accepted');
  return bad ? `an event ${bad.status}` : undefined;
};

/** Runs the benchmark; returns spans/s through /v1/traces with events/s through the batch route as the baseline. */
export async function runOtelTracesBench(): Promise<BenchResult[]> {
  const durationMs = envInt('BENCH_DURATION_MS', 10_000);
  const clients = envInt('BENCH_OTEL_CLIENTS', 4);
  const runId = token(4);
  const key = `fl_sk_bench_${token(16)}`;
  const db = await createFreshDatabase();
  let server: ChildServer | undefined;
  try {
    server = await startFeedloop({ databaseUrl: db.url, secretKey: key });
    const responses = await registerResponses(server.url, key, runId, RESPONSES);
    const total = WARMUP_REQUESTS + MAX_REQUESTS;
    const otlp = Array.from({ length: total }, (_, r) => otlpBody(runId, r));
    const occurredAt = new Date().toISOString();
    const batches = Array.from({ length: total }, (_, b) => {
      const events: WireEvent[] = [];
      for (let i = 0; i < EVENTS_PER_REQUEST; i++) events.push(makeEvent(b * EVENTS_PER_REQUEST + i, runId, responses, occurredAt));
      return Buffer.from(JSON.stringify({ events }));
    });

    const warmOtlp = await load(server, key, '/v1/traces', 'application/x-protobuf', otlp, [0, WARMUP_REQUESTS], clients, 30_000, otlpOk);
    const warmBatch = await load(server, key, '/v1/feedback/batch', 'application/json', batches, [0, WARMUP_REQUESTS], clients, 30_000, batchOk);
    if (warmOtlp.problem || warmBatch.problem) throw new Error(`warm-up: ${warmOtlp.problem ?? warmBatch.problem}`);
    // Alternating halves (traces, feedback, feedback, traces): neither path gets the fresher
    // database or the quieter minute of a shared machine.
    const half = Math.round(durationMs / 2);
    const runTraces = (from: number) => load(server as ChildServer, key, '/v1/traces', 'application/x-protobuf', otlp, [from, total], clients, half, otlpOk);
    const runFeedback = (from: number) => load(server as ChildServer, key, '/v1/feedback/batch', 'application/json', batches, [from, total], clients, half, batchOk);
    const t1 = await runTraces(WARMUP_REQUESTS);
    const f1 = await runFeedback(WARMUP_REQUESTS);
    const f2 = await runFeedback(WARMUP_REQUESTS + f1.requests);
    const t2 = await runTraces(WARMUP_REQUESTS + t1.requests);
    const sum = (a: Run, b: Run): Run => ({ requests: a.requests + b.requests, elapsedMs: a.elapsedMs + b.elapsedMs, ranOut: a.ranOut || b.ranOut, problem: a.problem ?? b.problem });
    const traces = sum(t1, t2);
    const feedback = sum(f1, f2);
    if (traces.problem || feedback.problem) throw new Error(`run: ${traces.problem ?? feedback.problem}`);

    const spansPerS = (traces.requests * TRACES_PER_REQUEST * SPANS_PER_TRACE) / (traces.elapsedMs / 1000);
    const eventsPerS = (feedback.requests * EVENTS_PER_REQUEST) / (feedback.elapsedMs / 1000);
    const ratio = spansPerS / eventsPerS;
    console.log(`OTLP traces (protobuf): ${int(spansPerS)} spans/s (${int(spansPerS / SPANS_PER_TRACE)} traces → responses/s)  |  POST /v1/feedback/batch: ${int(eventsPerS)} events/s  |  ratio ${dec(ratio)}`);
    console.log(
      `  ${int(traces.requests)} OTLP requests × ${TRACES_PER_REQUEST} traces × ${SPANS_PER_TRACE} spans in ${dec(traces.elapsedMs / 1000, 1)} s${traces.ranOut ? ' (all prebuilt bodies sent)' : ''}; ` +
        `${int(feedback.requests)} batch requests × ${int(EVENTS_PER_REQUEST)} events in ${dec(feedback.elapsedMs / 1000, 1)} s${feedback.ranOut ? ' (all prebuilt bodies sent)' : ''}; ${clients} clients each`,
    );
    return [{ name: 'OTLP traces (POST /v1/traces, protobuf, 200 spans a request)', value: spansPerS, unit: 'spans/s', baseline: eventsPerS, baselineLabel: 'events/s feedback/batch', ratio }];
  } catch (err) {
    if (server) process.stderr.write(`feedloop output:\n${server.output()}\n`);
    throw err;
  } finally {
    await server?.stop().catch(() => undefined);
    await sleep(100);
    await db.drop();
  }
}

if (isMain(import.meta.url)) {
  await runOtelTracesBench();
}
