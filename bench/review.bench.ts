/**
 * Benchmark (issue 27): the reviewing round trip, `POST /v1/review-queues/:id/next` then
 * `POST …/items/:itemId/reviews` (a verdict, which becomes a `review` feedback event through
 * ingest), by 20 concurrent reviewers (each its own reviewer key) on a queue of 100,000 items, on
 * the production profile's API node (fresh Postgres database, Redis; DATABASE_POOL_SIZE = the
 * reviewers, as many connections as the baseline has). Figures: round trips per second and the
 * round trip's p50/p95, and `next`'s and the review's own.
 * - Baseline, same run, same Postgres server: the bare reservation a queue needs at least, 20
 *   connections each looping `UPDATE … WHERE id = (SELECT … ORDER BY id LIMIT 1 FOR UPDATE SKIP
 *   LOCKED)` (reserve) then `UPDATE … SET done` (review) on a 100,000-row table, no HTTP.
 *
 * Run: npm run build && node --import tsx bench/review.bench.ts
 * Knobs: BENCH_REVIEW_ITEMS (100000), BENCH_REVIEWERS (20), BENCH_DURATION_MS (10000),
 * BENCH_DATABASE_URL.
 */
import pg from 'pg';
import { createFreshDatabase } from './bench-database.js';
import { dec, envInt, int, isMain, keepAliveAgent, post, startFeedloop, token, type BenchResult } from './bench-server.js';
import { registerResponses } from './bench-workload.js';

const ADD_CHUNK = 1_000;

/** The p-th percentile of sorted values. */
const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] ?? 0;

interface Loop {
  trips: number[];
  failed: number;
  firstProblem: string | undefined;
  elapsedMs: number;
}

/** Runs `clients` loops of `step` for `durationMs`, timing each step. */
async function drive(clients: number, durationMs: number, step: (client: number) => Promise<string | undefined>): Promise<Loop> {
  const out: Loop = { trips: [], failed: 0, firstProblem: undefined, elapsedMs: 0 };
  const t0 = performance.now();
  const deadline = t0 + durationMs;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      while (performance.now() < deadline) {
        const s = performance.now();
        const problem = await step(c);
        if (problem === undefined) out.trips.push(performance.now() - s);
        else {
          out.failed++;
          out.firstProblem ??= problem;
        }
      }
    }),
  );
  out.elapsedMs = performance.now() - t0;
  out.trips.sort((a, b) => a - b);
  return out;
}

/** The bare SKIP LOCKED reservation and completion, on its own table in the same database. */
async function baseline(url: string, items: number, clients: number, durationMs: number): Promise<Loop> {
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  await setup.query(`CREATE TABLE bare_items (id bigint PRIMARY KEY, done boolean NOT NULL DEFAULT false, reserved_by text, reserved_until timestamptz);
                     INSERT INTO bare_items (id) SELECT g FROM generate_series(1, ${items}) g; ANALYZE bare_items`);
  await setup.end();
  const conns = await Promise.all(
    Array.from({ length: clients }, async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      return c;
    }),
  );
  try {
    return await drive(clients, durationMs, async (i) => {
      const c = conns[i] as pg.Client;
      const reserved = await c.query<{ id: string }>(
        `UPDATE bare_items SET reserved_by = $1, reserved_until = now() + interval '600 seconds'
          WHERE id = (SELECT id FROM bare_items WHERE NOT done AND (reserved_until IS NULL OR reserved_until < now()) ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
          RETURNING id`,
        [`r${i}`],
      );
      const id = reserved.rows[0]?.id;
      if (id === undefined) return 'nothing left';
      await c.query('UPDATE bare_items SET done = true, reserved_by = NULL, reserved_until = NULL WHERE id = $1 AND reserved_by = $2', [id, `r${i}`]);
      return undefined;
    });
  } finally {
    await Promise.all(conns.map((c) => c.end()));
  }
}

