/**
 * `feedloop demo [--seed-only]`: starts feedloop (embedded database by default) with a `demo`
 * workspace seeded with 90 days of realistic data (cli/demo-data.ts) sent through the HTTP API,
 * as an application would, waits until the pipeline has processed it and the rollups and alerts
 * have run, and prints the dashboard's address and the workspace's secret key. `--seed-only`
 * stops the server once the data is in (for a test, or to start it later with `feedloop start`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config.js';
import type { SqlClient } from '../db/sql-client.js';
import { startServer, type RunningServer } from '../server.js';
import { createApiKey } from '../store/api-keys.js';
import { createWorkspace } from '../store/workspaces.js';
import { requestWithRetry, type ApiTarget } from './api-client.js';
import { DEMO_EXPERIMENT, demoData } from './demo-data.js';

/** The demo workspace's name. */
export const DEMO_WORKSPACE = 'demo';
const BATCH = 500;
/** The demo runs its rollups and alert evaluations often, so the pages fill in seconds. */
const DEMO_INTERVAL_MS = 2_000;

/** What the demo prints. */
export interface DemoReport {
  url: string;
  workspaceId: string;
  secretKey: string;
  seeded: boolean;
  responses: number;
  events: number;
  seconds: number;
}

/**
 * Creates the demo workspace (the one place a test or a merge changes its settings); `created:
 * false` when a previous run made it, whose data is then left as it is.
 */
async function demoWorkspace(db: SqlClient): Promise<{ id: string; created: boolean }> {
  const { workspace, created } = await createWorkspace(db, { name: DEMO_WORKSPACE, settings: { implicitConsent: 'assumed' } });
  return { id: workspace.id, created };
}

async function post(target: ApiTarget, method: 'POST' | 'PUT', path: string, body: unknown): Promise<void> {
  const res = await requestWithRetry(target, method, path, body);
  if (res.status >= 300 && res.status !== 207) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  if (res.status === 207) {
    const { results } = (await res.json()) as { results: Array<{ status: string; error?: { message: string } }> };
    const bad = results.find((r) => r.status === 'rejected');
    if (bad) throw new Error(`${path}: an item was rejected: ${bad.error?.message ?? ''}`);
  } else {
    await res.text();
  }
}

/** Waits until the workspace's events are processed and its rollups are up to date. */
async function settle(db: SqlClient, workspaceId: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const [row] = await db.query<{ pending: number; dirty: number; scores: number }>(
      `SELECT (SELECT count(*) FROM pipeline_pending WHERE workspace_id = $1)::int AS pending,
              (SELECT count(*) FROM rollup_dirty WHERE workspace_id = $1)::int AS dirty,
              (SELECT count(*) FROM score_dirty WHERE workspace_id = $1)::int AS scores`,
      [workspaceId],
    );
    if (row && row.pending === 0 && row.dirty === 0 && row.scores === 0) return;
    await sleep(500);
  }
}

/**
 * Runs the demo; resolves with the running server (closed already with `seedOnly`).
 *
 * @example
 * const { report } = await runDemo(loadConfig(), { seedOnly: true });
 */
export async function runDemo(config: Config, options: { seedOnly: boolean; now?: Date; scale?: number; log?: (line: string) => void }): Promise<{ report: DemoReport; server: RunningServer }> {
  const began = Date.now();
  const log = options.log ?? (() => undefined);
  const server = await startServer({ ...config, rollupIntervalMs: DEMO_INTERVAL_MS, alertIntervalMs: DEMO_INTERVAL_MS }, { worker: true });
  const db = server.services.db;
  const ws = await demoWorkspace(db);
  const key = await createApiKey(db, ws.id, 'secret', { name: 'demo' });
  const target: ApiTarget = { url: server.url, key: key.key };
  let responses = 0;
  let events = 0;
  if (ws.created) {
    const data = demoData(options.now ?? new Date(), { scale: options.scale ?? 1 });
    log(`seeding ${data.responses.length} responses and ${data.events.length} feedback events over 90 days…`);
    await post(target, 'PUT', `/v1/experiments/${DEMO_EXPERIMENT}`, { control: 'control', metric: 'satisfaction', minSample: 100 });
    for (let i = 0; i < data.responses.length; i += BATCH) await post(target, 'POST', '/v1/responses/batch', { responses: data.responses.slice(i, i + BATCH) });
    for (let i = 0; i < data.events.length; i += BATCH) await post(target, 'POST', '/v1/feedback/batch', { events: data.events.slice(i, i + BATCH) });
    responses = data.responses.length;
    events = data.events.length;
    log('processing (scores, rollups, alerts)…');
    await settle(db, ws.id, 300_000);
    // One more rollup and alert evaluation after the last processed event.
    await sleep(DEMO_INTERVAL_MS * 2);
  }
  const report: DemoReport = { url: config.port === 0 ? server.url : config.publicUrl, workspaceId: ws.id, secretKey: key.key, seeded: ws.created, responses, events, seconds: Math.round((Date.now() - began) / 100) / 10 };
  if (options.seedOnly) await server.close();
  return { report, server };
}
