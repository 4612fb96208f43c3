/**
 * Seeds ONE workspace for the dashboard benchmark on a migrated Postgres database: `events`
 * feedback events over the last 90 days on `events / 4` responses (70 % of them rated, the rest
 * without feedback), written set-based (INSERT … SELECT over generate_series) with the derived
 * tables every dashboard page's API reads:
 *
 * - responses (5 agents, 4 models, query types, cited documents, an experiment `prompt-v2` with
 *   variants `control` and `concise` on the support and search agents of the last 60 days);
 * - feedback_events (+ feedback_event_ids) of every explicit, implicit and outcome type, with texts
 *   (SQL and text corrections, comments whose themes rise in the last 20 days, escalation reasons);
 * - feedback_signals, classified by the server's own classifier (bench/dashboard-seed-data.ts);
 * - response_scores (weighted mean of the signals' values; no decay, no conflict discount),
 *   experiment_response_facts and experiment_variant_totals, document_uses and
 *   document_effectiveness, feedback_metrics_hourly (last 14 days);
 * - the daily rollups (feedback_metrics_daily, stats cells, user sums, issue counts daily and
 *   weekly) by the server's own `rollupDay`, every day of the range;
 * - alerts (2 firing, a resolved history), webhooks, training batches, a declared experiment and
 *   consent rows.
 *
 * Secondary indexes are dropped while the bulk tables load and rebuilt from their own definitions
 * afterwards (an index build sorts once; maintaining nine indexes row by row would take hours on
 * this machine), then the database is vacuumed and analysed, as autovacuum would have left it.
 */
import { v7 as uuidv7 } from 'uuid';
import type pg from 'pg';
import { utcDay } from '../packages/core/src/index.js';
import { migrate } from '../packages/server/src/db/migrate.js';
import { openPostgres } from '../packages/server/src/db/postgres-client.js';
import { rollupDay } from '../packages/server/src/pipeline/rollup.js';
import { createWorkspace } from '../packages/server/src/store/workspaces.js';
import { withClient } from './bench-database.js';
import { int } from './bench-server.js';
import { AGENTS, AGENT_TEXTS, ANSWER_TAIL, DOCUMENTS, eventTemplates, MODELS, pickCase, QUERY_SUBJECTS, SLOTS } from './dashboard-seed-data.js';

/** The seeded workspace's name; a kept database is found again by it. */
export const SEEDED_WORKSPACE = 'dashboard-bench';
/** The user the Users page is opened on. */
export const BENCH_USER = 'user-42';
const DAYS = 90;
const DAY_MS = 86_400_000;
const EVENTS_PER_RESPONSE = 4;
/** A user has about this many responses (10,000 users at 10 M events). */
const RESPONSES_PER_USER = 250;
const CHUNK = 500_000;
const ROLLUP_WORKERS = 2;
/** The tables whose secondary indexes are rebuilt after the load. */
const BULK_TABLES = ['responses', 'feedback_events', 'feedback_signals'];

/** What a seeding did and how long each part took (seconds). */
export interface SeedReport {
  workspaceId: string;
  events: number;
  responses: number;
  users: number;
  seconds: Record<string, number>;
}

/** Runs `sql` and logs how long it took under `label`. */
type Step = (label: string, sql: string, params?: unknown[]) => Promise<void>;

/**
 * Seeds the workspace (see the module comment) and returns what it wrote.
 *
 * @example
 * const report = await seedDashboardWorkspace(fresh.url, 1_000_000, console.log);
 */
