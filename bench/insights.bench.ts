/**
 * The insights report (`GET /v1/insights`, docs/insights.md) on one big workspace: BENCH_INSIGHTS_EVENTS
 * events (default 200,000; the docs quote 1,000,000 and 10,000,000) over 60 days, written straight
 * into the tables after every migration (responses, the events log, a signal row per event, the
 * daily rollup), so both
 * periods of the default range hit the 5,000-event cap as in a busy workspace. Beside the bare
 * bounded read of the same run (the two periods' event reads and the rollup sums, which no report
 * can skip), it prints the report's time, cold (the first request of a new app) and warm (the
 * median of the next ones):
 * - with every correction's classification stored, as the pipeline stores it (migration 0021;
 *   the seeder classifies the newest 2,000 corrections with the pipeline's code);
 * - with none stored: the report classifies up to 1,000 corrections itself, as it did on every
 *   request before migration 0021 (measured first, so its cold figure includes loading the SQL
 *   grammars; warm, its cache of classifications by text answers).
 *
 * Run: npm run build && node --import tsx bench/insights.bench.ts
 * Knobs: BENCH_INSIGHTS_EVENTS, BENCH_DATABASE_URL, BENCH_INSIGHTS_EXPLAIN=1 (prints the plan of the
 * current period's read: EXPLAIN (ANALYZE, BUFFERS)).
 */
import type { AddressInfo } from 'node:net';
import { utcDay } from '../packages/core/src/index.js';
import { loadConfig } from '../packages/server/src/config.js';
import { migrate } from '../packages/server/src/db/migrate.js';
import { openPostgres } from '../packages/server/src/db/postgres-client.js';
import type { SqlClient } from '../packages/server/src/db/sql-client.js';
import { buildApp } from '../packages/server/src/http/app.js';
import { createServices } from '../packages/server/src/server.js';
import { createApiKey } from '../packages/server/src/store/api-keys.js';
import { classifyCorrections, CORRECTION_CLASS_VERSION, CORRECTION_TEXT_CHARS, toStoredClass } from '../packages/server/src/store/correction-class.js';
import { INSIGHT_EVENTS_LIMIT, INSIGHT_EVENTS_SQL, readDimensionTotals, readInsightEvents } from '../packages/server/src/store/insights-queries.js';
import { createWorkspace } from '../packages/server/src/store/workspaces.js';
import { createFreshDatabase } from './bench-database.js';
import { dec, envInt, int, isMain, LOOPBACK, type BenchResult } from './bench-server.js';

const DAYS = 60;
const DAY_MS = 86_400_000;
const WARM_RUNS = 7;
const READ_RUNS = 7;
/** Corrections whose classification is stored: more than a report reads (1,000 at most). */
const STORED = 2_000;
/** Events per INSERT statement while seeding. */
const CHUNK = 250_000;

/**
 * SQL answers and their corrections (the corrections name no `original`: the answer is compared).
 * `{n}` is a number of the event: real corrections are rarely the same text twice.
 */
const SQL_PAIRS: Array<[string, string]> = [
  ["SELECT sum(amount) FROM sales WHERE month = '2026-10'", "SELECT sum(amount) FROM sales WHERE sold_at >= date '2026-10-01' AND sold_at < date '2026-11-01' AND amount > {n}"],
  ['SELECT customer_id, sum(amount) FROM orders GROUP BY customer_id LIMIT 10', "SELECT customer_id, sum(amount) AS revenue FROM orders WHERE ordered_at >= date_trunc('year', now()) GROUP BY customer_id ORDER BY revenue DESC LIMIT {n}"],
  ['SELECT region, count(*) FROM users GROUP BY region', 'SELECT region, count(*) FROM users WHERE active AND age > {n} GROUP BY region'],
  ['SELECT avg(amount) FROM orders', "SELECT avg(amount) FROM orders WHERE country = 'US' AND amount < {n}"],
  ['SELECT * FROM accounts WHERE churned', "SELECT id, name FROM accounts WHERE churned_at >= date_trunc('quarter', now()) - interval '3 months' AND id > {n}"],
  ['SELECT o.id FROM orders o JOIN customers c ON c.id = o.customer_id', 'SELECT o.id FROM orders o LEFT JOIN customers c ON c.id = o.customer_id WHERE c.vip AND o.id > {n}'],
  ['SELECT DISTINCT product_id FROM order_items', 'SELECT product_id, count(*) FROM order_items GROUP BY product_id HAVING count(*) > {n}'],
  ['SELECT name FROM products ORDER BY price LIMIT 5', 'SELECT name FROM products ORDER BY price DESC LIMIT {n}'],
];
const WORDS = ('wrong join table filter date missing outdated policy slow answer refund billing invoice customer region report number ' +
  'total revenue chart column export login password reset plan upgrade discount tax currency timezone format decimal rounding ' +
  'duplicate rows empty result timeout error link broken source citation confusing verbose short helpful accurate').split(' ');
