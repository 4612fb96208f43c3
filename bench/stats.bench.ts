/**
 * Stats benchmark (issue 9): `GET /v1/stats` reads rollups, never events. Loads
 * BENCH_STATS_EVENTS (default 10,000,000) counted events over 90 days in 20 workspaces straight
 * into the tables with COPY (responses, feedback_events, feedback_event_ids, feedback_signals),
 * rolls every (workspace, day) up, then measures p50/p95 of `GET /v1/stats` over HTTP for 30 and
 * 90 days beside a plain GROUP BY over the events that computes the same figures (same run, same
 * database), and checks the two agree. Targets: p95 < 25 ms and ≥ 50× faster than the GROUP BY.
 *
 * Run: npm run build && node --import tsx bench/stats.bench.ts
 * Knobs: BENCH_STATS_EVENTS, BENCH_STATS_REQUESTS (200 per range), BENCH_DATABASE_URL.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import copyStreams from 'pg-copy-streams';
import { sourceOfType, utcDay, type FeedbackEventType } from '../packages/core/src/index.js';
import { loadConfig } from '../packages/server/src/config.js';
import { migrate } from '../packages/server/src/db/migrate.js';
import { openPostgres } from '../packages/server/src/db/postgres-client.js';
import { buildApp } from '../packages/server/src/http/app.js';
import { rollupDay } from '../packages/server/src/pipeline/rollup.js';
import { createServices } from '../packages/server/src/server.js';
import { createApiKey } from '../packages/server/src/store/api-keys.js';
import { createWorkspace } from '../packages/server/src/store/workspaces.js';
import { createFreshDatabase, withClient } from './bench-database.js';
import { envInt, int, isMain, LOOPBACK, token, type BenchResult } from './bench-server.js';

const WORKSPACES = 20;
const DAYS = 90;
const EVENTS_PER_RESPONSE = 5;
const RESPONSES_PER_SESSION = 3;
const USERS = 1_000;
const QUERIES = 300;
const ROWS_PER_COPY = 50_000;
const ROLLUP_WORKERS = 4;
const P95_TARGET_MS = 25;
const SPEEDUP_TARGET = 50;
const GROUP_BY_RUNS = 3;
const DAY_MS = 86_400_000;
const AGENTS = ['sql', 'chat', 'search', 'support'];
const MODELS = ['m-large', 'm-small', 'm-mini'];
const QUERY_TYPES = ['sql', 'lookup', 'howto'];
const CATEGORIES = ['accuracy', 'relevance', 'completeness', 'timeliness', 'other'];
const RATING_TYPES = ['thumbs_up', 'thumbs_down', 'rating', 'rate_usefulness'];

/** The event mix: type, share, polarity, value. */
const MIX: Array<{ type: string; until: number; polarity: string; value: number }> = [
  { type: 'thumbs_up', until: 0.45, polarity: 'positive', value: 1 },
  { type: 'thumbs_down', until: 0.65, polarity: 'negative', value: -1 },
  { type: 'rating', until: 0.75, polarity: 'positive', value: 1 },
  { type: 'correction', until: 0.8, polarity: 'negative', value: -0.6 },
  { type: 'escalation', until: 0.82, polarity: 'negative', value: -1 },
  { type: 'comment', until: 0.9, polarity: 'neutral', value: 0 },
  { type: 'skip', until: 1, polarity: 'neutral', value: 0 },
];

/** A small deterministic PRNG (mulberry32), so a run's data is the same every time. */
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

const pick = <T>(rand: () => number, list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
/** COPY text escaping for the few characters our generated values could hold. */
const copyText = (v: string | null): string => (v === null ? '\\N' : v.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n'));

/** Streams rows (tab-separated lines) into one COPY statement. */
async function copyRows(client: pg.Client, statement: string, rows: Iterable<string>): Promise<void> {
  const stream = client.query(copyStreams.from(statement));
  const done = new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
  });
  let chunk: string[] = [];
  for (const row of rows) {
    chunk.push(row);
    if (chunk.length >= ROWS_PER_COPY) {
      if (!stream.write(`${chunk.join('\n')}\n`)) await once(stream, 'drain');
      chunk = [];
    }
  }
  if (chunk.length > 0) stream.write(`${chunk.join('\n')}\n`);
  stream.end();
  await done;
}