/** Runs the benchmark and returns its figures. */
export async function runReviewBench(): Promise<BenchResult[]> {
  const items = envInt('BENCH_REVIEW_ITEMS', 100_000);
  const reviewers = envInt('BENCH_REVIEWERS', 20);
  const durationMs = envInt('BENCH_DURATION_MS', 10_000);
  const database = await createFreshDatabase();
  const secretKey = `fl_sk_bench_${token(16)}`;
  // As many database connections as reviewers, as the baseline has: like for like.
  const server = await startFeedloop({ databaseUrl: database.url, secretKey, env: { DATABASE_POOL_SIZE: String(reviewers) } });
  const agent = keepAliveAgent(reviewers + 2);
  try {
    const call = async (path: string, body: unknown, key = secretKey): Promise<{ status: number; json: Record<string, unknown> | null }> => {
      const res = await post(agent, server.url, path, key, JSON.stringify(body));
      return { status: res.status, json: res.text === '' ? null : (JSON.parse(res.text) as Record<string, unknown>) };
    };
    const t0 = performance.now();
    const responses = await registerResponses(server.url, secretKey, token(), items);
    const keys: string[] = [];
    const ids: string[] = [];
    for (let i = 0; i < reviewers; i++) {
      const made = await call('/v1/keys', { kind: 'reviewer', name: `bench-reviewer-${i}` });
      if (made.status !== 201) throw new Error(`reviewer key: HTTP ${made.status}`);
      keys.push(String(made.json?.key));
      ids.push(String(made.json?.id));
    }
    const queue = await call('/v1/review-queues', { name: 'bench', members: ids, rubric: { qualityScores: true } });
    if (queue.status !== 201) throw new Error(`queue: HTTP ${queue.status} ${JSON.stringify(queue.json)}`);
    const queueId = String(queue.json?.id);
    for (let at = 0; at < responses.length; at += ADD_CHUNK) {
      const added = await call(`/v1/review-queues/${queueId}/items`, { responseIds: responses.slice(at, at + ADD_CHUNK).map((r) => r.id) });
      if (added.status !== 207) throw new Error(`items: HTTP ${added.status}`);
    }
    console.log(`  review: ${int(items)} responses and items ready in ${dec((performance.now() - t0) / 1000, 1)} s`);

    const nextMs: number[] = [];
    const reviewMs: number[] = [];
    const trip = await drive(reviewers, durationMs, async (i) => {
      const key = keys[i] as string;
      const s0 = performance.now();
      const next = await call(`/v1/review-queues/${queueId}/next`, {}, key);
      nextMs.push(performance.now() - s0);
      if (next.status !== 200) return `next: HTTP ${next.status}`;
      const itemId = (next.json?.item as { id: string }).id;
      const s1 = performance.now();
      const review = await call(`/v1/review-queues/${queueId}/items/${itemId}/reviews`, { verdict: 'approved', qualityScores: { accuracy: 90 } }, key);
      reviewMs.push(performance.now() - s1);
      return review.status === 201 ? undefined : `review: HTTP ${review.status} ${JSON.stringify(review.json).slice(0, 200)}`;
    });
    nextMs.sort((a, b) => a - b);
    reviewMs.sort((a, b) => a - b);
    console.log(`  review: next p50 ${dec(percentile(nextMs, 0.5), 1)} ms, p95 ${dec(percentile(nextMs, 0.95), 1)} ms; review p50 ${dec(percentile(reviewMs, 0.5), 1)} ms, p95 ${dec(percentile(reviewMs, 0.95), 1)} ms`);
    const bare = await baseline(database.url, items, reviewers, durationMs);
    const rate = (l: Loop) => (l.trips.length * 1000) / l.elapsedMs;
    const [p50, p95, b50, b95] = [percentile(trip.trips, 0.5), percentile(trip.trips, 0.95), percentile(bare.trips, 0.5), percentile(bare.trips, 0.95)];
    console.log(
      `  review: ${int(trip.trips.length)} round trips (${dec(rate(trip), 0)}/s, p50 ${dec(p50, 1)} ms, p95 ${dec(p95, 1)} ms, ${trip.failed} failed${trip.firstProblem ? `: ${trip.firstProblem}` : ''}); ` +
        `bare SKIP LOCKED: ${int(bare.trips.length)} (${dec(rate(bare), 0)}/s, p50 ${dec(b50, 2)} ms, p95 ${dec(b95, 2)} ms)`,
    );
    return [
      { name: `next + review p95, ${reviewers} reviewers, ${int(items)}-item queue`, value: p95, unit: 'ms', baseline: b95, ratio: p95 / Math.max(b95, 0.001), baselineLabel: 'bare SKIP LOCKED reserve + complete p95 (ms)' },
      { name: `next + review p50, ${reviewers} reviewers`, value: p50, unit: 'ms', baseline: b50, ratio: p50 / Math.max(b50, 0.001), baselineLabel: 'bare SKIP LOCKED p50 (ms)' },
      { name: `review round trips/s, ${reviewers} reviewers`, value: rate(trip), unit: 'trips/s', baseline: rate(bare), ratio: rate(trip) / Math.max(rate(bare), 0.001), baselineLabel: 'bare SKIP LOCKED reserve + complete/s' },
    ];
  } finally {
    agent.destroy();
    await server.stop(5_000);
    await database.drop();
  }
}

if (isMain(import.meta.url)) {
  const results = await runReviewBench();
  for (const r of results) console.log(`${r.name}: ${dec(r.value, 1)} ${r.unit} (baseline ${dec(r.baseline, 2)}, ×${dec(r.ratio, 2)})`);
}
