/**
 * The per-workspace secret that signs feedback tokens (migration 0015). Made on first use;
 * rotating it revokes every token signed with the old one.
 */
import { randomBytes } from 'node:crypto';
import type { SqlExecutor } from '../db/sql-client.js';
import { FeedloopError } from '../errors.js';
import { resolveWorkspaceSettings, type WorkspaceSettings } from '@feedloop/core';

/** Bytes of a token secret: the HMAC-SHA256 key size. */
const SECRET_BYTES = 32;

const asBuffer = (v: unknown): Buffer => (Buffer.isBuffer(v) ? v : Buffer.from(v as Uint8Array));

/**
 * The workspace's token secret, made (once, race-free) when it has none yet.
 *
 * @throws FeedloopError `FEEDLOOP_ERR_WORKSPACE_NOT_FOUND` when the workspace is gone.
 * @example
 * const secret = await tokenSecretOf(db, workspaceId); // 32 bytes
 */
export async function tokenSecretOf(db: SqlExecutor, workspaceId: string): Promise<Buffer> {
  // COALESCE keeps a secret another request made first: two first uses agree on one secret.
  const rows = await db.query<{ feedback_token_secret: unknown }>(
    `UPDATE workspaces SET feedback_token_secret = COALESCE(feedback_token_secret, $2) WHERE id = $1 RETURNING feedback_token_secret`,
    [workspaceId, randomBytes(SECRET_BYTES)],
  );
  const row = rows[0];
  if (!row) throw new FeedloopError('FEEDLOOP_ERR_WORKSPACE_NOT_FOUND', `no workspace ${workspaceId}`);
  return asBuffer(row.feedback_token_secret);
}

/**
 * What verifying a token needs of its workspace: the secret (undefined when none was ever made:
 * no token can be valid) and the settings submissions are judged by.
 *
 * @example
 * const found = await tokenWorkspace(db, claims.ws); // undefined when the workspace is gone
 */
export async function tokenWorkspace(db: SqlExecutor, workspaceId: string): Promise<{ secret: Buffer | undefined; settings: WorkspaceSettings } | undefined> {
  const rows = await db.query<{ feedback_token_secret: unknown; settings: unknown }>(
    'SELECT feedback_token_secret, settings FROM workspaces WHERE id = $1',
    [workspaceId],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    secret: row.feedback_token_secret == null ? undefined : asBuffer(row.feedback_token_secret),
    settings: resolveWorkspaceSettings(row.settings),
  };
}

/**
 * Replaces the workspace's token secret: every token signed before stops working at once.
 *
 * @example
 * await rotateTokenSecret(db, workspaceId);
 */
export async function rotateTokenSecret(db: SqlExecutor, workspaceId: string): Promise<void> {
  const rows = await db.query<{ id: string }>('UPDATE workspaces SET feedback_token_secret = $2 WHERE id = $1 RETURNING id', [
    workspaceId,
    randomBytes(SECRET_BYTES),
  ]);
  if (!rows[0]) throw new FeedloopError('FEEDLOOP_ERR_WORKSPACE_NOT_FOUND', `no workspace ${workspaceId}`);
}

/**
 * Whether a response exists in the workspace (a token is only made for one).
 *
 * @example
 * if (!(await responseExists(db, ws, 'resp-1'))) throw …
 */
export async function responseExists(db: SqlExecutor, workspaceId: string, responseId: string): Promise<boolean> {
  const rows = await db.query<{ one: number }>('SELECT 1 AS one FROM responses WHERE workspace_id = $1 AND id = $2', [workspaceId, responseId]);
  return rows.length > 0;
}
