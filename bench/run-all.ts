/**
 * `npm run bench`: every benchmark in sequence, each next to a baseline measured in the same run,
 * then one table. Ingest and pipeline benchmarks need Postgres (BENCH_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/test; each makes and drops its own fl_bench_<random> database);
 * the pipeline benchmark also needs Redis (BENCH_REDIS_URL, default redis://127.0.0.1:6379).
 *
 * Only some: `node --import tsx bench/run-all.ts edit batch single durable embedded embedded-pipeline embedded-keepup diff heavy pipeline stats export training-batches insights langfuse langsmith otel review review-agreement judges dashboard` (any of the names); `node --import tsx bench/experiments.bench.ts` runs on its own.
 * `stats` loads BENCH_STATS_EVENTS events (default 10,000,000; set it lower for a quick run).
 * `insights` seeds BENCH_INSIGHTS_EVENTS events in one workspace (default 200,000; 10,000,000 for the docs' big figure).
 * `dashboard` seeds BENCH_DASHBOARD_EVENTS events (default 1,000,000; the issue's figure is 10,000,000) and needs /usr/bin/chromium.
 * `durable` and `embedded` use wrk when installed (`apt-get install -y wrk`), else autocannon with workers;
 * `BENCH_SOAK_MS=600000` adds their 10-minute RSS soak runs.
 */
import { cpus, totalmem } from 'node:os';
import { printTable, type BenchResult } from './bench-server.js';
import { runDashboardLoadBench } from './dashboard-load.bench.js';
import { runDiffIsolationBench } from './diff-isolation.bench.js';
import { runEditDistanceBench } from './edit-distance.bench.js';
import { runEmbeddedBench } from './embedded.bench.js';
import { runEmbeddedKeepUpBench } from './embedded-keepup.bench.js';
import { runEmbeddedPipelineBench } from './embedded-pipeline.bench.js';
import { runEvaluatorDispatchBench } from './evaluator-dispatch.bench.js';
import { runExportBench } from './export.bench.js';
import { runHeavyReadsBench } from './heavy-reads.bench.js';
import { runTrainingBatchBench } from './training-batches.bench.js';
import { runIngestBatchBench } from './ingest-batch.bench.js';
import { runIngestDurableBench } from './ingest-durable.bench.js';
import { runIngestSingleBench } from './ingest-single.bench.js';
import { runLangSmithIngestBench } from './langsmith-ingest.bench.js';
import { runInsightsBench } from './insights.bench.js';
import { runLangfuseIngestBench } from './langfuse-ingest.bench.js';
import { runOtelTracesBench } from './otel-traces.bench.js';
import { runPipelineBench } from './pipeline.bench.js';
import { runReviewBench } from './review.bench.js';
import { runReviewAgreementBench } from './review-agreement.bench.js';
import { runStatsBench } from './stats.bench.js';

