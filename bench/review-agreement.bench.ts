/**
 * Issue 27: the agreement read (`GET /v1/review-queues/:id/agreement`) on a queue of 10,000
 * reviewed items (BENCH_AGREEMENT_ITEMS), three reviewers each, two scores per review, written
 * straight into the tables after every migration, on Postgres. Beside it, in the same run, the
 * issue's baseline: the same statistics computed from an in-memory array of the same reviews
 * (core's `queueAgreement` on this thread, no database, no HTTP, no worker thread), and the bare
 * bounded read of the reviews. The route computes in a worker thread (http/agreement-pool.ts),
 * so its figure includes copying the reviews there and the report back.
 *
 * Run: npm run build && node --import tsx bench/review-agreement.bench.ts
 * Knobs: BENCH_AGREEMENT_ITEMS, BENCH_DATABASE_URL.
 */
import type { AddressInfo } from 'node:net';
import { agreementReviewOf, queueAgreement } from '../packages/core/src/index.js';
import { loadConfig } from '../packages/server/src/config.js';
import { migrate } from '../packages/server/src/db/migrate.js';
import { openPostgres } from '../packages/server/src/db/postgres-client.js';
import type { SqlClient } from '../packages/server/src/db/sql-client.js';
import { buildApp } from '../packages/server/src/http/app.js';
import { createServices } from '../packages/server/src/server.js';
import { createApiKey } from '../packages/server/src/store/api-keys.js';
import { readQueueReviews } from '../packages/server/src/store/review-agreement.js';
import { createWorkspace } from '../packages/server/src/store/workspaces.js';
import { createFreshDatabase } from './bench-database.js';
import { dec, envInt, int, isMain, LOOPBACK, type BenchResult } from './bench-server.js';

const RUNS = 7;
const QUEUE = 'rq_bench_agreement';

/**
 * Seeds one queue: `items` items, each reviewed by three of five reviewers (rotating), verdicts
 * that agree about three times in four, `accuracy` and `completeness` scores near a per-item
 * level, 20-200 seconds per review.
 */
async function seed(db: SqlClient, ws: string, items: number): Promise<void> {
  await db.query(
    `INSERT INTO review_queues (workspace_id, id, name, kind, rubric, reviewers_per_item)
     VALUES ($1, $2, 'agreement bench', 'single', '{"verdict":true,"issues":false,"qualityScores":true,"correction":false,"comment":false}', 3)`,
    [ws, QUEUE],
  );
  await db.query(
    `INSERT INTO review_items (workspace_id, queue_id, id, subject, response_id, reviews, state)
     SELECT $1, $2, 'ri_' || lpad(i::text, 8, '0'), 'r' || i, 'r' || i, 3, 'done' FROM generate_series(1, $3) AS i`,
    [ws, QUEUE, items],
  );
  // Reviewer k of item i is (i + k) % 5; the item's "true" verdict is i % 3, and a reviewer departs
  // from it when a hash of (i, k) falls in the lowest quarter.
  await db.query(
    `INSERT INTO reviews (workspace_id, queue_id, item_id, reviewer, label, scores, body, seconds)
     SELECT $1, $2, 'ri_' || lpad(i::text, 8, '0'), 'reviewer-' || ((i + k) % 5),
            (ARRAY['approved', 'changes_requested', 'rejected'])[1 + ((i + CASE WHEN (i * 7919 + k * 104729) % 100 < 25 THEN 1 + k % 2 ELSE 0 END) % 3)],
            jsonb_build_object('accuracy', 40 + (i % 50) + (i * 31 + k * 17) % 21, 'completeness', 30 + (i % 60) + (i * 13 + k * 29) % 31),
            '{}'::jsonb, 20 + (i * 37 + k * 11) % 181
       FROM generate_series(1, $3) AS i, generate_series(0, 2) AS k`,
    [ws, QUEUE, items],
  );
  await db.exec('VACUUM ANALYZE');
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/**
 * Wall time and this process's CPU time (every thread: the route's worker thread included) of one
 * run. On a shared machine the CPU figure is the steadier of the two.
 */
async function timed<T>(run: () => Promise<T> | T): Promise<{ ms: number; cpuMs: number; value: T }> {
  const cpu = process.cpuUsage();
  const s = performance.now();
  const value = await run();
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - s, cpuMs: (used.user + used.system) / 1000, value };
}

