/**
 * API keys. Secret keys (`fl_sk_…`) read and write; public keys (`fl_pk_…`), safe to ship in a
 * browser, may only submit feedback; reviewer keys (`fl_rk_…`, issue 27) may only list the review
 * queues they are members of and review their items, as the person their name names. Only the
 * SHA-256 of a key is stored.
 */
import { createHash, randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { appendAudit } from './audit-log.js';
import { FeedloopError } from '../errors.js';
import type { SqlClient, SqlExecutor } from '../db/sql-client.js';

/** What a key may do. */
export type KeyKind = 'secret' | 'public' | 'reviewer';

/** Every key kind, for validation. */
export const KEY_KINDS = ['secret', 'public', 'reviewer'] as const satisfies readonly KeyKind[];

// A reviewer's name is the voter of its reviews' feedback events: it must be a valid user id.
const REVIEWER_NAME = /^[A-Za-z0-9_\-.:@/]+$/;
/** The longest reviewer's name. */
export const REVIEWER_NAME_MAX_LENGTH = 64;

/**
 * What is wrong with a reviewer key's name, or `undefined` when it is fine: a reviewer key needs
 * one, and it becomes the user id of its reviews' events. One rule for `/v1/keys`,
 * `/v1/admin/keys` and `feedloop key create`.
 *
 * @example
 * reviewerNameProblem('ann') // undefined
 * reviewerNameProblem('Ann Smith') // "a reviewer's name is at most 64 letters, …"
 */
export function reviewerNameProblem(name: string | undefined): string | undefined {
  if (name === undefined || name === '') return 'a reviewer key needs the name of its reviewer';
  if (name.length > REVIEWER_NAME_MAX_LENGTH || !REVIEWER_NAME.test(name)) return `a reviewer's name is at most ${REVIEWER_NAME_MAX_LENGTH} letters, digits and _ - . : @ /`;
  return undefined;
}

const PREFIXES: Record<KeyKind, string> = { secret: 'fl_sk_', public: 'fl_pk_', reviewer: 'fl_rk_' };

/** A key as listings show it: never the key itself. */
export interface ApiKeyInfo {
  id: string;
  workspaceId: string;
  kind: KeyKind;
  prefix: string;
  name: string | null;
  createdAt: Date;
  revokedAt: Date | null;
}

/** The identity a valid key grants. */
export interface KeyIdentity {
  keyId: string;
  workspaceId: string;
  kind: KeyKind;
}

interface KeyRow {
  id: string;
  workspace_id: string;
  kind: KeyKind;
  prefix: string;
  name: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

const toInfo = (r: KeyRow): ApiKeyInfo => ({
  id: r.id,
  workspaceId: r.workspace_id,
  kind: r.kind,
  prefix: r.prefix,
  name: r.name,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

/**
 * The stored form of a key.
 *
 * @example
 * hashKey('fl_sk_abc') // 64 hex characters
 */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/**
 * Makes a new random key of a kind: 32 random bytes, base64url, behind a kind prefix.
 *
 * @example
 * generateKey('public') // 'fl_pk_3q2-…'
 */
export function generateKey(kind: KeyKind): string {
  return `${PREFIXES[kind]}${randomBytes(32).toString('base64url')}`;
}

/**
 * Stores a key (a given one, for headless set-up, or a new random one) and returns it once.
 * Storing a key that exists already for the same workspace and kind is a no-op.
 *
 * @example
 * const { key } = await createApiKey(db, ws.id, 'secret', { name: 'backend' });
 */
export async function createApiKey(
  db: SqlExecutor,
  workspaceId: string,
  kind: KeyKind,
  options: { key?: string; name?: string; actorKeyId?: string } = {},
): Promise<{ key: string; info: ApiKeyInfo; created: boolean }> {
  if (kind === 'reviewer') {
    const problem = reviewerNameProblem(options.name);
    if (problem) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', `name: ${problem}`, { field: 'name' });
  }
  const key = options.key ?? generateKey(kind);
  const rows = await db.query<KeyRow>(
    `INSERT INTO api_keys (id, workspace_id, kind, key_hash, prefix, name) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (key_hash) DO NOTHING RETURNING *`,
    [uuidv7(), workspaceId, kind, hashKey(key), key.slice(0, 10), options.name ?? null],
  );
  if (rows[0]) {
    // Key changes go to the audit log (issue 11): the key's id and prefix, never the key.
    await appendAudit(db, { workspaceId, action: 'key.created', actorKeyId: options.actorKeyId ?? null, subject: rows[0].id, details: { kind, prefix: rows[0].prefix, name: rows[0].name } });
    return { key, info: toInfo(rows[0]), created: true };
  }
  const existing = await db.query<KeyRow>('SELECT * FROM api_keys WHERE key_hash = $1', [hashKey(key)]);
  const row = existing[0];
  if (!row || row.workspace_id !== workspaceId || row.kind !== kind) {
    throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'that key is already in use elsewhere', { field: 'key' });
  }
  return { key, info: toInfo(row), created: false };
}

/**
 * Looks a presented key up: its workspace and kind, or `undefined` when unknown or revoked.
 *
 * @example
 * await authenticateKey(db, 'fl_sk_…') // { keyId, workspaceId, kind: 'secret' }
 */
export async function authenticateKey(db: SqlExecutor, key: string): Promise<KeyIdentity | undefined> {
  const rows = await db.query<{ id: string; workspace_id: string; kind: KeyKind }>(
    'SELECT id, workspace_id, kind FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
    [hashKey(key)],
  );
  const r = rows[0];
  return r ? { keyId: r.id, workspaceId: r.workspace_id, kind: r.kind } : undefined;
}

/** Lists a workspace's keys, newest first, revoked ones included. */
export async function listApiKeys(db: SqlExecutor, workspaceId: string): Promise<ApiKeyInfo[]> {
  return (
    await db.query<KeyRow>('SELECT * FROM api_keys WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC', [workspaceId])
  ).map(toInfo);
}

/**
 * Revokes a key of a workspace; revoking twice is harmless.
 *
 * @throws FeedloopError `FEEDLOOP_ERR_KEY_NOT_FOUND` when the workspace has no such key.
 */
export async function revokeApiKey(db: SqlExecutor, workspaceId: string, keyId: string, actorKeyId?: string): Promise<ApiKeyInfo> {
  const rows = await db.query<KeyRow>(
    'UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE workspace_id = $1 AND id = $2 RETURNING *',
    [workspaceId, keyId],
  );
  if (!rows[0]) throw new FeedloopError('FEEDLOOP_ERR_KEY_NOT_FOUND', `id: no key ${JSON.stringify(keyId)} in this workspace`, { field: 'id' });
  await appendAudit(db, {
    workspaceId,
    action: 'key.revoked',
    subject: keyId,
    actorKeyId: actorKeyId ?? null,
    details: { kind: rows[0].kind, prefix: rows[0].prefix },
  });
  return toInfo(rows[0]);
}

/**
 * Revokes a key as the HTTP API does: like {@link revokeApiKey}, but never the workspace's last
 * active secret key, which would lock its owners out of everything but the CLI. The target and
 * every active secret key are locked first (in id order, so two revocations cannot deadlock), so
 * two concurrent revocations of the last two secret keys cannot both succeed.
 *
 * @throws FeedloopError `FEEDLOOP_ERR_KEY_NOT_FOUND` when the workspace has no such key,
 *   `FEEDLOOP_ERR_KEY_LAST_SECRET` when it is the last active secret key.
 * @example
 * await revokeApiKeyKeepingAccess(db, ws.id, key.id, callerKeyId)
 */
export async function revokeApiKeyKeepingAccess(db: SqlClient, workspaceId: string, keyId: string, actorKeyId?: string): Promise<ApiKeyInfo> {
  return db.transaction(async (tx) => {
    const locked = await tx.query<{ id: string; kind: KeyKind; revoked_at: Date | null }>(
      `SELECT id, kind, revoked_at FROM api_keys
        WHERE workspace_id = $1 AND (id = $2 OR (kind = 'secret' AND revoked_at IS NULL))
        ORDER BY id FOR UPDATE`,
      [workspaceId, keyId],
    );
    const target = locked.find((k) => k.id === keyId);
    const othersActive = locked.some((k) => k.id !== keyId && k.kind === 'secret' && k.revoked_at === null);
    if (target?.kind === 'secret' && target.revoked_at === null && !othersActive) {
      throw new FeedloopError(
        'FEEDLOOP_ERR_KEY_LAST_SECRET',
        `id: key ${keyId} is the workspace's last active secret key; create another secret key before revoking it`,
        { field: 'id' },
      );
    }
    return revokeApiKey(tx, workspaceId, keyId, actorKeyId);
  });
}
