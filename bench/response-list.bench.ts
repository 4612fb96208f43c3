/**
 * The dashboard's response list (`GET /v1/responses`, store/response-list.ts) at scale:
 * `LIST_RESPONSES` responses (default 50,000) over 90 days with `LIST_EVENTS` events (default
 * 200,000: votes, error categories with categories, corrections, comments), their counted
 * signals, scores and list tags, written straight into the tables after every migration. Prints
 * p50/p95 of one page (50) per filter on Postgres, each next to the same run's baseline: the list
 * as it was before migration 0019 (bench/response-list-walk.ts), on the same data, as a ratio.
 * `LIST_FILTERS=comment,none` runs those alone; `LIST_BASELINE_RUNS` (default 5) sets how often
 * the baseline runs (its worst cases take seconds each at 1 M events). `LIST_KEEP=1` keeps the
 * seeded database (drop it yourself) and `LIST_DATABASE_URL=<it>` measures it again unseeded.
 * `LIST_RESPONSES=250000 LIST_EVENTS=1000000 node --import tsx bench/response-list.bench.ts`
 */
import { migrate } from '../packages/server/src/db/migrate.js';
import { openPostgres } from '../packages/server/src/db/postgres-client.js';
import type { SqlClient } from '../packages/server/src/db/sql-client.js';
import { rebuildWorkspaceTags } from '../packages/server/src/store/response-list-tags.js';
import { listResponses, type ResponseListFilter } from '../packages/server/src/store/response-list.js';
import { createFreshDatabase } from './bench-database.js';
import { dec, envInt, int, isMain } from './bench-server.js';
import { walkList, WALK_COMMENT_INDEX } from './response-list-walk.js';

const WS = 'ws_bench';
const RUNS = 11;

export async function seed(db: SqlClient, n: number, events: number): Promise<void> {
  await db.query(`INSERT INTO workspaces (id, name) VALUES ($1, $1)`, [WS]);
  await db.query(
    `INSERT INTO responses (workspace_id, id, query, answer, agent, model, experiment_id, variant, created_at)
     SELECT $1, 'r' || i, 'question ' || i, 'answer ' || i,
            (ARRAY['sql', 'support', 'search', 'rare-agent'])[CASE WHEN i % 1000 = 0 THEN 4 ELSE 1 + i % 3 END],
            (ARRAY['gpt-4o', 'claude-sonnet-4', 'llama-3.1-70b', 'gpt-4o-mini'])[1 + i % 4],
            CASE WHEN i % 3 = 1 THEN 'exp' END, CASE WHEN i % 3 = 1 THEN (CASE WHEN i % 2 = 0 THEN 'control' ELSE 'concise' END) END,
            now() - (i * (90 * 86400.0 / $2)) * interval '1 second'
       FROM generate_series(1, $2) AS i`,
    [WS, n],
  );
  // Events: i-th event on response (i % n) + 1; 60 % thumbs (2/3 up), 20 % error categories, 10 % corrections, 10 % comments.
// Every response gets feedback (so `rating=unrated` matches none), 'rare_category' is on 0.2 % of events.
  await db.query(
    `INSERT INTO feedback_events (workspace_id, id, response_id, type, source, payload, occurred_at, received_at)
     SELECT $1, 'e' || i, 'r' || (1 + i % $2),
            CASE WHEN i % 10 < 4 THEN 'thumbs_up' WHEN i % 10 < 6 THEN 'thumbs_down' WHEN i % 10 < 8 THEN 'error_categories' WHEN i % 10 = 8 THEN 'correction' ELSE 'comment' END,
            'explicit',
            CASE WHEN i % 10 = 9 THEN jsonb_build_object('comment', CASE WHEN i % 997 = 0 THEN 'the refund policy is outdated' ELSE 'comment number ' || i END)
                 WHEN i % 10 = 8 THEN jsonb_build_object('corrected', 'SELECT 1') ELSE '{}'::jsonb END,
            now(), now()
       FROM generate_series(1, $3) AS i`,
    [WS, n, events],
  );
  await db.query(
    `INSERT INTO feedback_signals (workspace_id, event_id, response_id, type, status, polarity, categories, occurred_at)
     SELECT workspace_id, id, response_id, type, 'counted',
            CASE WHEN type = 'thumbs_up' THEN 'positive' WHEN type = 'comment' THEN 'neutral' ELSE 'negative' END,
            CASE WHEN type = 'error_categories' THEN ARRAY[(ARRAY['hallucination', 'missing_context', 'wrong_context', 'rare_category'])[CASE WHEN seq % 500 = 6 THEN 4 ELSE 1 + seq % 3 END]] ELSE '{}' END,
            occurred_at
       FROM feedback_events`,
  );
  await db.query(
    `INSERT INTO response_scores (workspace_id, response_id, score, confidence, weight_sum, signal_count, computed_at)
     SELECT $1, 'r' || i, ((i % 21) - 10) / 10.0, 0.5, 1, 1, now() FROM generate_series(1, $2) AS i`,
    [WS, n],
  );
  // What ingest and processing would have tagged (the migration's backfill is the same query).
  await rebuildWorkspaceTags(db, WS);
  await db.query(WALK_COMMENT_INDEX);
  await db.query('VACUUM ANALYZE');
}

