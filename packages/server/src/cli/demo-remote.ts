/**
 * `feedloop demo` beside a running server (cli/find-server.ts found it): the demo's data goes
 * through that server's HTTP API, batch routes, and the demo waits until the server's pipeline
 * has processed it (`GET /v1/pipeline`), saying how much is left. Nothing here opens the embedded
 * database, which the running server holds.
 *
 * The key it seeds with: `--key` or `FEEDLOOP_API_KEY` (into that key's workspace); else, on the
 * server's machine, a new key of the `demo` workspace, made through the server's `/v1/admin`
 * route with its local admin credential (embedded profile) or in the database the server's
 * environment names (`DATABASE_URL`, production profile). With none of these it refuses, saying
 * which to give.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { WorkspaceSettings } from '@feedloop/core';
import type { Config } from '../config.js';
import { migrateOpened } from '../db/migrate.js';
import { openDatabase } from '../db/open-database.js';
import { FeedloopError } from '../errors.js';
import { createKeyThroughServer } from './admin-client.js';
import { requestWithRetry, type ApiTarget } from './api-client.js';
import { DEMO_WORKSPACE, DEMO_WORKSPACE_SETTINGS, demoWorkspaceKey } from './demo-workspace.js';
import { demoData } from './demo-data.js';
import { sendDemoData } from './demo-send.js';
import type { FoundServer } from './find-server.js';

/** How long the server's pipeline may take to process the demo's events. */
const DRAIN_TIMEOUT_MS = 300_000;
const POLL_MS = 250;
/** At most one progress line this often. */
const PROGRESS_MS = 1_000;

/** What a seeding through the API did. */
export interface RemoteDemoReport {
  url: string;
  /** How the server was found (cli/find-server.ts). */
  via: string;
  workspaceId: string;
  workspace: string;
  /** False when the demo workspace existed already: its data is left as it is. */
  seeded: boolean;
  responses: number;
  events: number;
  /** Events the pipeline failed (listed by `GET /v1/pipeline`). */
  failed: number;
  /** The demo workspace's new key, when the demo made one (shown once); never a key it was given. */
  secretKey?: string;
  seconds: number;
}

/** The key to seed with, and whether the demo workspace was created for it. */
interface SeedKey {
  key: string;
  made: boolean;
  created: boolean;
}

/** A new key of the demo workspace made in the production profile's database (the server's `DATABASE_URL`). */
async function keyThroughDatabase(config: Config): Promise<SeedKey> {
  const db = await openDatabase(config);
  try {
    await migrateOpened(db);
    const made = await demoWorkspaceKey(db);
    return { key: made.key, made: true, created: made.created };
  } finally {
    await db.close();
  }
}

/**
 * The key the demo seeds `server` with (see the module's comment).
 *
 * @throws FeedloopError `FEEDLOOP_ERR_AUTH_MISSING_KEY` when there is none, naming what to give.
 */
async function seedKey(server: FoundServer, given: string | undefined, config: Config): Promise<SeedKey> {
  if (given) return { key: given, made: false, created: false };
  if (server.admin) {
    const made = await createKeyThroughServer(server.admin, { workspace: DEMO_WORKSPACE, create: true, settings: DEMO_WORKSPACE_SETTINGS, name: 'demo' });
    return { key: made.key, made: true, created: made.workspace.created };
  }
  if (config.databaseUrl) return keyThroughDatabase(config);
  throw new FeedloopError(
    'FEEDLOOP_ERR_AUTH_MISSING_KEY',
    `found feedloop at ${server.url} (through ${server.via}${server.pid ? `, process ${server.pid}` : ''}) but no key to seed it with.\n` +
      `Run the demo on the server's machine, as its user, with its FEEDLOOP_DATA_DIR (the server leaves a credential for it there),\n` +
      `or give a secret key of the workspace to seed: --key fl_sk_… or FEEDLOOP_API_KEY.`,
    { field: 'key' },
  );
}

