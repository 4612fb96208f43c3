/**
 * The audit log (`GET /v1/audit`): erasures, consent changes, key changes, settings changes and
 * dataset changes.
 * End users appear only as a keyed hash (HMAC-SHA-256 under the deployment's audit key), so the
 * log keeps no erased user's id in clear, while whoever knows an id (and holds the key) can
 * still find that user's entries.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { SqlExecutor } from '../db/sql-client.js';

/** What the log records. */
export type AuditAction =
  | 'user.erased'
  | 'consent.changed'
  | 'key.created'
  | 'key.revoked'
  | 'settings.changed'
  | 'retention.archived'
  | 'feedback.retracted'
  | 'dataset.created'
  | 'dataset.changed'
  | 'review_queue.created'
  | 'review_queue.changed'
  | 'review.submitted';

/** One entry as the API shows it. */
export interface AuditEntry {
  id: string;
  at: string;
  action: string;
  actorKeyId: string | null;
  subject: string | null;
  details: unknown;
}

/** The key's name in `privacy_keys`. */
const AUDIT_KEY_NAME = 'audit-hmac';
const cachedKeys = new WeakMap<object, Promise<string>>();

/**
 * The audit HMAC key: `configured` (FEEDLOOP_AUDIT_KEY) when set, else a random key made on
 * first use and kept in `privacy_keys` (the first process to make it wins; the others read it).
 */
export function auditKey(db: SqlExecutor, configured: string | undefined): Promise<string> {
  if (configured) return Promise.resolve(configured);
  let key = cachedKeys.get(db);
  if (!key) {
    key = (async () => {
      await db.query('INSERT INTO privacy_keys (name, secret) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [AUDIT_KEY_NAME, randomBytes(32).toString('base64url')]);
      const [row] = await db.query<{ secret: string }>('SELECT secret FROM privacy_keys WHERE name = $1', [AUDIT_KEY_NAME]);
      if (!row) throw new Error('the audit key vanished');
      return row.secret;
    })();
    key.catch(() => cachedKeys.delete(db));
    cachedKeys.set(db, key);
  }
  return key;
}

/**
 * The keyed hash an end user appears as in the log: `hmac:` and 32 hex characters, per workspace
 * (the same user id in two workspaces gives two subjects: no cross-workspace correlation).
 *
 * @example
 * userSubject(key, 'ws_1', 'u1') // 'hmac:3f9a…'
 */
export function userSubject(key: string, workspaceId: string, userId: string): string {
  return `hmac:${createHmac('sha256', key).update(`${workspaceId}\u0000${userId}`).digest('hex').slice(0, 32)}`;
}

/** Appends an entry. */
export async function appendAudit(
  db: SqlExecutor,
  entry: { workspaceId: string; action: AuditAction; actorKeyId?: string | null; subject?: string | null; details?: unknown },
): Promise<void> {
  await db.query('INSERT INTO audit_log (workspace_id, action, actor_key_id, subject, details) VALUES ($1, $2, $3, $4, $5::jsonb)', [
    entry.workspaceId,
    entry.action,
    entry.actorKeyId ?? null,
    entry.subject ?? null,
    JSON.stringify(entry.details ?? {}),
  ]);
}

/**
 * A workspace's entries, newest first, `limit` at a time before the entry id `before`.
 *
 * @example
 * await listAudit(db, ws, { limit: 100 }) // { entries: [...], nextCursor: '41' | null }
 */
export async function listAudit(
  db: SqlExecutor,
  workspaceId: string,
  options: { limit: number; before?: string; action?: string; subject?: string },
): Promise<{ entries: AuditEntry[]; nextCursor: string | null }> {
  const rows = await db.query<{ entry_id: string; at: Date; action: string; actor_key_id: string | null; subject: string | null; details: unknown }>(
    // The id goes out as text under another name: `id::text AS id` would make ORDER BY id sort
    // the text ('10' < '9'), putting entries out of order and making the cursor skip some.
    `SELECT a.id::text AS entry_id, a.at, a.action, a.actor_key_id, a.subject, a.details FROM audit_log a
      WHERE a.workspace_id = $1 AND ($2::bigint IS NULL OR a.id < $2::bigint) AND ($3::text IS NULL OR a.action = $3) AND ($4::text IS NULL OR a.subject = $4)
      ORDER BY a.id DESC LIMIT $5`,
    [workspaceId, options.before ?? null, options.action ?? null, options.subject ?? null, options.limit + 1],
  );
  const page = rows.slice(0, options.limit);
  return {
    entries: page.map((r) => ({ id: r.entry_id, at: r.at.toISOString(), action: r.action, actorKeyId: r.actor_key_id, subject: r.subject, details: r.details })),
    nextCursor: rows.length > options.limit ? (page[page.length - 1]?.entry_id ?? null) : null,
  };
}