/** Loads one workspace's responses and events (all counted) with COPY. */
async function loadWorkspace(client: pg.Client, ws: string, events: number, firstSeq: number, todayMs: number): Promise<void> {
  const rand = prng(Number.parseInt(ws.slice(-6), 16) || 1);
  const responsesN = Math.max(1, Math.ceil(events / EVENTS_PER_RESPONSE));
  const startMs = todayMs - (DAYS - 1) * DAY_MS;
  const responses = Array.from({ length: responsesN }, (_, i) => {
    const createdMs = startMs + Math.floor((i / responsesN) * DAYS * DAY_MS);
    return {
      id: `r${i}`,
      createdMs,
      session: rand() < 0.1 ? null : `s${Math.floor(i / RESPONSES_PER_SESSION)}`,
      user: `u${Math.floor(rand() * USERS)}`,
      agent: pick(rand, AGENTS),
      model: pick(rand, MODELS),
      queryType: pick(rand, QUERY_TYPES),
      variant: rand() < 0.5 ? 'A' : 'B',
      query: `question number ${Math.floor(rand() ** 2 * QUERIES)}?`,
    };
  });
  await copyRows(
    client,
    'COPY responses (workspace_id, id, session_id, user_id, query, answer, model, agent, query_type, experiment_id, variant, created_at, received_at) FROM STDIN',
    responses.map((r) => {
      const at = new Date(r.createdMs).toISOString();
      return [ws, r.id, copyText(r.session), r.user, r.query, 'an answer', r.model, r.agent, r.queryType, 'exp1', r.variant, at, at].join('\t');
    }),
  );
  // One pass makes each event's row for all three tables, so they agree on every field.
  const lines = { events: [] as string[], ids: [] as string[], signals: [] as string[] };
  const r = prng(7 + firstSeq);
  for (let i = 0; i < events; i++) {
    const resp = responses[Math.floor(i / EVENTS_PER_RESPONSE)] ?? responses[0];
    const roll = r();
    const mix = MIX.find((m) => roll < m.until) ?? MIX[MIX.length - 1];
    if (resp === undefined || mix === undefined) break;
    const user = `u${Math.floor(r() * USERS)}`;
    // Feedback comes within an hour of its response, and never after now.
    const occurred = new Date(Math.min(resp.createdMs + Math.floor(r() * 3_600_000), Date.now() - 1000)).toISOString();
    const category = (mix.type === 'thumbs_down' || mix.type === 'thumbs_up') && r() < 0.5 ? pick(r, CATEGORIES) : null;
    const id = `e${i}`;
    const seq = firstSeq + i;
    const payload = mix.type === 'rating' ? '{"rating": 5}' : category === null ? '{}' : `{"category": "${category}"}`;
    const editDistance = mix.type === 'correction' ? String(Math.floor(r() * 60)) : '\\N';
    lines.events.push([seq, ws, id, resp.id, mix.type, sourceOfType(mix.type as FeedbackEventType), user, copyText(resp.session), '\\N', payload, '\\N', editDistance, occurred, occurred].join('\t'));
    lines.ids.push([ws, id, occurred, seq].join('\t'));
    const firstPass = mix.polarity === 'positive' ? 't' : mix.polarity === 'negative' ? 'f' : '\\N';
    const categories = category === null ? '{}' : `{${category}}`;
    lines.signals.push([ws, id, resp.id, user, copyText(resp.session), mix.type, 'counted', mix.polarity, 'none', categories, 'explicit', mix.value, 1, firstPass, occurred].join('\t'));
  }
  await copyRows(
    client,
    'COPY feedback_events (seq, workspace_id, id, response_id, type, source, user_id, session_id, target_id, payload, metadata, edit_distance, occurred_at, received_at) FROM STDIN',
    lines.events,
  );
  await copyRows(client, 'COPY feedback_event_ids (workspace_id, id, received_at, seq) FROM STDIN', lines.ids);
  await copyRows(
    client,
    'COPY feedback_signals (workspace_id, event_id, response_id, user_id, session_id, type, status, polarity, severity, categories, signal_class, value, weight, first_pass, occurred_at) FROM STDIN',
    lines.signals,
  );
}

/** The longest the benchmark waits for autovacuum before it measures anyway. */
const AUTOVACUUM_WAIT_MS = 15 * 60_000;

/**
 * Waits until no autovacuum worker runs in this database for 3 s in a row (at most
 * {@link AUTOVACUUM_WAIT_MS}); how long it waited. Ten million freshly copied rows keep autovacuum
 * busy for minutes after the load, and a run that measured during it read 30 days at p50 27 ms
 * (5 ms at a tenth of the data, where autovacuum was done): the figure was the vacuum's, not the
 * steady state's that a running server is in.
 */