const FILLERS = ['the', 'is', 'a', 'and', 'it', 'not', 'was', 'for', 'this', 'too', 'very', 'again'];

/**
 * Seeds one workspace: `events` events, one response per 10, over the last {@link DAYS} days,
 * newest last. Of the events: 40 % thumbs up, 15 % thumbs down (a fifth with a comment), 5 %
 * star ratings, 5 % corrections (a third SQL, the rest text whose figure or wording changed),
 * 1 % escalations, 6 % comments, the rest retries (implicit signals the report never reads).
 */
async function seed(db: SqlClient, ws: string, events: number): Promise<void> {
  const responses = Math.max(1, Math.floor(events / 10));
  const span = `${DAYS} days`;
  await db.query(`SELECT feedloop_ensure_event_partitions(now() - interval '${span}' - interval '1 month', 5)`);
  await db.query(
    `INSERT INTO responses (workspace_id, id, query, answer, agent, model, query_type, session_id, created_at)
     SELECT $1, 'r' || i, 'question ' || i,
            CASE WHEN i % 3 = 0 THEN ($3::text[])[1 + (i / 3) % cardinality($3::text[])] ELSE 'Revenue grew by ' || (i % 40) || ' % in Q3, I think.' END,
            (ARRAY['sql', 'support', 'search', 'billing'])[1 + i % 4], (ARRAY['gpt-4o', 'claude-sonnet-4', 'llama-3.1-70b'])[1 + i % 3],
            (ARRAY['sql', 'how-to', 'lookup', 'account', 'billing'])[1 + i % 5], 's' || (i / 3),
            now() - interval '${span}' + (i::double precision / $2) * interval '${span}'
       FROM generate_series(1, $2) AS i`,
    [ws, responses, SQL_PAIRS.map(([a]) => a)],
  );
  // 4-20 words: every third a filler (stop words split phrases), the others from WORDS.
  const COMMENT_WORDS = `(SELECT string_agg(CASE WHEN k % 3 = 0 THEN ($6::text[])[1 + (i + k) % cardinality($6::text[])]
                                      ELSE ($5::text[])[1 + ((i * 7919 + k * 104729) % 9973) % cardinality($5::text[])] END, ' ')
                          FROM generate_series(1, 4 + i % 17) AS k)`;
  for (let first = 1; first <= events; first += CHUNK) {
    const last = Math.min(events, first + CHUNK - 1);
    // Event i is on response 1 + (i / 10) % responses: an SQL correction lands on an SQL answer (i / 10 ≡ 0 mod 3) when i % 30 < 10.
    await db.query(
      `INSERT INTO feedback_events (workspace_id, id, response_id, type, source, user_id, session_id, payload, occurred_at, received_at)
       SELECT $1, 'e' || i, 'r' || r, t, CASE WHEN t = 'retry' THEN 'implicit' ELSE 'explicit' END, 'u' || (i % 5000), 's' || (r / 3),
              CASE t
                WHEN 'comment' THEN jsonb_build_object('comment', ${COMMENT_WORDS})
                WHEN 'thumbs_down' THEN CASE WHEN i % 5 = 0 THEN jsonb_build_object('comment', ${COMMENT_WORDS}) ELSE '{}'::jsonb END
                WHEN 'rating' THEN jsonb_build_object('rating', 1 + i % 5)
                WHEN 'escalation' THEN jsonb_build_object('reason', 'customer asked for a human')
                WHEN 'correction' THEN CASE WHEN r % 3 = 0
                  THEN jsonb_strip_nulls(jsonb_build_object('corrected', replace(($4::text[])[1 + (r / 3) % cardinality($4::text[])], '{n}', (1 + i / 20)::text),
                                                            'format', CASE WHEN i % 2 = 0 THEN 'sql' END))
                  ELSE jsonb_build_object('original', 'Revenue grew by ' || (r % 40) || ' % in Q3, I think.',
                                          'corrected', CASE WHEN i % 2 = 0 THEN 'Revenue grew by ' || (r % 40 + 3) || ' % in Q3 for account ' || i || '.'
                                                            ELSE 'In Q3 revenue grew by ' || (r % 40) || ' %, driven by the new annual plans of account ' || i || ' and fewer refunds.' END) END
                ELSE '{}'::jsonb END,
              at, at + interval '2 seconds'
         FROM (SELECT i, 1 + (i / 10) % $2 AS r,
                      now() - interval '${span}' + (i::double precision / $3) * interval '${span}' AS at,
                      CASE WHEN i % 100 < 40 THEN 'thumbs_up' WHEN i % 100 < 55 THEN 'thumbs_down' WHEN i % 100 < 60 THEN 'rating'
                           WHEN i % 100 < 65 THEN 'correction' WHEN i % 100 < 66 THEN 'escalation' WHEN i % 100 < 72 THEN 'comment' ELSE 'retry' END AS t
                 FROM generate_series($7::bigint, $8::bigint) AS i) AS x`,
      [ws, responses, events, SQL_PAIRS.map(([, b]) => b), WORDS, FILLERS, first, last],
    );
  }
  // The daily rollup per agent, model and query type (the rankings' sums).
  await db.query(
    `INSERT INTO feedback_metrics_daily (workspace_id, day, dimension, dimension_value, total_events, total_responses, total_sessions,
                                         positive_ratings, negative_ratings, skipped_ratings, error_category_counts, escalation_rate, computed_at)
     SELECT $1, d::date, dim, v, 1000, 100, 80, 60 + length(v) * 3, 20 + length(v), 0, '{}'::jsonb, 2 + length(v) % 7, now()
       FROM generate_series(now() - interval '${span}', now(), interval '1 day') AS d,
            (VALUES ('agent', 'sql'), ('agent', 'support'), ('agent', 'search'), ('agent', 'billing'),
                    ('model', 'gpt-4o'), ('model', 'claude-sonnet-4'), ('model', 'llama-3.1-70b'),
                    ('query_type', 'sql'), ('query_type', 'how-to'), ('query_type', 'lookup'), ('query_type', 'account'), ('query_type', 'billing')) AS x(dim, v)`,
    [ws],
  );
  // The pipeline's row per event (processed before migration 0021: no classification).
  await db.query(
    `INSERT INTO feedback_signals (workspace_id, event_id, response_id, user_id, session_id, type, status, polarity, value, weight, occurred_at)
     SELECT workspace_id, id, response_id, user_id, session_id, type, 'counted',
            CASE WHEN type IN ('thumbs_up', 'rating') THEN 'positive' WHEN type IN ('comment', 'retry') THEN 'neutral' ELSE 'negative' END, 0, 1, occurred_at
       FROM feedback_events WHERE workspace_id = $1`,
    [ws],
  );
  await db.exec('VACUUM ANALYZE');
}

