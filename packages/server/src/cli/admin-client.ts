/**
 * The CLI's client of a running server's `/v1/admin/keys` route, authenticated by the server's
 * local admin credential (db/local-admin-credential.ts): how `feedloop demo` and `feedloop key
 * create` make keys while the server holds an embedded data folder the CLI may not open.
 */
import type { ErrorBody, WorkspaceSettingsInput } from '@feedloop/core';
import type { LocalAdminCredential } from '../db/local-admin-credential.js';
import { FeedloopError } from '../errors.js';
import { requestWithRetry } from './api-client.js';
import type { KeyKind } from '../store/api-keys.js';

/** What to make. */
export interface AdminKeyRequest {
  /** Its id, its name, or tenant/name. */
  workspace: string;
  /** Create the workspace by that name when missing, with `settings`. */
  create?: boolean;
  settings?: WorkspaceSettingsInput;
  kind?: KeyKind;
  name?: string;
}

/** The made key, shown once. */
export interface AdminKey {
  workspace: { id: string; tenantId: string; name: string; created: boolean };
  id: string;
  kind: KeyKind;
  prefix: string;
  key: string;
}

/**
 * Makes a key through the server the credential is for.
 *
 * @throws FeedloopError with the server's code when it refuses (e.g. `FEEDLOOP_ERR_WORKSPACE_NOT_FOUND`).
 * @example
 * const made = await createKeyThroughServer(admin, { workspace: 'default' });
 */
export async function createKeyThroughServer(admin: LocalAdminCredential, request: AdminKeyRequest): Promise<AdminKey> {
  const res = await requestWithRetry({ url: admin.url, key: admin.token }, 'POST', '/v1/admin/keys', request);
  const text = await res.text();
  if (res.status === 201) return JSON.parse(text) as AdminKey;
  let refusal: ErrorBody | undefined;
  try {
    refusal = (JSON.parse(text) as { error?: ErrorBody }).error;
  } catch {
    // not the API's error shape: reported as text below
  }
  if (refusal) throw FeedloopError.from(refusal);
  throw new Error(`POST ${admin.url}/v1/admin/keys: ${res.status} ${text}`);
}