async function autovacuumSettled(db: { query<R>(text: string): Promise<R[]> }): Promise<number> {
  const started = performance.now();
  let quiet = 0;
  while (quiet < 3 && performance.now() - started < AUTOVACUUM_WAIT_MS) {
    const [row] = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'autovacuum worker' AND datname = current_database()",
    );
    quiet = (row?.n ?? 0) === 0 ? quiet + 1 : 0;
    await new Promise((r) => setTimeout(r, 1_000));
  }
  return performance.now() - started;
}

/**
 * The plain way: the same figures straight from the events (as the rollup's own join reads
 * them), grouped on every request. Returns what the API also answers, to check they agree.
 */
async function groupByOverEvents(client: pg.Client, ws: string, from: string, to: string): Promise<{ positive: number; negative: number; responses: number; corrected: number }> {
  const range = [ws, from, to];
  const bounds = `s.occurred_at >= ($2::date)::timestamp AT TIME ZONE 'UTC' AND s.occurred_at < ($3::date + 1)::timestamp AT TIME ZONE 'UTC'`;
  const joined = `FROM feedback_signals s
       JOIN feedback_event_ids k ON k.workspace_id = s.workspace_id AND k.id = s.event_id
       JOIN feedback_events e ON e.workspace_id = k.workspace_id AND e.seq = k.seq AND e.received_at = k.received_at`;
  const where = `WHERE s.workspace_id = $1 AND s.status = 'counted' AND e.superseded_by IS NULL AND ${bounds}`;
  // One connection runs them one after the other, as one request would.
  const byDay = await client.query<{ positive: string; negative: string }>(
    `SELECT (s.occurred_at AT TIME ZONE 'UTC')::date AS day, count(*) AS events,
            count(*) FILTER (WHERE s.type = ANY($4) AND s.polarity = 'positive') AS positive,
            count(*) FILTER (WHERE s.type = ANY($4) AND s.polarity = 'negative') AS negative,
            avg(e.edit_distance) FILTER (WHERE s.type IN ('correction', 'edit')) AS edit_distance
       ${joined} ${where} GROUP BY 1`,
    [...range, RATING_TYPES],
  );
  await client.query(`SELECT c, s.polarity, count(*) ${joined} CROSS JOIN LATERAL unnest(s.categories) AS c ${where} GROUP BY 1, 2`, range);
  await client.query(
    `SELECT lower(r.query) AS q, count(*) ${joined} JOIN responses r ON r.workspace_id = s.workspace_id AND r.id = s.response_id
       ${where} AND s.polarity = 'negative' AND s.type = ANY($4) GROUP BY 1 ORDER BY 2 DESC LIMIT 10`,
    [...range, RATING_TYPES],
  );
  const registered = await client.query<{ responses: string; corrected: string }>(
    `SELECT count(*) AS responses,
            count(*) FILTER (WHERE EXISTS (SELECT 1 FROM feedback_signals c WHERE c.workspace_id = r.workspace_id AND c.response_id = r.id
                                            AND c.status = 'counted' AND c.type = 'correction')) AS corrected
       FROM responses r
      WHERE r.workspace_id = $1 AND r.created_at >= ($2::date)::timestamp AT TIME ZONE 'UTC' AND r.created_at < ($3::date + 1)::timestamp AT TIME ZONE 'UTC'`,
    range,
  );
  return {
    positive: byDay.rows.reduce((n, r) => n + Number(r.positive), 0),
    negative: byDay.rows.reduce((n, r) => n + Number(r.negative), 0),
    responses: Number(registered.rows[0]?.responses ?? 0),
    corrected: Number(registered.rows[0]?.corrected ?? 0),
  };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** Runs the stats benchmark. */
export async function runStatsBench(): Promise<BenchResult[]> {
  const total = envInt('BENCH_STATS_EVENTS', 10_000_000);
  const requests = envInt('BENCH_STATS_REQUESTS', 200);
  const fresh = await createFreshDatabase();
  const db = await openPostgres(fresh.url, { max: ROLLUP_WORKERS + 2 });
  const results: BenchResult[] = [];
  try {
    await migrate(db);
    const workspaces: string[] = [];
    for (let w = 0; w < WORKSPACES; w++) workspaces.push((await createWorkspace(db, { name: `stats-bench-${token(3)}` })).workspace.id);
    const todayMs = Date.parse(`${utcDay(new Date())}T00:00:00Z`);
    const perWorkspace = Math.floor(total / WORKSPACES);
    let t0 = performance.now();
    await withClient(fresh.url, async (client) => {
      for (const [w, ws] of workspaces.entries()) await loadWorkspace(client, ws, perWorkspace, w * perWorkspace + 1, todayMs);
      await client.query(`SELECT setval('feedback_events_seq', $1)`, [WORKSPACES * perWorkspace + 1]);
      await client.query('ANALYZE');
    });
    console.log(`stats: loaded ${int(perWorkspace * WORKSPACES)} events (${int(perWorkspace)} a workspace, ${WORKSPACES} workspaces, ${DAYS} days) with COPY in ${((performance.now() - t0) / 1000).toFixed(0)} s`);

    t0 = performance.now();
    const days = Array.from({ length: DAYS }, (_, d) => utcDay(new Date(todayMs - d * DAY_MS)));
    const todo = workspaces.flatMap((ws) => days.map((day) => ({ ws, day })));
    const now = new Date();
    await Promise.all(
      Array.from({ length: ROLLUP_WORKERS }, async () => {
        for (let job = todo.pop(); job !== undefined; job = todo.pop()) {
          const { ws, day } = job;
          await db.transaction((tx) => rollupDay(tx, ws, day, now));
        }
      }),
    );
    await db.exec('ANALYZE feedback_metrics_daily; ANALYZE feedback_stats_cells; ANALYZE feedback_issue_counts');
    console.log(`stats: rolled up ${int(WORKSPACES * DAYS)} workspace-days in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    const settled = await autovacuumSettled(db);
    console.log(`stats: waited ${(settled / 1000).toFixed(0)} s for autovacuum to finish with the loaded tables`);

    const ws = workspaces[0] ?? '';
    const key = await createApiKey(db, ws, 'secret');
    const config = loadConfig({ DATABASE_URL: fresh.url, LOG_LEVEL: 'silent' });
    const { services, close } = createServices(config, db);
    const app = await buildApp(services, { logger: false });
    await app.listen({ host: LOOPBACK, port: 0 });
    const base = `http://${LOOPBACK}:${(app.server.address() as AddressInfo).port}`;
    try {
      for (const span of [30, 90]) {
        const from = utcDay(new Date(todayMs - (span - 1) * DAY_MS));
        const to = utcDay(new Date(todayMs));
        const url = `${base}/v1/stats?from=${from}&to=${to}`;
        const get = async () => {
          const res = await fetch(url, { headers: { authorization: `Bearer ${key.key}` } });
          if (res.status !== 200) throw new Error(`GET /v1/stats: ${res.status} ${await res.text()}`);
          return (await res.json()) as { positive: number; negative: number; responses: number; correctionRate: number | null };
        };
        for (let i = 0; i < 20; i++) await get();
        const times: number[] = [];
        let answer = await get();
        for (let i = 0; i < requests; i++) {
          const s = performance.now();
          answer = await get();
          times.push(performance.now() - s);
        }
        times.sort((a, b) => a - b);
        const groupTimes: number[] = [];
        let plain = { positive: 0, negative: 0, responses: 0, corrected: 0 };
        await withClient(fresh.url, async (client) => {
          for (let i = 0; i < GROUP_BY_RUNS; i++) {
            const s = performance.now();
            plain = await groupByOverEvents(client, ws, from, to);
            groupTimes.push(performance.now() - s);
          }
        });
        groupTimes.sort((a, b) => a - b);
        const same = plain.positive === answer.positive && plain.negative === answer.negative && plain.responses === answer.responses;
        const p50 = percentile(times, 50);
        const p95 = percentile(times, 95);
        const groupP50 = percentile(groupTimes, 50);
        console.log(
          `stats ${span} d: GET /v1/stats p50 ${p50.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms (${requests} requests) | GROUP BY over the events p50 ${groupP50.toFixed(0)} ms ` +
            `(${GROUP_BY_RUNS} runs) | same answer: ${same ? 'yes' : 'NO'} (positive ${int(answer.positive)} / ${int(plain.positive)}, negative ${int(answer.negative)} / ${int(plain.negative)}, responses ${int(answer.responses)} / ${int(plain.responses)})`,
        );
        if (!same) throw new Error(`the stats and the GROUP BY disagree over ${span} days`);
        const ratio = groupP50 / p95;
        results.push({
          name: `GET /v1/stats ${span} days (${int(perWorkspace)} events a workspace)`,
          value: p95,
          unit: 'ms p95',
          baseline: groupP50,
          baselineLabel: 'ms GROUP BY p50',
          ratio,
          target: `p95 < ${P95_TARGET_MS} ms, >= ${SPEEDUP_TARGET}x`,
          met: p95 < P95_TARGET_MS && ratio >= SPEEDUP_TARGET,
        });
      }
    } finally {
      await app.close();
      await close();
    }
  } finally {
    await db.close();
    await fresh.drop();
  }
  return results;
}

if (isMain(import.meta.url)) {
  const { printTable } = await import('./bench-server.js');
  printTable(await runStatsBench());
}