/** Runs the agreement benchmark. */
export async function runReviewAgreementBench(): Promise<BenchResult[]> {
  const items = envInt('BENCH_AGREEMENT_ITEMS', 10_000);
  const fresh = await createFreshDatabase();
  const db = await openPostgres(fresh.url);
  try {
    await migrate(db);
    const ws = (await createWorkspace(db, { name: 'agreement-bench' })).workspace.id;
    const t0 = performance.now();
    await seed(db, ws, items);
    console.log(`review-agreement: seeded ${int(items)} items, ${int(items * 3)} reviews in ${dec((performance.now() - t0) / 1000, 1)} s`);

    // The baseline: the statistics from an in-memory array of the same reviews.
    const { reviews } = await readQueueReviews(db, ws, QUEUE);
    const rows = reviews.map(agreementReviewOf);
    const { resamples } = queueAgreement(rows);
    const inMemory: number[] = [];
    const inMemoryCpu: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const run = await timed(() => queueAgreement(rows));
      inMemory.push(run.ms);
      inMemoryCpu.push(run.cpuMs);
    }
    const reads: number[] = [];
    for (let i = 0; i < RUNS; i++) reads.push((await timed(() => readQueueReviews(db, ws, QUEUE))).ms);

    const key = await createApiKey(db, ws, 'secret');
    const config = loadConfig({ DATABASE_URL: fresh.url, LOG_LEVEL: 'silent' });
    const { services, close } = createServices(config, db);
    const app = await buildApp(services, { logger: false });
    try {
      await app.listen({ host: LOOPBACK, port: 0 });
      const url = `http://${LOOPBACK}:${(app.server.address() as AddressInfo).port}/v1/review-queues/${QUEUE}/agreement`;
      const get = async () => {
        const res = await fetch(url, { headers: { authorization: `Bearer ${key.key}` } });
        const body = (await res.json()) as { percentAgreement: { value: number; low: number; high: number; n: number }; fleissKappa: { value: number }; reviews: { read: number } };
        if (res.status !== 200) throw new Error(`GET agreement: ${res.status} ${JSON.stringify(body)}`);
        return body;
      };
      const cold = await timed(get);
      const warm: number[] = [];
      const warmCpu: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const run = await timed(get);
        warm.push(run.ms);
        warmCpu.push(run.cpuMs);
      }
      const { percentAgreement, fleissKappa } = cold.value;
      console.log(
        `review-agreement: ${int(cold.value.reviews.read)} reviews, ${resamples} resamples; percent agreement ${dec(percentAgreement.value, 3)} [${dec(percentAgreement.low, 3)}, ${dec(percentAgreement.high, 3)}] n ${percentAgreement.n}, Fleiss ${dec(fleissKappa.value, 3)}\n` +
          `review-agreement: route cold ${dec(cold.ms, 0)} ms, warm p50 ${dec(median(warm), 1)} ms (CPU ${dec(median(warmCpu), 0)} ms) | ` +
          `in-memory statistics p50 ${dec(median(inMemory), 1)} ms (CPU ${dec(median(inMemoryCpu), 0)} ms) | bare read p50 ${dec(median(reads), 1)} ms`,
      );
      const label = `${int(items)} items × 3 reviews`;
      return [
        {
          name: `GET /v1/review-queues/:id/agreement warm p50 (${label})`,
          value: median(warm),
          unit: 'ms',
          baseline: median(inMemory),
          baselineLabel: 'ms statistics from an in-memory array',
          ratio: median(warm) / median(inMemory),
        },
        {
          name: `GET /v1/review-queues/:id/agreement cold (${label})`,
          value: cold.ms,
          unit: 'ms',
          baseline: median(inMemory),
          baselineLabel: 'ms statistics from an in-memory array',
          ratio: cold.ms / median(inMemory),
        },
      ];
    } finally {
      await app.close();
      await close();
    }
  } finally {
    await db.close();
    await fresh.drop();
  }
}

if (isMain(import.meta.url)) {
  const { printTable } = await import('./bench-server.js');
  printTable(await runReviewAgreementBench());
  process.exit(0);
}