export async function seedDashboardWorkspace(url: string, events: number, log: (line: string) => void): Promise<SeedReport> {
  const responses = Math.ceil(events / EVENTS_PER_RESPONSE);
  const users = Math.max(100, Math.round(responses / RESPONSES_PER_USER));
  const seconds: Record<string, number> = {};
  const db = await openPostgres(url, { max: ROLLUP_WORKERS + 1 });
  let workspaceId = '';
  try {
    await migrate(db);
    workspaceId = (await createWorkspace(db, { name: SEEDED_WORKSPACE, settings: { implicitConsent: 'assumed' } })).workspace.id;
    const now = new Date();
    const start = new Date(Date.parse(`${utcDay(now)}T00:00:00Z`) - (DAYS - 1) * DAY_MS);
    await withClient(url, async (client) => {
      await client.query("SET TimeZone = 'UTC'; SET synchronous_commit = off; SET maintenance_work_mem = '512MB'; SET work_mem = '128MB'");
      const step: Step = async (label, sql, params = []) => {
        const t0 = performance.now();
        await client.query(sql, params);
        const s = (performance.now() - t0) / 1000;
        seconds[label] = (seconds[label] ?? 0) + s;
        log(`  ${label}: ${s.toFixed(1)} s`);
      };
      // The log's monthly partitions of the range (migrations make this month's and the next two).
      await client.query(`SELECT feedloop_ensure_event_partitions($1::timestamptz, 5)`, [new Date(start.getTime() - 31 * DAY_MS).toISOString()]);
      const indexes = await dropSecondaryIndexes(client);
      await stage(client, step, { workspaceId, responses, users, start, now });
      await loadEvents(client, step, workspaceId, events, responses);
      await step('ids sequence', `SELECT setval('feedback_events_seq', $1)`, [events + 1]);
      for (const { name, definition } of indexes) await step(`index ${name}`, definition);
      await step('analyze', 'ANALYZE');
      await derive(step, workspaceId);
      await extras(client, step, workspaceId, now);
    });
    const t0 = performance.now();
    const days = Array.from({ length: DAYS }, (_, d) => utcDay(new Date(start.getTime() + d * DAY_MS)));
    const todo = [...days];
    await Promise.all(
      Array.from({ length: ROLLUP_WORKERS }, async () => {
        for (let day = todo.shift(); day !== undefined; day = todo.shift()) {
          const d = day;
          await db.transaction((tx) => rollupDay(tx, workspaceId, d, now));
        }
      }),
    );
    seconds.rollups = (performance.now() - t0) / 1000;
    log(`  rollups (${DAYS} days, the server's rollupDay, ${ROLLUP_WORKERS} at a time): ${seconds.rollups.toFixed(1)} s`);
    await withClient(url, async (client) => {
      await client.query("SET TimeZone = 'UTC'; SET maintenance_work_mem = '512MB'");
      for (const table of ['bench_ev', 'bench_resp', 'bench_templates', 'bench_slots', 'bench_texts']) await client.query(`DROP TABLE IF EXISTS ${table}`);
      const t1 = performance.now();
      await client.query('VACUUM ANALYZE');
      seconds.vacuum = (performance.now() - t1) / 1000;
      log(`  vacuum analyze: ${seconds.vacuum.toFixed(1)} s`);
    });
  } finally {
    await db.close();
  }
  return { workspaceId, events, responses, users, seconds };
}

/** Drops the bulk tables' secondary indexes; returns their definitions to build them again. */
async function dropSecondaryIndexes(client: pg.Client): Promise<Array<{ name: string; definition: string }>> {
  const { rows } = await client.query<{ indexname: string; indexdef: string }>(
    `SELECT i.indexname, i.indexdef FROM pg_indexes i
      WHERE i.schemaname = 'public' AND i.tablename = ANY($1)
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)
      ORDER BY i.tablename, i.indexname`,
    [BULK_TABLES],
  );
  for (const r of rows) await client.query(`DROP INDEX ${r.indexname}`);
  // A partitioned table's index is listed as `ON ONLY` the parent; built again on the parent it covers every partition.
  return rows.map((r) => ({ name: r.indexname, definition: r.indexdef.replace(' ON ONLY ', ' ON ') }));
}

