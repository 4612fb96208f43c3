/**
 * Who a request is, once its key is resolved. Below http on purpose: ingest and the stores act
 * for a caller too, and a lower layer may not import the http layer that resolves keys.
 */
import type { WorkspaceSettings } from '@feedloop/core';
import type { KeyKind } from './api-keys.js';

/** Who a request is: its key, workspace, what the key may do, and the workspace's settings. */
export interface AuthContext {
  keyId: string;
  workspaceId: string;
  kind: KeyKind;
  settings: WorkspaceSettings;
}