const FILTERS: Array<[string, ResponseListFilter]> = [
  ['none', {}],
  ['rating=positive', { rating: 'positive' }],
  ['rating=negative', { rating: 'negative' }],
  ['rating=unrated (every response rated)', { rating: 'unrated' }],
  ['category=hallucination', { category: 'hallucination' }],
  ['category=rare_category (0.2 %)', { category: 'rare_category' }],
  ['category=absent', { category: 'no_such_category' }],
  ['comment=refund (rare)', { comment: 'refund' }],
  ['comment=number (every comment)', { comment: 'number' }],
  ['comment=absent', { comment: 'no such text' }],
  ['comment=2 letters, absent', { comment: 'qj' }],
  ['agent=sql', { agent: 'sql' }],
  ['agent=rare-agent (0.1 %)', { agent: 'rare-agent' }],
  ['agent=rare-agent, rating=negative', { agent: 'rare-agent', rating: 'negative' }],
  ['model=gpt-4o', { model: 'gpt-4o' }],
  ['experiment+variant', { experimentId: 'exp', variant: 'concise' }],
  ['score <= -0.9', { maxScore: -0.9 }],
  ['last 7 days', { since: new Date(Date.now() - 7 * 86_400_000) }],
  ['agent=sql, rating=negative, category', { agent: 'sql', rating: 'negative', category: 'hallucination' }],
  ['rating=negative, category=rare_category', { rating: 'negative', category: 'rare_category' }],
];

interface Timing {
  p50: number;
  p95: number;
  rows: number;
}

const summary = (times: number[], rows: number): Timing => {
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length / 2)] ?? NaN, p95: times[Math.min(times.length - 1, Math.floor(times.length * 0.95))] ?? NaN, rows };
};

/**
 * Times the list and the baseline alternately (one warm-up of each first), so neither gains
 * from the cache the other warmed: `runs` timed calls of the list, `baselineRuns` of the baseline.
 */
async function timePair(runs: number, baselineRuns: number, list: () => Promise<number>, baseline: () => Promise<number>): Promise<[Timing, Timing]> {
  const a: number[] = [];
  const b: number[] = [];
  let rowsA = await list();
  let rowsB = await baseline();
  for (let i = 0; i < Math.max(runs, baselineRuns); i++) {
    let start = performance.now();
    if (i < runs) {
      rowsA = await list();
      a.push(performance.now() - start);
    }
    start = performance.now();
    if (i < baselineRuns) {
      rowsB = await baseline();
      b.push(performance.now() - start);
    }
  }
  return [summary(a, rowsA), summary(b, rowsB)];
}

const ms = (v: number): string => `${dec(v, 1).padStart(7)} ms`;

/** Seeds, then prints p50/p95 per filter. */
export async function runResponseListBench(): Promise<void> {
  const n = envInt('LIST_RESPONSES', 50_000);
  const events = envInt('LIST_EVENTS', 200_000);
  const baselineRuns = envInt('LIST_BASELINE_RUNS', 5);
  // LIST_KEEP=1 keeps the seeded database and prints its URL; LIST_DATABASE_URL measures one kept
  // before (seeding 10 M events takes about 20 minutes here).
  const kept = process.env.LIST_DATABASE_URL;
  const fresh = kept ? undefined : await createFreshDatabase();
  try {
    const db = await openPostgres(kept ?? fresh!.url);
    if (fresh) {
      await migrate(db);
      const t0 = performance.now();
      await seed(db, n, events);
      console.log(`postgres: seeded ${int(n)} responses, ${int(events)} events in ${dec((performance.now() - t0) / 1000, 1)} s`);
      if (process.env.LIST_KEEP === '1') console.log(`kept: LIST_DATABASE_URL=${fresh.url}`);
    } else {
      const [c] = await db.query<{ responses: number; events: number }>(
        'SELECT (SELECT count(*) FROM responses)::int AS responses, (SELECT count(*) FROM feedback_events)::int AS events',
      );
      console.log(`postgres: a kept database of ${int(c?.responses ?? 0)} responses, ${int(c?.events ?? 0)} events`);
    }
    console.log(`  ${'filter'.padEnd(42)} ${'list p50'.padStart(10)} ${'p95'.padStart(10)}  | ${'walk p50'.padStart(10)} (baseline: before 0019)  ratio  rows`);
    const only = process.env.LIST_FILTERS?.split(',');
    for (const [name, filter] of FILTERS.filter(([n]) => !only || only.some((o) => n.startsWith(o)))) {
      const [now, before] = await timePair(
        RUNS,
        baselineRuns,
        async () => (await listResponses(db, WS, filter, undefined, 50)).data.length,
        () => walkList(db, WS, filter, 50),
      );
      if (before.rows !== now.rows) throw new Error(`${name}: ${now.rows} rows, the baseline found ${before.rows}`);
      console.log(
        `  ${name.padEnd(42)} ${ms(now.p50)} ${ms(now.p95)}  | ${ms(before.p50)}${' '.repeat(25)} ${dec(before.p50 / now.p50, 1).padStart(6)}x  ${now.rows}`,
      );
    }
    await db.close();
  } finally {
    if (fresh && process.env.LIST_KEEP !== '1') await fresh.drop();
  }
}

if (isMain(import.meta.url)) await runResponseListBench();