/** The staging tables: templates and their slots, response texts, and every response's draws. */
async function stage(
  client: pg.Client,
  step: Step,
  o: { workspaceId: string; responses: number; users: number; start: Date; now: Date },
): Promise<void> {
  const { templates, slots } = eventTemplates();
  await client.query(`CREATE UNLOGGED TABLE bench_templates (k int PRIMARY KEY, type text, source text, payload jsonb, edit_distance smallint,
    targets_document boolean, is_rating boolean, polarity text, severity text, categories text[], signal_class text, value float8, weight float8, first_pass boolean)`);
  await client.query(
    `INSERT INTO bench_templates SELECT * FROM json_to_recordset($1::json) AS x(k int, type text, source text, payload jsonb, edit_distance smallint,
       targets_document boolean, is_rating boolean, polarity text, severity text, categories text[], signal_class text, value float8, weight float8, first_pass boolean)`,
    [
      JSON.stringify(
        templates.map((t) => ({
          k: t.k, type: t.type, source: t.source, payload: t.payload, edit_distance: t.editDistance, targets_document: t.targetsDocument, is_rating: t.isRating,
          polarity: t.polarity, severity: t.severity, categories: t.categories, signal_class: t.signalClass, value: t.value, weight: t.weight, first_pass: t.firstPass,
        })),
      ),
    ],
  );
  await client.query('CREATE UNLOGGED TABLE bench_slots (grp int, slot int, k int, PRIMARY KEY (grp, slot))');
  await client.query('INSERT INTO bench_slots SELECT * FROM json_to_recordset($1::json) AS x(grp int, slot int, k int)', [
    JSON.stringify(slots.map(([grp, slot, k]) => ({ grp, slot, k }))),
  ]);
  await client.query('CREATE UNLOGGED TABLE bench_texts (agent text, qi int, query text, answer text, PRIMARY KEY (agent, qi))');
  await client.query('INSERT INTO bench_texts SELECT * FROM json_to_recordset($1::json) AS x(agent text, qi int, query text, answer text)', [
    JSON.stringify(Object.entries(AGENT_TEXTS).flatMap(([agent, list]) => list.map(([query, answer], qi) => ({ agent, qi, query, answer: answer + ANSWER_TAIL })))),
  ]);
  const textCount = `CASE agent ${Object.entries(AGENT_TEXTS).map(([a, l]) => `WHEN '${a}' THEN ${l.length}`).join(' ')} END`;
  const span = (o.now.getTime() - 10 * 60_000 - o.start.getTime()) / 1000;
  // grp: bit 0 the SQL agent, bit 1 the last 20 days, bit 2 the `concise` variant (dashboard-seed-data.ts).
  await step(
    'stage responses',
    `CREATE UNLOGGED TABLE bench_resp AS
     SELECT n, 'resp-' || lpad(n::text, 8, '0') AS id, created_at, user_id, 'sess-' || user_id || '-' || to_char(created_at, 'YYYYMMDD') AS session_id,
            agent, model,
            CASE agent WHEN 'sql' THEN 'sql' WHEN 'search' THEN 'lookup' WHEN 'billing' THEN 'billing'
                       WHEN 'support' THEN CASE WHEN e < 0.5 THEN 'howto' ELSE 'troubleshoot' END ELSE 'howto' END AS query_type,
            experiment_id, CASE WHEN experiment_id IS NOT NULL THEN CASE WHEN f < 0.5 THEN 'control' ELSE 'concise' END END AS variant,
            CASE WHEN agent = 'sql' THEN NULL
                 ELSE (ARRAY[($5::text[])[1 + floor(h * h * $6)::int], ($5::text[])[1 + floor(i * i * $6)::int],
                             ($5::text[])[1 + floor(j * $6)::int]])[1:1 + floor(k * 3)::int] END AS docs,
            floor(e * ${textCount})::int AS qi,
            (agent = 'sql')::int + 2 * (created_at >= $4::timestamptz - interval '20 days')::int
              + 4 * (experiment_id IS NOT NULL AND f >= 0.5)::int AS grp
       FROM (SELECT n, created_at, user_id, agent, model, e, f, h, i, j, k,
                    CASE WHEN agent IN ('support', 'search') AND created_at >= $4::timestamptz - interval '60 days' THEN 'prompt-v2' END AS experiment_id
               FROM (SELECT n, $2::timestamptz + ((n + a) / $1::float8) * ($3::float8 * interval '1 second') AS created_at,
                            'user-' || floor(b * $7)::int AS user_id, ${pickCase('c', AGENTS)} AS agent, ${pickCase('d', MODELS)} AS model, e, f, h, i, j, k
                       FROM (SELECT n, random() a, random() b, random() c, random() d, random() e, random() f, random() h, random() i, random() j, random() k
                               FROM generate_series(0, $1::int - 1) n) g) d) x`,
    [o.responses, o.start.toISOString(), span, o.now.toISOString(), DOCUMENTS, DOCUMENTS.length, o.users],
  );
  await client.query('ALTER TABLE bench_resp ADD PRIMARY KEY (n)');
  await step(
    'responses',
    `INSERT INTO responses (workspace_id, id, session_id, user_id, query, answer, context_document_ids, context_token_count, model, agent, query_type,
                            experiment_id, variant, metadata, created_at, received_at)
     SELECT $1, r.id, r.session_id, r.user_id, t.query || CASE WHEN r.n % 3 = 0 THEN '' ELSE ' (' || ($2::text[])[1 + (r.n / 7) % $3] || ')' END,
            t.answer, COALESCE(to_jsonb(r.docs), '[]'::jsonb), 800 + r.n % 1200, r.model, r.agent, r.query_type, r.experiment_id, r.variant,
            jsonb_build_object('channel', CASE WHEN r.n % 4 = 0 THEN 'slack' ELSE 'web' END), r.created_at, r.created_at + interval '50 milliseconds'
       FROM bench_resp r JOIN bench_texts t ON t.agent = r.agent AND t.qi = r.qi
      ORDER BY r.n`,
    [o.workspaceId, QUERY_SUBJECTS, QUERY_SUBJECTS.length],
  );
}