const BENCHES: Array<{ key: string; title: string; run: () => Promise<BenchResult[]> }> = [
  { key: 'edit', title: 'edit distance (packages/core) vs the diffChars reference', run: runEditDistanceBench },
  { key: 'batch', title: 'batched ingest vs raw COPY (same schema, and a minimal table)', run: runIngestBatchBench },
  { key: 'single', title: 'single-event ingest vs trivial Fastify', run: runIngestSingleBench },
  { key: 'durable', title: 'single-event ingest, production profile, vs the minimal durable server on Postgres (and trivial Fastify); RSS', run: runIngestDurableBench },
  { key: 'embedded', title: 'embedded profile (PGlite, in-process worker), single and batched ×100, vs the minimal durable server on PGlite; RSS', run: runEmbeddedBench },
  { key: 'embedded-pipeline', title: "embedded processing (feedloop start on PGlite) of a committed 50,000-event backlog vs the seed's one-job-per-event way on PGlite", run: runEmbeddedPipelineBench },
  { key: 'embedded-keepup', title: 'embedded single-event ingest offered at half its maximum for 60 s: commit → live counter lag and backlog', run: runEmbeddedKeepUpBench },
  { key: 'diff', title: 'thumbs p99 with 10 concurrent 200 KB corrections in flight vs idle (PGlite and Postgres)', run: runDiffIsolationBench },
  { key: 'heavy', title: 'thumbs p99 under 16 heavy-read loops (exports, user contexts) vs idle (PGlite and Postgres)', run: runHeavyReadsBench },
  { key: 'pipeline', title: "processing pipeline (Postgres + Redis) vs the seed's one-job-per-event way; commit → live counter lag", run: runPipelineBench },
  { key: 'stats', title: 'GET /v1/stats over rollups (BENCH_STATS_EVENTS COPY-loaded events, 20 workspaces, 90 days) vs a GROUP BY over the events', run: runStatsBench },
  { key: 'export', title: 'training-data export of 1 M events (Postgres) vs a raw COPY of the events; rows/s and RSS', run: runExportBench },
  { key: 'training-batches', title: 'a training batch of 10,000 events of each kind (Postgres) vs a raw COPY of 10,000 events', run: runTrainingBatchBench },
  { key: 'insights', title: 'GET /v1/insights on one workspace of BENCH_INSIGHTS_EVENTS events (Postgres) vs its bare bounded read', run: runInsightsBench },
  { key: 'langfuse', title: 'Langfuse drop-in: POST /api/public/ingestion (traces with a generation and a score) vs POST /v1/feedback/batch, same server, same run', run: runLangfuseIngestBench },
  { key: 'langsmith', title: 'LangSmith drop-in ingest (/langsmith/runs/batch traces, /langsmith/feedback) vs POST /v1/feedback/batch, same server (Postgres)', run: runLangSmithIngestBench },
  { key: 'otel', title: 'OpenTelemetry traces through POST /v1/traces (protobuf, 200 spans a request) vs POST /v1/feedback/batch ×1,000 on the same server (Postgres)', run: runOtelTracesBench },
  { key: 'review', title: 'review queues: next + review round trip, 20 concurrent reviewers on a 100,000-item queue (production profile, Postgres) vs a bare SELECT … FOR UPDATE SKIP LOCKED reservation', run: runReviewBench },
  { key: 'review-agreement', title: 'GET /v1/review-queues/:id/agreement on 10,000 reviewed items (Postgres) vs the same statistics from an in-memory array', run: runReviewAgreementBench },
  { key: 'judges', title: 'evaluator dispatch (N new responses, each judged by one evaluator against a local endpoint that answers at once) vs webhook delivery of N events to the same endpoint, embedded and production', run: runEvaluatorDispatchBench },
  { key: 'dashboard', title: 'every dashboard page in Chromium (1280 and 390 px) on a workspace of BENCH_DASHBOARD_EVENTS events vs an empty workspace', run: runDashboardLoadBench },
];

const fmtMs = (ms: number): string => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1));

const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !BENCHES.some((b) => b.key === w));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(', ')}; choose from ${BENCHES.map((b) => b.key).join(', ')}`);
  process.exit(2);
}

console.log(
  `feedloop benchmarks — node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GB, ${new Date().toISOString()}\n`,
);

const results: BenchResult[] = [];
let failed = 0;
for (const bench of BENCHES.filter((b) => wanted.length === 0 || wanted.includes(b.key))) {
  console.log(`# ${bench.title}`);
  const t0 = performance.now();
  try {
    const got = await bench.run();
    if (bench.key === 'edit') {
      for (const r of got) console.log(`${r.name}: feedloop ${fmtMs(r.value)} ms/op  |  diffChars (seed) ${fmtMs(r.baseline)} ms/op  |  ratio ${Math.round(r.ratio)}x faster`);
      results.push(...got.map((r) => ({ ...r, baselineLabel: 'ms/op diffChars', target: '(speed-up)' })));
    } else {
      results.push(...got);
    }
  } catch (err) {
    failed++;
    console.error(`${bench.key} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  }
  console.log(`(${((performance.now() - t0) / 1000).toFixed(0)} s)\n`);
}

console.log('# summary (ratio: feedloop ÷ baseline for ingest and latency; baseline ÷ feedloop, i.e. speed-up, for edit distance)');
printTable(results);
if (failed > 0) console.error(`\n${failed} benchmark(s) failed`);
// Exit explicitly: a connection a benchmark forgot must not keep `npm run bench` from ending.
process.exit(failed > 0 ? 1 : 0);
