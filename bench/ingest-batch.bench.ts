/**
 * Benchmark: batched ingest. A few keep-alive HTTP clients send `POST /v1/feedback/batch` with
 * 1,000 events each to a feedloop server (child process, fresh Postgres database) for ~10 s;
 * the figure is accepted events per second. Baseline, same run: a raw
 * `COPY` of as many equivalent rows into every table the writer fills (the log, its id keys, open
 * fingerprints, current votes, the outbox; a scratch workspace with its own responses), and (issue 8) a `COPY` of the same events into a minimal table
 * (bench/minimal-table.ts: id + JSON body, one index).
 *
 * Run: npm run build && node --import tsx bench/ingest-batch.bench.ts
 * Knobs: BENCH_DATABASE_URL, BENCH_DURATION_MS (10000), BENCH_BATCH_CLIENTS (4), BENCH_BATCH_MAX (1000 requests),
 *        BENCH_CPU_PROF=<dir> (profile the server).
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type pg from 'pg';
import copyStreams from 'pg-copy-streams';
import {
  contentFingerprint,
  editDistancePercent,
  sourceOfType,
  voteSlot,
  type FeedbackEvent,
} from '../packages/core/src/index.js';
import {
  batchSizeStats,
  describeBatchStats,
  describeCpu,
  diffBatchStats,
  fetchMetrics,
  sampleCpu,
} from './bench-measure.js';
import {
  dec,
  int,
  isMain,
  keepAliveAgent,
  post,
  sleep,
  token,
  type BenchResult,
  type ChildServer,
  startFeedloop,
  envInt,
} from './bench-server.js';
import { analyzeIfAsked, createFreshDatabase, withClient } from './bench-database.js';
import {
  makeEvent,
  registerResponses,
  type ResponseRef,
  type WireEvent,
} from './bench-workload.js';
import { MINIMAL_COPY, MINIMAL_TABLE_DDL } from './minimal-table.js';

const EVENTS_PER_REQUEST = 1_000;
const RESPONSES = 1_000;
const WARMUP_REQUESTS = 12;
const TARGET_EVENTS_PER_S = 60_000;
/** Issue 8: batched ingest at least 0.3 of a COPY of the same events into a minimal table. */
const MINIMAL_TARGET_RATIO = 0.3;

interface LoadResult {
  requests: number;
  events: number;
  accepted: number;
  duplicate: number;
  rejected: number;
  failedRequests: number;
  firstProblem: string | undefined;
  elapsedMs: number;
  latenciesMs: number[];
  ranOut: boolean;
}

/** Sends prebuilt bodies from `clients` concurrent keep-alive connections until `durationMs` or the bodies run out. */
async function load(server: ChildServer, key: string, bodies: Buffer[], from: number, to: number, clients: number, durationMs: number): Promise<LoadResult> {
  const agent = keepAliveAgent(clients);
  const result: LoadResult = {
    requests: 0,
    events: 0,
    accepted: 0,
    duplicate: 0,
    rejected: 0,
    failedRequests: 0,
    firstProblem: undefined,
    elapsedMs: 0,
    latenciesMs: [],
    ranOut: false,
  };
  let next = from;
  const t0 = performance.now();
  const deadline = t0 + durationMs;
  let last = t0;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      if (next >= to) {
        result.ranOut = true;
        return;
      }
      const body = bodies[next++] as Buffer;
      const started = performance.now();
      const res = await post(agent, server.url, '/v1/feedback/batch', key, body);
      last = performance.now();
      result.latenciesMs.push(last - started);
      result.requests++;
      if (res.status !== 207) {
        result.failedRequests++;
        result.firstProblem ??= `HTTP ${res.status}: ${res.text.slice(0, 300)}`;
        continue;
      }
      const { results } = JSON.parse(res.text) as { results: Array<{ status: string; error?: { code: string; message: string } }> };
      result.events += results.length;
      for (const r of results) {
        if (r.status === 'accepted') result.accepted++;
        else if (r.status === 'duplicate') result.duplicate++;
        else {
          result.rejected++;
          result.firstProblem ??= `${r.status}: ${r.error?.code} ${r.error?.message}`;
        }
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: clients }, worker));
  } finally {
    agent.destroy();
  }
  result.elapsedMs = last - t0;
  return result;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

// --- COPY baseline --------------------------------------------------------------------------

const COPY_COLUMNS =
  'workspace_id, id, response_id, type, source, user_id, session_id, target_id, payload, metadata, edit_distance, occurred_at, received_at, content_hash, voter, vote_slot, duplicate_of, superseded_by';

