/**
 * The store's ceiling for feedloop's embedded ingest (issue 21): what the database's thread spends
 * on feedloop's write statement alone (`feedloop_write_feedback`: the log's row and its eleven
 * indexes, the key, the vote, the fingerprint, the outbox) against the minimal durable server's
 * one-index INSERT, for the same events in the same batches, on one PGlite opened through
 * feedloop's own `openDatabase` (its thread, its settings). The two statements alternate batch by
 * batch, so a busy machine slows both alike.
 *
 * Feedloop's embedded ingest is bound by that one thread (PGlite has one connection), so it cannot
 * accept more events a second than 1 / (the write's cost an event), even if processing, HTTP and
 * validation cost nothing. `embedded.bench.ts` divides that by the minimal server's measured rate:
 * the most its ingest ratio could reach with this schema (50 a flush for single events, the most
 * 50 connections can gather; 500 for batched requests, a generous group of five). Run alone, this
 * prints the same-thread ratio of the two statements.
 *
 * Run: npm run build && node --import tsx bench/write-ceiling.ts   Knobs: BENCH_CEILING_EVENTS (20000).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveWorkspaceSettings } from '../packages/core/src/index.js';
import { bootstrap } from '../packages/server/src/bootstrap.js';
import { loadConfig } from '../packages/server/src/config.js';
import { migrateOpened } from '../packages/server/src/db/migrate.js';
import { openDatabase } from '../packages/server/src/db/open-database.js';
import type { SqlClient } from '../packages/server/src/db/sql-client.js';
import { createServices } from '../packages/server/src/server.js';
import type { AuthContext } from '../packages/server/src/store/auth-context.js';
import { updateWorkspaceSettings } from '../packages/server/src/store/workspaces.js';
import { dec, envInt, int, isMain, token } from './bench-server.js';
import { makeResponses } from './bench-workload.js';
import { makeEvents } from './embedded-pipeline.bench.js';
import { MINIMAL_INSERT, MINIMAL_TABLE_DDL } from './minimal-table.js';

const RESPONSES = 10_000;
/** Flush sizes measured: single events at 50 connections gather at most 50; batched requests of 100 share flushes. */
export const CEILING_FLUSH_SIZES = [50, 500] as const;

/** What one flush size cost the database's thread, µs an event. */
export interface WriteCost {
  size: number;
  feedloopUs: number;
  minimalUs: number;
}

/** Times every `feedloop_write_feedback` statement that goes through `db`; returns the running total (ms). */
function timeWrites(db: SqlClient): { ms: number } {
  const total = { ms: 0 };
  const query = db.query.bind(db);
  db.query = async (text, params, options) => {
    if (!text.includes('feedloop_write_feedback')) return query(text, params, options);
    const started = performance.now();
    try {
      return await query(text, params, options);
    } finally {
      total.ms += performance.now() - started;
    }
  };
  return total;
}

/**
 * Measures both statements at each flush size, alternating batch by batch, on a fresh PGlite.
 *
 * @example
 * const [single, batched] = await measureWriteCosts(); // single.feedloopUs ≈ 4× single.minimalUs
 */
export async function measureWriteCosts(): Promise<WriteCost[]> {
  const n = envInt('BENCH_CEILING_EVENTS', 20_000);
  const dir = mkdtempSync(join(tmpdir(), 'fl-bench-ceiling-'));
  const config = loadConfig({ FEEDLOOP_DATA_DIR: dir, LOG_LEVEL: 'silent', FEEDLOOP_INIT_WORKSPACE: 'bench', FEEDLOOP_INIT_SECRET_KEY: `fl_sk_bench_${token(16)}` });
  const db = await openDatabase(config);
  try {
    await migrateOpened(db);
    await db.query(MINIMAL_TABLE_DDL);
    const { workspaceId } = await bootstrap(db, config);
    if (!workspaceId) throw new Error('bench workspace not created');
    await updateWorkspaceSettings(db, workspaceId, { implicitConsent: 'assumed' });
    const { services, close } = createServices(config, db);
    const auth: AuthContext = { keyId: 'bench', workspaceId, kind: 'secret', settings: resolveWorkspaceSettings({ implicitConsent: 'assumed' }) };
    const costs: WriteCost[] = [];
    const written = timeWrites(db);
    try {
      for (const size of CEILING_FLUSH_SIZES) {
        const runId = token(4);
        const responses = makeResponses(runId, RESPONSES);
        for (let i = 0; i < responses.length; i += 1_000) await services.ingest.registerResponses(auth, responses.slice(i, i + 1_000));
        const events = makeEvents(runId, n);
        written.ms = 0;
        let minimalMs = 0;
        for (let i = 0; i < events.length; i += size) {
          const part = events.slice(i, i + size);
          const outcomes = await services.ingest.submitFeedback(auth, part);
          if (outcomes.some((o) => o.status !== 'accepted')) throw new Error('ceiling: an event was not accepted');
          const started = performance.now();
          await db.query(MINIMAL_INSERT, [part.map((e) => `${runId}-${e.id}`), part.map((e) => JSON.stringify(e))]);
          minimalMs += performance.now() - started;
        }
        costs.push({ size, feedloopUs: (written.ms * 1000) / n, minimalUs: (minimalMs * 1000) / n });
      }
    } finally {
      await close();
    }
    return costs;
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One line for a flush size: both costs, and the ceiling of the ratio against `baseline` events/s (the minimal server's, when given). */
export function describeWriteCost(c: WriteCost, baseline?: number): string {
  const rate = 1e6 / c.feedloopUs;
  const ceiling = baseline === undefined ? `same-thread ratio ${dec(c.minimalUs / c.feedloopUs)}` : `at most ${dec(rate / baseline)} of the minimal server's ${int(baseline)}/s`;
  return `${c.size} a flush: feedloop's write statement alone ${dec(c.feedloopUs, 1)} µs an event (${int(rate)} events/s), the minimal INSERT ${dec(c.minimalUs, 1)} µs; ${ceiling}`;
}

if (isMain(import.meta.url)) {
  for (const c of await measureWriteCosts()) console.log(`write ceiling, ${describeWriteCost(c)}`);
}