/**
 * Stores the classifications of the newest `count` corrections (all those a report reads), as the
 * pipeline does: each is classified with the pipeline's code from the texts the report reads.
 */
async function storeClassifications(db: SqlClient, ws: string, count: number): Promise<void> {
  const rows = await db.query<{ id: string; format: string | null; original: string; corrected: string }>(
    `SELECT e.id, e.payload->>'format' AS format, left(COALESCE(e.payload->>'original', r.answer), $3) AS original, left(e.payload->>'corrected', $3) AS corrected
       FROM feedback_events e LEFT JOIN responses r ON r.workspace_id = e.workspace_id AND r.id = e.response_id
      WHERE e.workspace_id = $1 AND e.type = 'correction' ORDER BY e.occurred_at DESC LIMIT $2`,
    [ws, count, CORRECTION_TEXT_CHARS],
  );
  const classified = await classifyCorrections(rows.map((r) => ({ eventId: r.id, original: r.original, corrected: r.corrected, format: r.format })));
  const classes = rows.map((r, i) => {
    const cls = classified[i];
    if (!cls) throw new Error(`could not classify ${r.id}`);
    return { id: r.id, correction: toStoredClass(cls) };
  });
  await db.query(
    `UPDATE feedback_signals s SET correction = c.correction FROM json_to_recordset($2::json) AS c(id text, correction jsonb)
      WHERE s.workspace_id = $1 AND s.event_id = c.id`,
    [ws, JSON.stringify(classes)],
  );
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** Runs the insights benchmark. */
export async function runInsightsBench(): Promise<BenchResult[]> {
  const events = envInt('BENCH_INSIGHTS_EVENTS', 200_000);
  const fresh = await createFreshDatabase();
  const db = await openPostgres(fresh.url);
  const results: BenchResult[] = [];
  try {
    await migrate(db);
    const ws = (await createWorkspace(db, { name: 'insights-bench' })).workspace.id;
    let t0 = performance.now();
    await seed(db, ws, events);
    console.log(`insights: seeded ${int(events)} events in one workspace in ${dec((performance.now() - t0) / 1000, 0)} s`);

    const today = utcDay(new Date());
    const from = utcDay(new Date(Date.parse(`${today}T00:00:00Z`) - 29 * DAY_MS));
    const start = (d: string, add = 0) => new Date(Date.parse(`${d}T00:00:00Z`) + add * DAY_MS);
    const bareRead = async () => {
      const s = performance.now();
      await Promise.all([
        readInsightEvents(db, ws, start(from), start(today, 1)),
        readInsightEvents(db, ws, start(from, -30), start(from), { commentsOnly: true }),
        readDimensionTotals(db, ws, from, today),
      ]);
      return performance.now() - s;
    };
    const readMedian = async () => {
      await bareRead();
      const reads: number[] = [];
      for (let i = 0; i < READ_RUNS; i++) reads.push(await bareRead());
      return median(reads);
    };

    const key = await createApiKey(db, ws, 'secret');
    const config = loadConfig({ DATABASE_URL: fresh.url, LOG_LEVEL: 'silent' });
    const { services, close } = createServices(config, db);
    const report = async (): Promise<{ cold: number; warm: number; body: Report }> => {
      // A new app: nothing the route keeps between requests survives from a previous one.
      const app = await buildApp(services, { logger: false });
      await app.listen({ host: LOOPBACK, port: 0 });
      const url = `http://${LOOPBACK}:${(app.server.address() as AddressInfo).port}/v1/insights`;
      const get = async () => {
        const s = performance.now();
        const res = await fetch(url, { headers: { authorization: `Bearer ${key.key}` } });
        const body = (await res.json()) as Report;
        if (res.status !== 200) throw new Error(`GET /v1/insights: ${res.status} ${JSON.stringify(body)}`);
        return { ms: performance.now() - s, body };
      };
      try {
        const first = await get();
        const warm: number[] = [];
        for (let i = 0; i < WARM_RUNS; i++) warm.push((await get()).ms);
        return { cold: first.ms, warm: median(warm), body: first.body };
      } finally {
        await app.close();
      }
    };
    try {
      // Before migration 0021's classifications: the report classifies the corrections itself.
      const readBefore = await readMedian();
      const before = await report();
      t0 = performance.now();
      await storeClassifications(db, ws, STORED);
      console.log(`insights: stored the classifications of the newest ${int(STORED)} corrections in ${dec((performance.now() - t0) / 1000, 1)} s`);
      const read = await readMedian();
      const current = await readInsightEvents(db, ws, start(from), start(today, 1));
      if (current.events.some((e) => e.type === 'correction' && e.correction === null)) throw new Error('a correction of the read has no stored classification');
      if (process.env.BENCH_INSIGHTS_EXPLAIN === '1') {
        const params = [ws, start(from).toISOString(), start(today, 1).toISOString(), INSIGHT_EVENTS_LIMIT + 1, false, CORRECTION_TEXT_CHARS, 2_000, CORRECTION_CLASS_VERSION];
        const plan = await db.query<Record<string, string>>(`EXPLAIN (ANALYZE, BUFFERS) ${INSIGHT_EVENTS_SQL}`, params);
        console.log(plan.map((row) => Object.values(row).join('')).join('\n'));
      }
      const after = await report();
      const same = JSON.stringify(after.body.correctionPatterns) === JSON.stringify(before.body.correctionPatterns);
      const { eventsRead, correctionPatterns, risingThemes } = after.body;
      console.log(
        `insights: eventsRead ${JSON.stringify(eventsRead)}, ${correctionPatterns.corrections} corrections classified, ${risingThemes.comments} / ${risingThemes.previousComments} comments\n` +
          `insights: bounded read (2 periods + rollup sums) ${dec(read, 1)} ms (${dec(readBefore, 1)} ms without stored classifications, which reads the texts)\n` +
          `insights: report, classifications stored: cold ${dec(after.cold, 0)} ms, warm ${dec(after.warm, 1)} ms | ` +
          `classified by the report (as before migration 0021): cold ${dec(before.cold, 0)} ms, warm ${dec(before.warm, 1)} ms (its cache of classifications by text) | same patterns: ${same ? 'yes' : 'NO'}`,
      );
      if (!same) throw new Error('the stored classifications and the report\'s own give other patterns');
      const label = `${int(events)} events`;
      const row = (name: string, value: number): BenchResult => ({
        name: `GET /v1/insights ${name} (${label})`, value, unit: 'ms', baseline: read, baselineLabel: 'ms bounded read', ratio: value / read, target: '< 1,000 ms', met: value < 1_000,
      });
      results.push(row('cold', after.cold), row('warm', after.warm), row('cold, classifying itself (before 0021)', before.cold));
    } finally {
      await close();
    }
  } finally {
    await db.close();
    await fresh.drop();
  }
  return results;
}

/** The parts of the report the benchmark prints and compares. */
interface Report {
  eventsRead: unknown;
  correctionPatterns: { corrections: number; patterns: unknown[] };
  risingThemes: { comments: number; previousComments: number };
}

if (isMain(import.meta.url)) {
  const { printTable } = await import('./bench-server.js');
  printTable(await runInsightsBench());
  process.exit(0);
}
