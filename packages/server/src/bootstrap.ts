/**
 * First-run set-up: a workspace and keys from `FEEDLOOP_INIT_*` (idempotent, for headless
 * deployments), or, on a database with no workspace at all, a default workspace whose new keys
 * are printed once.
 */
import type { Config } from './config.js';
import type { SqlClient } from './db/sql-client.js';
import { createApiKey } from './store/api-keys.js';
import { createWorkspace, listWorkspaces } from './store/workspaces.js';

/** What set-up did; `printOnce` holds keys that exist nowhere else and must be shown now. */
export interface BootstrapReport {
  workspaceId?: string;
  createdWorkspace: boolean;
  printOnce?: { workspace: string; secretKey: string; publicKey: string };
}

/**
 * Creates what the configuration asks for, when missing.
 *
 * @example
 * await bootstrap(db, loadConfig({ FEEDLOOP_INIT_WORKSPACE: 'prod', FEEDLOOP_INIT_SECRET_KEY: 'fl_sk_…' }))
 */
export async function bootstrap(db: SqlClient, config: Config): Promise<BootstrapReport> {
  const { workspace, secretKey, publicKey } = config.init;
  if (workspace !== undefined || secretKey !== undefined || publicKey !== undefined) {
    const { workspace: ws, created } = await createWorkspace(db, { name: workspace ?? 'default' });
    if (secretKey) await createApiKey(db, ws.id, 'secret', { key: secretKey, name: 'FEEDLOOP_INIT_SECRET_KEY' });
    if (publicKey) await createApiKey(db, ws.id, 'public', { key: publicKey, name: 'FEEDLOOP_INIT_PUBLIC_KEY' });
    return { workspaceId: ws.id, createdWorkspace: created };
  }
  if ((await listWorkspaces(db)).length > 0) return { createdWorkspace: false };
  const { workspace: ws } = await createWorkspace(db, { name: 'default' });
  const secret = await createApiKey(db, ws.id, 'secret', { name: 'first run' });
  const pub = await createApiKey(db, ws.id, 'public', { name: 'first run' });
  return { workspaceId: ws.id, createdWorkspace: true, printOnce: { workspace: ws.name, secretKey: secret.key, publicKey: pub.key } };
}
