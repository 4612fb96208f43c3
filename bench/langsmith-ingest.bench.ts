/**
 * Benchmark: ingestion through the LangSmith drop-in (issue 26 §3) vs `POST /v1/feedback/batch`,
 * in the same run, on the same server (production profile's API node, fresh Postgres database).
 *
 * - traces: `POST /langsmith/runs/batch` with 50 traces a request, each a root chain run (inputs
 *   and outputs) and a child llm run (the model), as the SDKs batch them: traces per second.
 * - feedback: `POST /langsmith/feedback`, one feedback a request, as `Client.createFeedback`
 *   sends it, on the traces just stored (half of them on the child run): feedback per second.
 * - baselines: `POST /v1/feedback/batch` with 1,000 thumbs a request on registered responses
 *   (events per second), and `POST /v1/feedback` with one `user_score` score a request, the
 *   like-for-like route of LangSmith's one-feedback-a-request.
 *
 * The requests are built here (the SDKs' bodies, as bench/ builds every load) so the three paths
 * share one HTTP client; the SDK itself is exercised by packages/server/test/langsmith-compat.test.ts.
 *
 * Run: npm run build && node --import tsx bench/langsmith-ingest.bench.ts
 * Knobs: BENCH_DATABASE_URL, BENCH_DURATION_MS (10000 per path), BENCH_CLIENTS (8).
 */
import { randomUUID } from 'node:crypto';
import { createFreshDatabase } from './bench-database.js';
import { dec, envInt, int, isMain, keepAliveAgent, post, token, type BenchResult, type ChildServer, startFeedloop } from './bench-server.js';
import { registerResponses, type ResponseRef } from './bench-workload.js';

const TRACES_PER_REQUEST = 50;
const EVENTS_PER_REQUEST = 1_000;
const BASELINE_RESPONSES = 1_000;

interface Rate {
  items: number;
  elapsedMs: number;
  failed: number;
  firstProblem: string | undefined;
}

/** Runs `clients` loops of `step` (which returns the items it stored) for `durationMs`. */
async function drive(clients: number, durationMs: number, step: (agent: ReturnType<typeof keepAliveAgent>) => Promise<{ items: number; problem?: string }>): Promise<Rate> {
  const agent = keepAliveAgent(clients);
  const rate: Rate = { items: 0, elapsedMs: 0, failed: 0, firstProblem: undefined };
  const t0 = performance.now();
  const deadline = t0 + durationMs;
  let last = t0;
  const loop = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const got = await step(agent);
      last = performance.now();
      rate.items += got.items;
      if (got.problem !== undefined) {
        rate.failed++;
        rate.firstProblem ??= got.problem;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: clients }, loop));
  } finally {
    agent.destroy();
  }
  rate.elapsedMs = last - t0;
  return rate;
}

/** A batch of traces as the SDKs send it to `/runs/batch`: root and child runs, created whole. */
function traceBatch(n: number): { body: string; runs: Array<{ root: string; llm: string }> } {
  const now = Date.now();
  const runs = Array.from({ length: n }, () => ({ root: randomUUID(), llm: randomUUID() }));
  const stamp = new Date(now).toISOString().replace(/[-:.]/g, '');
  const post = runs.flatMap(({ root, llm }, i) => [
    {
      id: root,
      trace_id: root,
      dotted_order: `${stamp}${root}`,
      name: 'rag',
      run_type: 'chain',
      start_time: now,
      end_time: now + 900,
      inputs: { question: `How do I reset my password? (#${i})` },
      outputs: { answer: 'Open Settings, then Security, then Reset password; a link arrives by email within a minute.' },
      extra: { metadata: { user_id: `user-${i % 500}`, thread_id: `thread-${i % 97}` } },
      tags: ['bench'],
      session_name: 'default',
    },
    {
      id: llm,
      trace_id: root,
      parent_run_id: root,
      dotted_order: `${stamp}${root}.${stamp}${llm}`,
      name: 'ChatOpenAI',
      run_type: 'llm',
      start_time: now + 10,
      end_time: now + 800,
      inputs: { messages: [{ role: 'user', content: `How do I reset my password? (#${i})` }] },
      outputs: { generations: [[{ text: 'Open Settings, then Security, then Reset password.' }]] },
      extra: { metadata: { ls_model_name: 'gpt-4o-mini', ls_provider: 'openai' } },
      session_name: 'default',
    },
  ]);
  return { body: JSON.stringify({ post, patch: [] }), runs };
}

const perSecond = (r: Rate): number => (r.items * 1000) / Math.max(1, r.elapsedMs);

