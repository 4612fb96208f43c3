/**
 * `feedloop demo --url U --key K`: seeds the demo's data into a running server, through its HTTP
 * API, into the workspace of the key. This is the way to a demo while `feedloop start` holds an
 * embedded data folder (a second process may not open it), and works on any server (production
 * profile included). Nothing here opens a database: the server's own pipeline and schedule
 * process the data, so its rollups (every FEEDLOOP_ROLLUP_INTERVAL_SECONDS) fill the trends.
 */
import type { WorkspaceSettings } from '@feedloop/core';
import { requestWithRetry, type ApiTarget } from './api-client.js';
import { demoData } from './demo-data.js';
import { sendDemoData } from './demo-send.js';

/** What a seeding through the API did. */
export interface RemoteDemoReport {
  url: string;
  workspaceId: string;
  workspace: string;
  responses: number;
  events: number;
  seconds: number;
}

/** The key's workspace, which also checks the server answers and the key is a secret one. */
async function workspaceOf(target: ApiTarget): Promise<{ id: string; name: string; settings: WorkspaceSettings }> {
  const res = await requestWithRetry(target, 'GET', '/v1/workspace');
  if (!res.ok) throw new Error(`GET ${target.url}/v1/workspace: ${res.status} ${await res.text()} (--key must be a secret key of the workspace to seed)`);
  return (await res.json()) as { id: string; name: string; settings: WorkspaceSettings };
}

/**
 * Sends the demo's 90 days to the running server at `target.url`, into the workspace of
 * `target.key`. Sending again is harmless: responses and events keep their ids, and a second copy
 * is answered `already there` / `duplicate`.
 *
 * @example
 * const report = await seedRunningServer({ url: 'http://127.0.0.1:8787', key: 'fl_sk_…' }, { scale: 1 });
 */
export async function seedRunningServer(target: ApiTarget, options: { now?: Date; scale?: number; log?: (line: string) => void } = {}): Promise<RemoteDemoReport> {
  const began = Date.now();
  const ws = await workspaceOf(target);
  const data = demoData(options.now ?? new Date(), { scale: options.scale ?? 1 });
  options.log?.(`seeding ${data.responses.length} responses and ${data.events.length} feedback events over 90 days into workspace "${ws.name}" at ${target.url}…`);
  // A workspace that requires consent to implicit signals refuses the demo users' edits and
  // retries until they have given it, as they would in an application.
  await sendDemoData(target, data, { recordConsent: ws.settings.implicitConsent !== 'assumed' });
  return { url: target.url, workspaceId: ws.id, workspace: ws.name, responses: data.responses.length, events: data.events.length, seconds: Math.round((Date.now() - began) / 100) / 10 };
}