/** COPY text format: NULL as \N, and backslash, tab, newline, carriage return escaped. */
function copyField(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return '\\N';
  const s = String(v);
  return /[\\\t\n\r]/.test(s) ? s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r') : s;
}

/** The derived columns the writer computes for an event (the same way, with the same functions). */
function derived(e: WireEvent, answer: string, receivedAt: string) {
  const event = e as unknown as FeedbackEvent;
  const fingerprint = contentFingerprint(event);
  const slot = voteSlot(event);
  const p = e.payload as { corrected?: string; original?: string };
  return {
    occurredAt: (e.occurredAt as string | undefined) ?? receivedAt,
    editDistance: e.type === 'correction' && p.corrected !== undefined ? editDistancePercent(p.original ?? answer, p.corrected) : null,
    contentHash: fingerprint === undefined ? null : createHash('sha1').update(fingerprint).digest('base64url'),
    voter: slot === undefined ? null : ((e.userId as string | undefined) ?? `session:${(e.sessionId as string | undefined) ?? ''}`),
    slot: slot ?? null,
  };
}

const line = (fields: Array<string | number | boolean | null | undefined>): string => fields.map((f) => copyField(typeof f === 'boolean' ? String(f) : f)).join('\t');

/**
 * The rows the writer stores for one event, in COPY text form, per table: the log row, its id
 * key, its dedup fingerprint (while its window is open), its current vote and its outbox row.
 */
function copyRows(ws: string, e: WireEvent, seq: number, answer: string, receivedAt: string): Record<CopyTable, string | undefined> {
  const d = derived(e, answer, receivedAt);
  const expiresAt = new Date(Date.parse(receivedAt) + 10_000).toISOString();
  const userId = (e.userId as string | undefined) ?? null;
  return {
    events: line([seq, ws, e.id, e.responseId, e.type, sourceOfType((e as unknown as FeedbackEvent).type), userId,
      (e.sessionId as string | undefined) ?? null, null, JSON.stringify(e.payload), e.metadata === undefined ? null : JSON.stringify(e.metadata),
      d.editDistance, d.occurredAt, receivedAt, d.contentHash, d.voter, d.slot, null, null]),
    ids: line([ws, e.id, receivedAt, seq]),
    fingerprints: d.contentHash === null ? undefined : line([ws, d.contentHash, d.occurredAt, e.id, expiresAt]),
    votes: d.slot === null || d.voter === null ? undefined : line([ws, e.responseId, d.voter, d.slot, e.id, d.occurredAt, true, receivedAt, seq]),
    pending: line([ws, e.id, seq, receivedAt]),
  };
}

type CopyTable = 'events' | 'ids' | 'fingerprints' | 'votes' | 'pending';

/** The COPY statement of each table the writer fills for an event. */
const COPY_INTO: Record<CopyTable, string> = {
  events: `COPY feedback_events (seq, ${COPY_COLUMNS}) FROM STDIN`,
  ids: 'COPY feedback_event_ids (workspace_id, id, received_at, seq) FROM STDIN',
  fingerprints: 'COPY feedback_fingerprints (workspace_id, content_hash, occurred_at, event_id, expires_at) FROM STDIN',
  votes: 'COPY feedback_current_votes (workspace_id, response_id, voter, vote_slot, event_id, occurred_at, verified, received_at, seq) FROM STDIN',
  pending: 'COPY pipeline_pending (workspace_id, event_id, seq, received_at) FROM STDIN',
};

/** Streams prepared COPY text through one statement; resolves when the server has it all. */
async function copyChunks(client: pg.Client, statement: string, chunks: Buffer[]): Promise<void> {
  const stream = client.query(copyStreams.from(statement));
  const done = new Promise<void>((resolveDone, reject) => {
    stream.on('finish', resolveDone);
    stream.on('error', reject);
  });
  for (const chunk of chunks) if (!stream.write(chunk)) await once(stream, 'drain');
  stream.end();
  await done;
}

/**
 * Raw COPY of `rows` equivalent events into every table the writer fills (the log, the id key
 * table, the open fingerprints, the current votes and the outbox), in a scratch workspace with
 * its own responses, one COPY a table in one transaction; the rows are prepared before the clock
 * starts. This is what this Postgres takes for these rows with this schema and its indexes at all.
 */