/** Runs the three paths on one server; returns traces/s and feedback/s against the v1 batch's events/s. */
export async function runLangSmithIngestBench(): Promise<BenchResult[]> {
  const durationMs = envInt('BENCH_DURATION_MS', 10_000);
  const clients = envInt('BENCH_CLIENTS', 8);
  const database = await createFreshDatabase();
  const key = `fl_sk_bench${token(12)}`;
  let server: ChildServer | undefined;
  try {
    server = await startFeedloop({ databaseUrl: database.url, secretKey: key });
    const url = server.url;
    const stored: Array<{ root: string; llm: string }> = [];

    const traces = await drive(clients, durationMs, async (agent) => {
      const batch = traceBatch(TRACES_PER_REQUEST);
      const res = await post(agent, url, '/langsmith/runs/batch', key, batch.body);
      if (res.status !== 202) return { items: 0, problem: `runs/batch HTTP ${res.status}: ${res.text.slice(0, 300)}` };
      stored.push(...batch.runs);
      return { items: batch.runs.length };
    });

    let next = 0;
    const feedback = await drive(clients, durationMs, async (agent) => {
      const trace = stored[next++ % stored.length];
      if (!trace) return { items: 0, problem: 'no traces stored' };
      const body = JSON.stringify({
        id: randomUUID(),
        run_id: next % 2 === 0 ? trace.root : trace.llm,
        key: 'user_score',
        score: next % 3 === 0 ? 0 : 1,
        comment: next % 5 === 0 ? 'the steps were out of date' : undefined,
        feedback_source: { type: 'api', metadata: {} },
      });
      const res = await post(agent, url, '/langsmith/feedback', key, body);
      return res.status === 200 ? { items: 1 } : { items: 0, problem: `feedback HTTP ${res.status}: ${res.text.slice(0, 300)}` };
    });

    const responses: ResponseRef[] = await registerResponses(url, key, token(), BASELINE_RESPONSES);
    let h = 0;
    const single = await drive(clients, durationMs, async (agent) => {
      const i = h++;
      const body = JSON.stringify({ id: `sg-${i}-${token(4)}`, responseId: (responses[i % responses.length] as ResponseRef).id, type: 'score', payload: { name: 'user_score', value: i % 3 === 0 ? 0 : 1 } });
      const res = await post(agent, url, '/v1/feedback', key, body);
      return res.status === 202 ? { items: 1 } : { items: 0, problem: `feedback HTTP ${res.status}: ${res.text.slice(0, 300)}` };
    });

    let g = 0;
    const baseline = await drive(clients, durationMs, async (agent) => {
      const events = Array.from({ length: EVENTS_PER_REQUEST }, () => {
        const i = g++;
        return { id: `bl-${i}-${token(4)}`, responseId: (responses[i % responses.length] as ResponseRef).id, userId: `user-${i % 50_000}`, type: i % 3 === 0 ? 'thumbs_down' : 'thumbs_up' };
      });
      const res = await post(agent, url, '/v1/feedback/batch', key, JSON.stringify({ events }));
      return res.status === 207 ? { items: events.length } : { items: 0, problem: `feedback/batch HTTP ${res.status}: ${res.text.slice(0, 300)}` };
    });

    for (const [name, r] of [
      ['langsmith runs/batch', traces],
      ['langsmith feedback', feedback],
      ['v1 feedback (one score a request)', single],
      ['v1 feedback/batch', baseline],
    ] as const) {
      console.log(`${name}: ${int(r.items)} in ${dec(r.elapsedMs / 1000, 1)} s = ${int(perSecond(r))}/s${r.failed ? `; ${r.failed} failed requests, first: ${r.firstProblem}` : ''}`);
    }
    const base = perSecond(baseline);
    return [
      { name: `LangSmith POST /langsmith/runs/batch (${TRACES_PER_REQUEST} traces of 2 runs a request, ${clients} clients)`, value: perSecond(traces), unit: 'traces/s', baseline: base, ratio: perSecond(traces) / base, baselineLabel: 'events/s /v1/feedback/batch' },
      { name: `LangSmith POST /langsmith/feedback (one a request, ${clients} clients)`, value: perSecond(feedback), unit: 'feedback/s', baseline: base, ratio: perSecond(feedback) / base, baselineLabel: 'events/s /v1/feedback/batch' },
      {
        name: `LangSmith POST /langsmith/feedback vs POST /v1/feedback, one score a request (${clients} clients)`,
        value: perSecond(feedback),
        unit: 'feedback/s',
        baseline: perSecond(single),
        ratio: perSecond(feedback) / Math.max(1e-9, perSecond(single)),
        baselineLabel: 'events/s /v1/feedback',
      },
    ];
  } finally {
    await server?.stop();
    await database.drop();
  }
}

if (isMain(import.meta.url)) {
  const results = await runLangSmithIngestBench();
  for (const r of results) console.log(`${r.name}: ${int(r.value)} ${r.unit} | baseline ${int(r.baseline)} ${r.baselineLabel} | ratio ${dec(r.ratio, 3)}`);
}