/**
 * The events, their ids and their signals, in chunks. Event j lies on the k-th rated response,
 * k = j × rated / events (rated responses: n % 10 < 7), so each rated response gets 5 or 6 events
 * within an hour of it; its kind is a random slot of the response's group.
 */
async function loadEvents(client: pg.Client, step: Step, workspaceId: string, events: number, responses: number): Promise<void> {
  const rated = 7 * Math.floor(responses / 10) + Math.min(responses % 10, 7);
  await client.query('CREATE UNLOGGED TABLE bench_ev (j int, n int, k int, occurred_at timestamptz, received_at timestamptz, user_id text)');
  const users = Math.max(100, Math.round(responses / RESPONSES_PER_USER));
  for (let a = 0; a < events; a += CHUNK) {
    const b = Math.min(events, a + CHUNK) - 1;
    await step(
      'stage events',
      `INSERT INTO bench_ev (j, n, k, occurred_at, received_at, user_id)
       SELECT g.j, g.n, s.k, o.occ, o.occ + g.r3 * interval '5 seconds',
              CASE WHEN g.r4 < 0.85 THEN r.user_id ELSE 'user-' || floor(g.r5 * $5)::int END
         FROM (SELECT j, 10 * (kk / 7) + kk % 7 AS n, random() r1, random() r2, random() r3, random() r4, random() r5
                 FROM (SELECT j, (j::bigint * $3 / $4)::int AS kk FROM generate_series($1::int, $2::int) j) x) g
         JOIN bench_resp r ON r.n = g.n
         JOIN bench_slots s ON s.grp = r.grp AND s.slot = floor(g.r1 * ${SLOTS})::int
         CROSS JOIN LATERAL (SELECT least(r.created_at + g.r2 * interval '50 minutes', now() - interval '1 second') AS occ) o`,
      [a, b, rated, events, users],
    );
    const chunk = 'FROM bench_ev v JOIN bench_resp r ON r.n = v.n JOIN bench_templates t ON t.k = v.k WHERE v.j BETWEEN $2 AND $3';
    await step(
      'feedback_events',
      `INSERT INTO feedback_events (seq, workspace_id, id, response_id, type, source, user_id, session_id, target_id, payload, edit_distance, occurred_at, received_at)
       SELECT v.j + 1, $1, 'ev-' || lpad(v.j::text, 9, '0'), r.id, t.type, t.source, v.user_id, r.session_id,
              CASE WHEN t.targets_document THEN r.docs[1] END, t.payload, t.edit_distance, v.occurred_at, v.received_at
         ${chunk} ORDER BY v.j`,
      [workspaceId, a, b],
    );
    await step(
      'feedback_event_ids',
      `INSERT INTO feedback_event_ids (workspace_id, id, received_at, seq)
       SELECT $1, 'ev-' || lpad(v.j::text, 9, '0'), v.received_at, v.j + 1 FROM bench_ev v WHERE v.j BETWEEN $2 AND $3 ORDER BY v.j`,
      [workspaceId, a, b],
    );
    await step(
      'feedback_signals',
      `INSERT INTO feedback_signals (workspace_id, event_id, response_id, user_id, session_id, type, status, polarity, severity, categories, signal_class,
                                     value, weight, first_pass, occurred_at, processed_at)
       SELECT $1, 'ev-' || lpad(v.j::text, 9, '0'), r.id, v.user_id, r.session_id, t.type, 'counted', t.polarity, t.severity, t.categories, t.signal_class,
              t.value, t.weight, t.first_pass, v.occurred_at, v.received_at + interval '1 second'
         ${chunk} ORDER BY v.j`,
      [workspaceId, a, b],
    );
    console.log(`  … ${int(b + 1)} of ${int(events)} events`);
  }
}