async function copyBaseline(databaseUrl: string, runId: string, rows: number): Promise<{ rowsPerS: number; ms: number; copied: number }> {
  const ws = `ws-copy-${runId}`;
  const responses: ResponseRef[] = Array.from({ length: RESPONSES }, (_, i) => ({ id: `resp-copy-${runId}-${i}`, answer: `answer ${i}` }));
  const now = new Date().toISOString();
  const lines: Record<CopyTable, string[]> = { events: [], ids: [], fingerprints: [], votes: [], pending: [] };
  return withClient(databaseUrl, async (client) => {
    // Sequence values taken before the clock, as the writer's nextval is part of its INSERT.
    const [first] = (await client.query<{ n: string }>(`SELECT setval('feedback_events_seq', nextval('feedback_events_seq') + $1) - $1 AS n`, [rows])).rows;
    for (let g = 0; g < rows; g++) {
      const e = makeEvent(g, runId, responses, now);
      const answer = responses[Number(e.responseId.slice(e.responseId.lastIndexOf('-') + 1))]?.answer ?? '';
      const r = copyRows(ws, e, Number(first?.n ?? 0) + g, answer, now);
      for (const table of Object.keys(lines) as CopyTable[]) if (r[table] !== undefined) lines[table].push(r[table]);
    }
    const chunks = Object.fromEntries(
      (Object.keys(lines) as CopyTable[]).map((table) => [table, [Buffer.from(lines[table].length ? `${lines[table].join('\n')}\n` : '')]]),
    ) as Record<CopyTable, Buffer[]>;
    await client.query(`INSERT INTO workspaces (id, name) VALUES ($1, $2)`, [ws, `bench-copy-${runId}`]);
    await client.query(
      `INSERT INTO responses (workspace_id, id, query, answer, created_at)
       SELECT $1, id, 'q', a, now() FROM unnest($2::text[], $3::text[]) AS x(id, a)`,
      [ws, responses.map((r) => r.id), responses.map((r) => r.answer)],
    );
    const t0 = performance.now();
    await client.query('BEGIN');
    for (const table of Object.keys(COPY_INTO) as CopyTable[]) await copyChunks(client, COPY_INTO[table], chunks[table]);
    await client.query('COMMIT');
    const ms = performance.now() - t0;
    const [count] = (await client.query<{ n: string }>('SELECT count(*) AS n FROM feedback_event_ids WHERE workspace_id = $1', [ws])).rows;
    return { rowsPerS: rows / (ms / 1000), ms, copied: Number(count?.n ?? 0) };
  });
}

/**
 * Raw COPY of the same events into the minimal table (bench/minimal-table.ts: id and JSON body,
 * one index), the issue-8 baseline: what this Postgres takes for a lean row. Rows are prepared
 * before the clock starts.
 */
async function copyMinimalBaseline(databaseUrl: string, runId: string, rows: number): Promise<{ rowsPerS: number; ms: number; copied: number }> {
  const responses: ResponseRef[] = Array.from({ length: RESPONSES }, (_, i) => ({ id: `resp-min-${runId}-${i}`, answer: `answer ${i}` }));
  const now = new Date().toISOString();
  const chunks: Buffer[] = [];
  for (let at = 0; at < rows; at += EVENTS_PER_REQUEST) {
    const lines: string[] = [];
    for (let g = at; g < Math.min(rows, at + EVENTS_PER_REQUEST); g++) {
      const e = makeEvent(g, `min-${runId}`, responses, now);
      lines.push(`${copyField(e.id)}\t${copyField(JSON.stringify(e))}`);
    }
    chunks.push(Buffer.from(`${lines.join('\n')}\n`));
  }
  return withClient(databaseUrl, async (client) => {
    await client.query(MINIMAL_TABLE_DDL);
    const t0 = performance.now();
    await copyChunks(client, MINIMAL_COPY, chunks);
    const ms = performance.now() - t0;
    const [count] = (await client.query<{ n: string }>('SELECT count(*) AS n FROM minimal_events')).rows;
    return { rowsPerS: rows / (ms / 1000), ms, copied: Number(count?.n ?? 0) };
  });
}

// --- the benchmark ---------------------------------------------------------------------------