/** The key's workspace, which also checks the server answers and the key is a secret one. */
async function workspaceOf(target: ApiTarget): Promise<{ id: string; name: string; settings: WorkspaceSettings }> {
  const res = await requestWithRetry(target, 'GET', '/v1/workspace');
  if (!res.ok) throw new Error(`GET ${target.url}/v1/workspace: ${res.status} ${await res.text()} (the key must be a secret key of the workspace to seed)`);
  return (await res.json()) as { id: string; name: string; settings: WorkspaceSettings };
}

/**
 * Waits until the workspace's events are processed (`GET /v1/pipeline` shows none pending),
 * logging how many are left at most once a second; resolves with the count of failed events.
 */
async function waitForPipeline(target: ApiTarget, log: (line: string) => void, timeoutMs: number): Promise<number> {
  const until = Date.now() + timeoutMs;
  let said = 0;
  for (;;) {
    const res = await requestWithRetry(target, 'GET', '/v1/pipeline');
    if (!res.ok) throw new Error(`GET ${target.url}/v1/pipeline: ${res.status} ${await res.text()}`);
    const { backlog, failedEvents } = (await res.json()) as { backlog: { pending: number }; failedEvents: unknown[] };
    if (backlog.pending === 0) return failedEvents.length;
    if (Date.now() > until) throw new Error(`the server at ${target.url} still had ${backlog.pending} of the demo's events to process after ${Math.round(timeoutMs / 1000)} s`);
    if (Date.now() - said >= PROGRESS_MS) {
      log(`processing: ${backlog.pending.toLocaleString('en-US')} events left…`);
      said = Date.now();
    }
    await sleep(POLL_MS);
  }
}

/**
 * Seeds the demo's 90 days into the running `server` and waits until its pipeline has processed
 * them. Sending again is harmless: responses and events keep their ids, and a second copy is
 * answered `already there` / `duplicate`; a demo workspace made by an earlier run is left as it is.
 *
 * @example
 * const server = await findRunningServer(config, {});
 * if (server) await seedRunningServer(server, { config, key: config.client.apiKey, scale: 1, log: console.error });
 */
export async function seedRunningServer(
  server: FoundServer,
  options: { config: Config; key?: string | undefined; now?: Date; scale?: number; log?: (line: string) => void },
): Promise<RemoteDemoReport> {
  const began = Date.now();
  const log = options.log ?? (() => undefined);
  log(`feedloop is running at ${server.url} (found through ${server.via}${server.pid ? `, process ${server.pid}` : ''}): seeding it through its API`);
  const seed = await seedKey(server, options.key, options.config);
  const target: ApiTarget = { url: server.url, key: seed.key };
  const ws = await workspaceOf(target);
  const report: RemoteDemoReport = {
    url: server.url,
    via: server.via,
    workspaceId: ws.id,
    workspace: ws.name,
    seeded: false,
    responses: 0,
    events: 0,
    failed: 0,
    ...(seed.made ? { secretKey: seed.key } : {}),
    seconds: 0,
  };
  // A demo workspace an earlier run made holds its data already; a workspace the user named by
  // their key is seeded (again: harmless).
  if (!seed.made || seed.created) {
    const data = demoData(options.now ?? new Date(), { scale: options.scale ?? 1 });
    log(`sending ${data.responses.length} responses and ${data.events.length} feedback events over 90 days to workspace "${ws.name}"…`);
    const sending = Date.now();
    // A workspace that requires consent to implicit signals refuses the demo users' edits and
    // retries until they have given it, as they would in an application.
    await sendDemoData(target, data, { recordConsent: ws.settings.implicitConsent !== 'assumed' });
    log(`sent in ${seconds(sending)} s; the server processes them (scores, counts)…`);
    const processing = Date.now();
    report.failed = await waitForPipeline(target, log, DRAIN_TIMEOUT_MS);
    log(`processed in ${seconds(processing)} s`);
    Object.assign(report, { seeded: true, responses: data.responses.length, events: data.events.length });
  }
  report.seconds = seconds(began);
  return report;
}

/** Seconds since `since`, to a tenth. */
function seconds(since: number): number {
  return Math.round((Date.now() - since) / 100) / 10;
}
