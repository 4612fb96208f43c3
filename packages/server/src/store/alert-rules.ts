/**
 * A workspace's quality-alert rules: stored as `PUT /v1/alert-rules` gave them (validated, with
 * defaults applied), and core's defaults for a workspace that never set any.
 */
import { alertRuleSetSchema, defaultAlertRules, type AlertRule } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';

/** A workspace's rules and whether they are the defaults (it never set its own). */
export interface AlertRuleSet {
  rules: AlertRule[];
  isDefault: boolean;
  updatedAt: Date | null;
}

/**
 * The rules of a workspace; the defaults when it has none stored. Stored rules are parsed again,
 * so rules written by an older version get the defaults of fields added since.
 *
 * @example
 * const { rules, isDefault } = await readAlertRules(db, 'ws_1');
 */
export async function readAlertRules(db: SqlExecutor, workspaceId: string): Promise<AlertRuleSet> {
  const [row] = await db.query<{ rules: unknown; updated_at: Date }>('SELECT rules, updated_at FROM alert_rules WHERE workspace_id = $1', [workspaceId]);
  if (!row) return { rules: defaultAlertRules(), isDefault: true, updatedAt: null };
  return { rules: alertRuleSetSchema.parse({ rules: row.rules }).rules, isDefault: false, updatedAt: row.updated_at };
}

/**
 * Replaces a workspace's rule set (already validated by {@link alertRuleSetSchema}).
 *
 * @example
 * await writeAlertRules(db, 'ws_1', alertRuleSetSchema.parse(body).rules);
 */
export async function writeAlertRules(db: SqlExecutor, workspaceId: string, rules: readonly AlertRule[]): Promise<AlertRuleSet> {
  const [row] = await db.query<{ updated_at: Date }>(
    `INSERT INTO alert_rules (workspace_id, rules, updated_at) VALUES ($1, $2::jsonb, now())
     ON CONFLICT (workspace_id) DO UPDATE SET rules = EXCLUDED.rules, updated_at = EXCLUDED.updated_at
     RETURNING updated_at`,
    [workspaceId, JSON.stringify(rules)],
  );
  return { rules: [...rules], isDefault: false, updatedAt: row?.updated_at ?? null };
}