/** The tables the pipeline derives from signals, written set-based from the staged events. */
async function derive(step: Step, workspaceId: string): Promise<void> {
  await step(
    'response_scores',
    `INSERT INTO response_scores (workspace_id, response_id, score, confidence, weight_sum, signal_count, conflicts, computed_at)
     SELECT $1, r.id, CASE WHEN s.w > 0 THEN greatest(-1, least(1, s.wv / s.w)) END, s.w / (s.w + 1), s.w, s.c, '[]'::jsonb, s.at
       FROM (SELECT v.n, sum(t.weight) AS w, sum(t.weight * t.value) AS wv, count(*) AS c, max(v.received_at) + interval '2 seconds' AS at
               FROM bench_ev v JOIN bench_templates t ON t.k = v.k GROUP BY v.n) s
       JOIN bench_resp r ON r.n = s.n`,
    [workspaceId],
  );
  await step(
    'experiment_response_facts',
    `INSERT INTO experiment_response_facts (workspace_id, response_id, experiment_id, variant, rated, positive, corrected, edits, edit_distance_sum, score)
     SELECT $1, r.id, r.experiment_id, r.variant, f.up + f.down > 0, f.up > f.down, f.corrections > 0, f.edits, f.edit_sum, sc.score
       FROM (SELECT v.n, count(*) FILTER (WHERE t.is_rating AND t.polarity = 'positive') AS up,
                    count(*) FILTER (WHERE t.is_rating AND t.polarity = 'negative') AS down,
                    count(*) FILTER (WHERE t.type = 'correction') AS corrections,
                    count(t.edit_distance) FILTER (WHERE t.type IN ('correction', 'edit')) AS edits,
                    COALESCE(sum(t.edit_distance) FILTER (WHERE t.type IN ('correction', 'edit')), 0) AS edit_sum
               FROM bench_ev v JOIN bench_templates t ON t.k = v.k JOIN bench_resp r0 ON r0.n = v.n
              WHERE r0.experiment_id IS NOT NULL GROUP BY v.n) f
       JOIN bench_resp r ON r.n = f.n
       LEFT JOIN response_scores sc ON sc.workspace_id = $1 AND sc.response_id = r.id`,
    [workspaceId],
  );
  await step(
    'experiment_variant_totals',
    `INSERT INTO experiment_variant_totals (workspace_id, experiment_id, variant, rated, positive, corrected, edits, edit_distance_sum, scored, score_sum, score_sum_squares)
     SELECT workspace_id, experiment_id, variant, count(*) FILTER (WHERE rated), count(*) FILTER (WHERE positive), count(*) FILTER (WHERE corrected),
            sum(edits), sum(edit_distance_sum), count(score), COALESCE(sum(score), 0), COALESCE(sum(score * score), 0)
       FROM experiment_response_facts WHERE workspace_id = $1 GROUP BY workspace_id, experiment_id, variant`,
    [workspaceId],
  );
  await step(
    'document_uses',
    `INSERT INTO document_uses (workspace_id, document_id, uses)
     SELECT $1, d, count(DISTINCT n) FROM bench_resp, unnest(docs) AS d GROUP BY d`,
    [workspaceId],
  );
  // Each counted signal adds to every distinct document of its response (core document-tally).
  await step(
    'document_effectiveness',
    `WITH per AS (
       SELECT rd.d, t.polarity, t.value, t.weight, t.categories
         FROM bench_ev v JOIN bench_templates t ON t.k = v.k
         JOIN (SELECT DISTINCT n, d FROM bench_resp, unnest(docs) AS d) rd ON rd.n = v.n),
     cats AS (
       SELECT d, jsonb_object_agg(c, cnt) AS counts
         FROM (SELECT d, c, count(*) AS cnt FROM per, unnest(per.categories) AS c WHERE polarity = 'negative' GROUP BY d, c) x GROUP BY d)
     INSERT INTO document_effectiveness (workspace_id, document_id, positive, negative, neutral, weighted_value, weight, error_category_counts)
     SELECT $1, a.d, a.positive, a.negative, a.neutral, a.wv, a.w, COALESCE(cats.counts, '{}'::jsonb)
       FROM (SELECT d, count(*) FILTER (WHERE polarity = 'positive') AS positive, count(*) FILTER (WHERE polarity = 'negative') AS negative,
                    count(*) FILTER (WHERE polarity = 'neutral') AS neutral, sum(weight * value) AS wv, sum(weight) AS w
               FROM per GROUP BY d) a
       LEFT JOIN cats ON cats.d = a.d`,
    [workspaceId],
  );
  await step(
    'feedback_metrics_hourly',
    `WITH s AS (
       SELECT date_trunc('hour', v.occurred_at) AS h, t.type, t.is_rating, t.polarity, t.categories
         FROM bench_ev v JOIN bench_templates t ON t.k = v.k WHERE v.occurred_at >= now() - interval '14 days'),
     cats AS (
       SELECT h, jsonb_object_agg(c, cnt) AS counts
         FROM (SELECT h, c, count(*) AS cnt FROM s, unnest(s.categories) AS c WHERE polarity = 'negative' GROUP BY h, c) x GROUP BY h)
     INSERT INTO feedback_metrics_hourly (workspace_id, hour, rated, positive, negative, corrections, escalations, negative_categories)
     SELECT $1, a.h, a.rated, a.positive, a.negative, a.corrections, a.escalations, COALESCE(cats.counts, '{}'::jsonb)
       FROM (SELECT h, count(*) FILTER (WHERE is_rating AND polarity <> 'neutral') AS rated,
                    count(*) FILTER (WHERE is_rating AND polarity = 'positive') AS positive,
                    count(*) FILTER (WHERE is_rating AND polarity = 'negative') AS negative,
                    count(*) FILTER (WHERE type = 'correction') AS corrections, count(*) FILTER (WHERE type = 'escalation') AS escalations
               FROM s GROUP BY h) a
       LEFT JOIN cats ON cats.h = a.h`,
    [workspaceId],
  );
}

