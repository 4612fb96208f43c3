/**
 * Workspaces: the tenant wall. Each belongs to a tenant and carries its own settings.
 */
import { resolveWorkspaceSettings, workspaceSettingsSchema, type WorkspaceSettings, type WorkspaceSettingsInput } from '@feedloop/core';
import { v7 as uuidv7 } from 'uuid';
import { FeedloopError } from '../errors.js';
import type { SqlExecutor } from '../db/sql-client.js';

/** A workspace as the API shows it. */
export interface Workspace {
  id: string;
  tenantId: string;
  name: string;
  settings: WorkspaceSettings;
  createdAt: Date;
}

interface WorkspaceRow {
  id: string;
  tenant_id: string;
  name: string;
  settings: unknown;
  created_at: Date;
}

const toWorkspace = (r: WorkspaceRow): Workspace => ({
  id: r.id,
  tenantId: r.tenant_id,
  name: r.name,
  settings: resolveWorkspaceSettings(r.settings),
  createdAt: r.created_at,
});

/**
 * Creates a workspace; a name already used in the tenant returns the existing one (idempotent).
 *
 * @example
 * const ws = await createWorkspace(db, { name: 'support-bot' });
 */
export async function createWorkspace(
  db: SqlExecutor,
  input: { name: string; tenantId?: string; id?: string; settings?: WorkspaceSettingsInput },
): Promise<{ workspace: Workspace; created: boolean }> {
  const settings = workspaceSettingsSchema.parse(input.settings ?? {});
  const rows = await db.query<WorkspaceRow>(
    `INSERT INTO workspaces (id, tenant_id, name, settings) VALUES ($1, $2, $3, $4::jsonb)
     ON CONFLICT (tenant_id, name) DO NOTHING RETURNING *`,
    [input.id ?? uuidv7(), input.tenantId ?? 'default', input.name, JSON.stringify(settings)],
  );
  if (rows[0]) return { workspace: toWorkspace(rows[0]), created: true };
  const existing = await findWorkspace(db, input.name, input.tenantId);
  if (!existing) throw new FeedloopError('FEEDLOOP_ERR_WORKSPACE_NOT_FOUND', `workspace ${input.name} vanished while created`);
  return { workspace: existing, created: false };
}

/**
 * Finds a workspace by id, or by name within a tenant.
 *
 * @example
 * await findWorkspace(db, 'support-bot') // Workspace | undefined
 */
export async function findWorkspace(db: SqlExecutor, idOrName: string, tenantId = 'default'): Promise<Workspace | undefined> {
  const rows = await db.query<WorkspaceRow>(
    'SELECT * FROM workspaces WHERE id = $1 OR (tenant_id = $2 AND name = $1) ORDER BY (id = $1) DESC LIMIT 1',
    [idOrName, tenantId],
  );
  return rows[0] ? toWorkspace(rows[0]) : undefined;
}

/**
 * Finds a workspace by any form `feedloop workspace list` prints: its id, its name (in the
 * `default` tenant), or `tenant/name`.
 *
 * @example
 * await findWorkspaceByLabel(db, 'acme/support-bot') // Workspace | undefined
 */
export async function findWorkspaceByLabel(db: SqlExecutor, label: string): Promise<Workspace | undefined> {
  const slash = label.indexOf('/');
  return (await findWorkspace(db, label)) ?? (slash > 0 ? await findWorkspace(db, label.slice(slash + 1), label.slice(0, slash)) : undefined);
}

/** Lists all workspaces, oldest first. */
export async function listWorkspaces(db: SqlExecutor): Promise<Workspace[]> {
  return (await db.query<WorkspaceRow>('SELECT * FROM workspaces ORDER BY created_at, id')).map(toWorkspace);
}

/**
 * Merges new values into a workspace's settings and returns the result.
 *
 * @example
 * await updateWorkspaceSettings(db, ws.id, { dedupWindowSeconds: 30 })
 */
export async function updateWorkspaceSettings(
  db: SqlExecutor,
  workspaceId: string,
  patch: Partial<WorkspaceSettings>,
): Promise<Workspace> {
  const rows = await db.query<WorkspaceRow>(
    'UPDATE workspaces SET settings = settings || $2::jsonb WHERE id = $1 RETURNING *',
    [workspaceId, JSON.stringify(patch)],
  );
  if (!rows[0]) throw new FeedloopError('FEEDLOOP_ERR_WORKSPACE_NOT_FOUND', `no workspace ${workspaceId}`);
  return toWorkspace(rows[0]);
}
