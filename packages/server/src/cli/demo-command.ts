/**
 * `feedloop demo [--seed-only]`: starts feedloop (embedded database by default) with a `demo`
 * workspace seeded with 90 days of realistic data (cli/demo-data.ts) sent through the HTTP API,
 * as an application would, waits until the pipeline has processed it and the rollups and alerts
 * have run, and prints the dashboard's address and the workspace's secret key. `--seed-only`
 * stops the server once the data is in (for a test, or to start it later with `feedloop start`).
 * This is the demo when no feedloop runs; beside a running one, cli/demo-remote.ts seeds that
 * server instead (cli/find-server.ts decides).
 */
import type { Config } from '../config.js';
import { startServer, type RunningServer } from '../server.js';
import type { ApiTarget } from './api-client.js';
import { demoData } from './demo-data.js';
import { sendDemoData } from './demo-send.js';
import { settleDemo } from './demo-settle.js';
import { demoWorkspaceKey } from './demo-workspace.js';
/** How long processing, rescores and rollups may take before the demo gives up. */
const SETTLE_TIMEOUT_MS = 300_000;

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
 * Runs the demo; resolves with the running server (closed already with `seedOnly`).
 *
 * @example
 * const { report } = await runDemo(loadConfig(), { seedOnly: true });
 */
export async function runDemo(config: Config, options: { seedOnly: boolean; now?: Date; scale?: number; log?: (line: string) => void }): Promise<{ report: DemoReport; server: RunningServer }> {
  const began = Date.now();
  const log = options.log ?? (() => undefined);
  // The configured schedule (that of `feedloop start`): settleDemo runs the rollups and the alert
  // evaluation itself once the data is in, and a short schedule only slowed processing down.
  const server = await startServer(config, { worker: true });
  log(`started in ${seconds(began)} s`);
  const db = server.services.db;
  const ws = await demoWorkspaceKey(db);
  const target: ApiTarget = { url: server.url, key: ws.key };
  let responses = 0;
  let events = 0;
  if (ws.created) {
    const data = demoData(options.now ?? new Date(), { scale: options.scale ?? 1 });
    log(`seeding ${data.responses.length} responses and ${data.events.length} feedback events over 90 days…`);
    const sending = Date.now();
    await sendDemoData(target, data, { recordConsent: false });
    responses = data.responses.length;
    events = data.events.length;
    log(`sent in ${seconds(sending)} s; processing (scores, rollups, alerts)…`);
    const settling = Date.now();
    await settleDemo(db, ws.id, SETTLE_TIMEOUT_MS);
    log(`processed in ${seconds(settling)} s`);
  }
  const report: DemoReport = { url: config.port === 0 ? server.url : config.publicUrl, workspaceId: ws.id, secretKey: ws.key, seeded: ws.created, responses, events, seconds: seconds(began) };
  if (options.seedOnly) await server.close();
  return { report, server };
}

/** Seconds since `since`, to a tenth. */
function seconds(since: number): number {
  return Math.round((Date.now() - since) / 100) / 10;
}