/** The small tables the other pages read: alerts, webhooks, training batches, a declared experiment, consent. */
async function extras(client: pg.Client, step: Step, workspaceId: string, now: Date): Promise<void> {
  const alerts: unknown[] = [];
  const kinds = [
    ['satisfaction-warning', 'satisfaction', 'warning', 'positive_rate', 70, 'Satisfaction fell to 64.2 % (threshold 70 %) over the last hour'],
    ['correction-rate', 'correction_rate', 'warning', 'correction_rate', 20, 'Correction rate rose to 23.5 % (threshold 20 %)'],
    ['escalation-rate', 'escalation_rate', 'warning', 'escalation_rate', 10, 'Escalation rate rose to 12.1 % (threshold 10 %)'],
    ['satisfaction-critical', 'satisfaction', 'critical', 'positive_rate', 50, 'Satisfaction fell to 46.0 % (threshold 50 %)'],
  ] as const;
  // About two alerts a day over the 90 days, each resolved within hours; the newest two still firing.
  for (let i = 0; i < 180; i++) {
    const [ruleId, kind, severity, metric, threshold, message] = kinds[i % kinds.length] ?? kinds[0];
    const active = now.getTime() - (DAYS * DAY_MS * (180 - i)) / 180;
    const firing = i >= 178;
    alerts.push({
      id: `al_${uuidv7({ msecs: active })}`, rule_id: ruleId, fingerprint: `${ruleId}:${i}`, kind, severity, state: firing ? 'firing' : 'resolved',
      labels: { workspace: workspaceId, agent: i % 2 ? 'sql' : 'support' }, metric, value: threshold * (kind === 'satisfaction' ? 0.9 : 1.15), threshold,
      sample: 400 + i, message, active_at: new Date(active).toISOString(), fired_at: new Date(active + 300_000).toISOString(),
      resolved_at: firing ? null : new Date(active + 3 * 3_600_000).toISOString(),
    });
  }
  await step(
    'alerts',
    `INSERT INTO alerts (id, workspace_id, rule_id, fingerprint, kind, severity, state, labels, metric, value, threshold, sample, message, active_at, fired_at, resolved_at)
     SELECT id, $1, rule_id, fingerprint, kind, severity, state, labels, metric, value, threshold, sample, message, active_at, fired_at, resolved_at
       FROM json_to_recordset($2::json) AS x(id text, rule_id text, fingerprint text, kind text, severity text, state text, labels jsonb, metric text,
            value float8, threshold float8, sample int, message text, active_at timestamptz, fired_at timestamptz, resolved_at timestamptz)`,
    [workspaceId, JSON.stringify(alerts)],
  );
  await client.query(
    `INSERT INTO webhooks (id, workspace_id, url, events, secret, format) VALUES
       ($2, $1, 'https://hooks.example.com/feedloop', '{feedback.negative,alert.firing}', 'whsec_bench_1', 'feedloop'),
       ($3, $1, 'https://hooks.slack.com/services/T000/B000/XXXX', '{alert.firing,alert.resolved}', 'whsec_bench_2', 'slack')`,
    [workspaceId, `wh_${uuidv7()}`, `wh_${uuidv7()}`],
  );
  const batches = Array.from({ length: 12 }, (_, i) => {
    const at = now.getTime() - (12 - i) * 7 * DAY_MS;
    const kind = ['corrections', 'sft', 'kto'][i % 3] ?? 'sft';
    return { id: `tb_${uuidv7({ msecs: at })}`, kind, format: 'jsonl', event_count: 10_000, row_count: 9_800 + i, file: `/var/lib/feedloop/batches/${kind}-${i}.jsonl`, created_at: new Date(at).toISOString() };
  });
  await client.query(
    `INSERT INTO training_batches (workspace_id, id, kind, format, event_count, row_count, file, created_at)
     SELECT $1, id, kind, format, event_count, row_count, file, created_at
       FROM json_to_recordset($2::json) AS x(id text, kind text, format text, event_count int, row_count int, file text, created_at timestamptz)`,
    [workspaceId, JSON.stringify(batches)],
  );
  await client.query(
    `INSERT INTO experiments (workspace_id, id, control, metric, min_sample) VALUES ($1, 'prompt-v2', 'control', 'satisfaction', 100)`,
    [workspaceId],
  );
  await step(
    'user_consent',
    `INSERT INTO user_consent (workspace_id, user_id, explicit, implicit, outcome)
     SELECT $1, 'user-' || u, true, u % 3 <> 0, NULL FROM generate_series(0, 999) AS u WHERE u % 7 = 0 OR u = 42`,
    [workspaceId],
  );
}