/** Runs the batched-ingest benchmark; prints its line and returns its result. */
export async function runIngestBatchBench(): Promise<BenchResult[]> {
  const durationMs = envInt('BENCH_DURATION_MS', 10_000);
  const clients = envInt('BENCH_BATCH_CLIENTS', 4);
  const maxRequests = envInt('BENCH_BATCH_MAX', 1_000);
  const runId = token(4);
  const key = `fl_sk_bench_${token(16)}`;
  const db = await createFreshDatabase();
  let server: ChildServer | undefined;
  try {
    server = await startFeedloop({ databaseUrl: db.url, secretKey: key });
    const responses = await registerResponses(server.url, key, runId, RESPONSES);

    // Bodies are built before the clock starts, so the load generator only sends and checks.
    const occurredAt = new Date().toISOString();
    const total = WARMUP_REQUESTS + maxRequests;
    const bodies: Buffer[] = [];
    for (let b = 0; b < total; b++) {
      const events: WireEvent[] = [];
      for (let i = 0; i < EVENTS_PER_REQUEST; i++) events.push(makeEvent(b * EVENTS_PER_REQUEST + i, runId, responses, occurredAt));
      bodies.push(Buffer.from(JSON.stringify({ events })));
    }

    const warm = await load(server, key, bodies, 0, WARMUP_REQUESTS, clients, 30_000);
    if (warm.failedRequests > 0 || warm.accepted !== warm.events) throw new Error(`warm-up: ${warm.firstProblem}`);
    const analyzed = await analyzeIfAsked(db.url);
    const before = batchSizeStats(await fetchMetrics(server.url));
    const cpuBefore = sampleCpu(server.pid);
    const run = await load(server, key, bodies, WARMUP_REQUESTS, total, clients, durationMs);
    const cpu = describeCpu(cpuBefore, sampleCpu(server.pid));
    const commits = diffBatchStats(batchSizeStats(await fetchMetrics(server.url)), before);
    await server.stop();
    server = undefined;

    const eventsPerS = run.accepted / (run.elapsedMs / 1000);
    const stored = await withClient(db.url, async (c) => {
      const [row] = (await c.query<{ n: string }>("SELECT count(*) AS n FROM feedback_events f JOIN workspaces w ON w.id = f.workspace_id WHERE w.name = 'bench'")).rows;
      return Number(row?.n ?? 0);
    });

    const copy = await copyBaseline(db.url, runId, Math.max(EVENTS_PER_REQUEST, run.accepted));
    const ratio = eventsPerS / copy.rowsPerS;
    const minimal = await copyMinimalBaseline(db.url, runId, Math.max(EVENTS_PER_REQUEST, run.accepted));
    const minimalRatio = eventsPerS / minimal.rowsPerS;
    const lat = [...run.latenciesMs].sort((a, b) => a - b);

    console.log(
      `batched ingest: ${int(eventsPerS)} events/s  |  raw COPY of the same rows: ${int(copy.rowsPerS)} rows/s  |  ratio ${dec(ratio)}`,
    );
    console.log(
      `  ${int(run.requests)} requests × ${int(EVENTS_PER_REQUEST)} events from ${clients} clients in ${dec(run.elapsedMs / 1000, 1)} s` +
        `${run.ranOut ? ' (stopped early: all prebuilt bodies sent)' : ''}; accepted ${int(run.accepted)} of ${int(run.events)}` +
        ` (duplicate ${int(run.duplicate)}, rejected ${int(run.rejected)}, failed requests ${run.failedRequests}); rows stored ${int(stored)}`,
    );
    console.log(`  request latency p50 ${dec(percentile(lat, 50), 0)} ms, p99 ${dec(percentile(lat, 99), 0)} ms; group commit: ${describeBatchStats(commits)}`);
    console.log(`  ${cpu}`);
    console.log(`  COPY: ${int(copy.copied)} rows in ${dec(copy.ms / 1000, 2)} s (one connection, one statement)`);
    console.log(
      `  COPY into a minimal table (id + JSON body, one index): ${int(minimal.rowsPerS)} rows/s, ${int(minimal.copied)} rows in ${dec(minimal.ms / 1000, 2)} s  |  ratio ${dec(minimalRatio)} (target >= ${MINIMAL_TARGET_RATIO})`,
    );
    if (analyzed) console.log('  (BENCH_ANALYZE=1: ANALYZE ran after the warm-up)');
    if (run.firstProblem) console.log(`  NOT ALL ACCEPTED — first problem: ${run.firstProblem}`);
    if (run.accepted !== run.events || run.failedRequests > 0) {
      throw new Error(`batched ingest: ${run.events - run.accepted} events not accepted, ${run.failedRequests} requests failed`);
    }
    return [
      {
        name: 'batched ingest (POST /v1/feedback/batch ×1,000)',
        value: eventsPerS,
        unit: 'events/s',
        baseline: copy.rowsPerS,
        baselineLabel: 'rows/s raw COPY',
        ratio,
        target: `>= ${int(TARGET_EVENTS_PER_S)}`,
        met: eventsPerS >= TARGET_EVENTS_PER_S,
      },
      {
        name: 'batched ingest vs COPY into a minimal table',
        value: eventsPerS,
        unit: 'events/s',
        baseline: minimal.rowsPerS,
        baselineLabel: 'rows/s COPY, minimal table',
        ratio: minimalRatio,
        target: `>= ${MINIMAL_TARGET_RATIO} of baseline`,
        met: minimalRatio >= MINIMAL_TARGET_RATIO,
      },
    ];
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
  await runIngestBatchBench();
}
