/**
 * Test helper shared by the client and widget suites: a real `feedloop start` on a data folder of
 * its own, with one workspace and its keys. The workspace is set up HERE ONLY (issue 11's merge
 * sets `implicitConsent: 'assumed'` in {@link prepareWorkspace}).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess, startServerProcessOn, type ServerProcess } from '../../server/test/process-helpers.js';

export const SECRET_KEY = 'fl_sk_capture_test_secret_key_0001';
export const PUBLIC_KEY = 'fl_pk_capture_test_public_key_0001';

/** A spawned server and how to restart it on the same port and data. */
export interface CaptureServer {
  server: ServerProcess;
  url: string;
  port: number;
  dataDir: string;
  /** Starts the server again (after a kill) on the same port and data folder. */
  restart(): Promise<ServerProcess>;
  /** Removes the data folder (after the server is gone). */
  cleanup(): void;
}

/** The server's environment: the embedded database in `dataDir`, the workspace and both keys. */
const envOf = (dataDir: string, port?: number, extra: Record<string, string> = {}): Record<string, string> => ({
  FEEDLOOP_DATA_DIR: dataDir,
  FEEDLOOP_INIT_WORKSPACE: 'capture',
  FEEDLOOP_INIT_SECRET_KEY: SECRET_KEY,
  FEEDLOOP_INIT_PUBLIC_KEY: PUBLIC_KEY,
  FEEDLOOP_SWEEP_INTERVAL_SECONDS: '1',
  ...(port ? { PORT: String(port) } : {}),
  ...extra,
});

/**
 * Workspace settings every capture suite needs (the one place to change them).
 *
 * @example
 * await prepareWorkspace(url);
 */
export async function prepareWorkspace(url: string): Promise<string> {
  const res = await fetch(`${url}/v1/workspace`, { headers: { authorization: `Bearer ${SECRET_KEY}` } });
  if (res.status !== 200) throw new Error(`workspace: ${res.status} ${await res.text()}`);
  // The widget's implicit signals are sent only with the host's consent flag; the workspace
  // trusts that flag (issue 11: `assumed`, opt-outs still apply) instead of a per-user consent step.
  const patched = await fetch(`${url}/v1/workspace/settings`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${SECRET_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ implicitConsent: 'assumed' }),
  });
  if (patched.status !== 200) throw new Error(`workspace settings: ${patched.status} ${await patched.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/**
 * Starts a server with the capture workspace.
 *
 * @example
 * const s = await startCaptureServer(); … s.server.signal('SIGKILL'); await s.restart();
 */
export async function startCaptureServer(extra: Record<string, string> = {}): Promise<CaptureServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'feedloop-capture-'));
  const server = await startServerProcess(envOf(dataDir, undefined, extra), 240_000);
  const port = Number(new URL(server.url).port);
  await prepareWorkspace(server.url);
  const s: CaptureServer = {
    server,
    url: server.url,
    port,
    dataDir,
    async restart() {
      s.server = await startServerProcessOn(port, envOf(dataDir, undefined, extra), 240_000);
      return s.server;
    },
    cleanup: () => rmSync(dataDir, { recursive: true, force: true }),
  };
  return s;
}
