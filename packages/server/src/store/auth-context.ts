/**
 * Who a request is, once its key is resolved. Below http on purpose: ingest and the stores act
 * for a caller too, and a lower layer may not import the http layer that resolves keys.
 */
import { resolveWorkspaceSettings, type WorkspaceSettings } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import { hashKey, type KeyKind } from './api-keys.js';

/** Who a request is: its key, workspace, what the key may do, and the workspace's settings. */
export interface AuthContext {
  keyId: string;
  workspaceId: string;
  kind: KeyKind;
  settings: WorkspaceSettings;
  /** The key's name: for a reviewer key, who reviews (audit log, reviews, agreement figures). */
  name?: string | null;
}

/**
 * The identity of a presented key with its workspace's settings (one query: the hot path's key
 * lookup), or `undefined` when the key is unknown or revoked.
 *
 * @example
 * await authContextOfKey(db, 'fl_sk_…') // { keyId, workspaceId, kind: 'secret', settings }
 */
export async function authContextOfKey(db: SqlExecutor, key: string): Promise<AuthContext | undefined> {
  const [r] = await db.query<{ id: string; workspace_id: string; kind: KeyKind; name: string | null; settings: unknown }>(
    `SELECT k.id, k.workspace_id, k.kind, k.name, w.settings FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id
      WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
    [hashKey(key)],
  );
  return r ? { keyId: r.id, workspaceId: r.workspace_id, kind: r.kind, name: r.name, settings: resolveWorkspaceSettings(r.settings) } : undefined;
}
