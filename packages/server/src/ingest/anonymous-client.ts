/**
 * The identity of an anonymous Phase 4.1 submitter: a keyed hash of its IP address and user
 * agent, so two identical anonymous entries from one client within the dedup window count once
 * (the seed's "prevent duplicate submissions", issue 24), while neither the address nor the
 * agent is ever stored: only the content fingerprint built from this hash is.
 */
import { createHmac } from 'node:crypto';
import type { SqlExecutor } from '../db/sql-client.js';
import { auditKey } from '../store/audit-log.js';

/**
 * HMAC-SHA-256 of the workspace, IP and user agent under `key` (the deployment's privacy key),
 * 32 hex characters. Per workspace, so one client in two workspaces is not linkable.
 *
 * @example
 * anonymousClientHash(key, 'ws_1', '203.0.113.7', 'Mozilla/5.0') // '9c1e…'
 */
export function anonymousClientHash(key: string, workspaceId: string, ip: string, userAgent: string): string {
  return createHmac('sha256', key).update(`client\u0000${workspaceId}\u0000${ip}\u0000${userAgent}`).digest('hex').slice(0, 32);
}

/**
 * The hash of a request's client under the audit key (`FEEDLOOP_AUDIT_KEY`, else the key kept in
 * `privacy_keys`); the user agent is `''` when the request has none.
 *
 * @example
 * await anonymousClient(db, config.auditKey, 'ws_1', request.ip, request.headers['user-agent'])
 */
export async function anonymousClient(db: SqlExecutor, configuredKey: string | undefined, workspaceId: string, ip: string, userAgent: string | undefined): Promise<string> {
  return anonymousClientHash(await auditKey(db, configuredKey), workspaceId, ip, userAgent ?? '');
}
