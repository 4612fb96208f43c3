/**
 * The demo's workspace: its name and settings, and the one function that makes it with a new key
 * in a database the CLI opens (the embedded demo's own server, or the production profile's
 * database); a running embedded server makes the same through its `/v1/admin/keys` route.
 */
import type { WorkspaceSettingsInput } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import { createApiKey } from '../store/api-keys.js';
import { createWorkspace } from '../store/workspaces.js';

/** The demo's workspace name. */
export const DEMO_WORKSPACE = 'demo';
/** Its settings when created: the demo's users' edits count without a consent record each. */
export const DEMO_WORKSPACE_SETTINGS = { implicitConsent: 'assumed' } as const satisfies WorkspaceSettingsInput;

/**
 * Creates the demo workspace when missing (`created: false` when a previous run made it, whose
 * data is then left as it is) and a new secret key of it, named `demo`.
 *
 * @example
 * const { id, created, key } = await demoWorkspaceKey(db);
 */
export async function demoWorkspaceKey(db: SqlExecutor): Promise<{ id: string; created: boolean; key: string }> {
  const { workspace, created } = await createWorkspace(db, { name: DEMO_WORKSPACE, settings: DEMO_WORKSPACE_SETTINGS });
  const made = await createApiKey(db, workspace.id, 'secret', { name: 'demo' });
  return { id: workspace.id, created, key: made.key };
}
