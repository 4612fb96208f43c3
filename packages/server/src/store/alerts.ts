/**
 * Alerts in SQL: the listing behind `GET /v1/alerts`, the open alerts an evaluation starts from,
 * and the writes of its changes. Ids are `al_` and a uuid v7, so id order is creation order.
 */
import type { AlertChange, AlertRuleKind, AlertSeverity, Observation, OpenAlert } from '@feedloop/core';
import { v7 as uuidv7 } from 'uuid';
import type { SqlExecutor } from '../db/sql-client.js';
import type { ActiveAlertLabels } from '../metrics.js';

/**
 * Serializes one workspace's alert evaluations until the caller's transaction ends: two
 * evaluators of the same workspace would both open the same alert.
 */
export async function lockWorkspaceAlerts(tx: SqlExecutor, workspaceId: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('feedloop:alerts:' || $1, 0))`, [workspaceId]);
}

/** Where an alert stands. */
export type AlertState = 'pending' | 'firing' | 'resolved';

/** An alert as the API shows it and notifications carry it. */
export interface AlertRecord {
  id: string;
  ruleId: string;
  fingerprint: string;
  kind: AlertRuleKind;
  severity: AlertSeverity;
  state: AlertState;
  labels: Record<string, string>;
  metric: string;
  /** The last value the evaluation measured (a percentage, or a spike's negatives). */
  value: number;
  threshold: number;
  sample: number;
  message: string;
  activeAt: Date;
  firedAt: Date | null;
  resolvedAt: Date | null;
  updatedAt: Date;
}

interface AlertRow {
  id: string;
  rule_id: string;
  fingerprint: string;
  kind: AlertRuleKind;
  severity: AlertSeverity;
  state: AlertState;
  labels: Record<string, string>;
  metric: string;
  value: number;
  threshold: number;
  sample: number;
  message: string;
  active_at: Date;
  fired_at: Date | null;
  resolved_at: Date | null;
  updated_at: Date;
}

const COLUMNS = 'id, rule_id, fingerprint, kind, severity, state, labels, metric, value, threshold, sample, message, active_at, fired_at, resolved_at, updated_at';
const ALERT_ID_PREFIX = 'al_';

const toRecord = (r: AlertRow): AlertRecord => ({
  id: r.id,
  ruleId: r.rule_id,
  fingerprint: r.fingerprint,
  kind: r.kind,
  severity: r.severity,
  state: r.state,
  labels: r.labels,
  metric: r.metric,
  value: Number(r.value),
  threshold: Number(r.threshold),
  sample: Number(r.sample),
  message: r.message,
  activeAt: r.active_at,
  firedAt: r.fired_at,
  resolvedAt: r.resolved_at,
  updatedAt: r.updated_at,
});

/** Which alerts a listing shows: `all` includes pending ones. */
export type AlertFilter = 'firing' | 'resolved' | 'all';

/**
 * A workspace's alerts in a state, newest first, at most `limit`.
 *
 * @example
 * await listAlerts(db, 'ws_1', 'firing', 100)
 */
export async function listAlerts(db: SqlExecutor, workspaceId: string, filter: AlertFilter, limit: number): Promise<AlertRecord[]> {
  const rows = await db.query<AlertRow>(
    `SELECT ${COLUMNS} FROM alerts WHERE workspace_id = $1 AND ($2::text IS NULL OR state = $2) ORDER BY id DESC LIMIT $3`,
    [workspaceId, filter === 'all' ? null : filter, limit],
  );
  return rows.map(toRecord);
}

/**
 * One alert of the workspace by id, or undefined (another workspace's alert is not found either).
 *
 * @example
 * await readAlert(db, 'ws_1', 'al_01J…') // { id: 'al_01J…', state: 'firing', … }
 */
export async function readAlert(db: SqlExecutor, workspaceId: string, id: string): Promise<AlertRecord | undefined> {
  const rows = await db.query<AlertRow>(`SELECT ${COLUMNS} FROM alerts WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
  return rows[0] === undefined ? undefined : toRecord(rows[0]);
}

/**
 * Every workspace's pending and firing alerts, for the `feedloop_alerts_active` gauge: a read of
 * the `alerts_open` partial index, whose rows are the open alerts only.
 *
 * @example
 * await openAlertLabels(db) // [{ workspaceId: 'ws_1', ruleId: 'satisfaction-warning', severity: 'warning', state: 'firing' }]
 */
export async function openAlertLabels(db: SqlExecutor): Promise<ActiveAlertLabels[]> {
  return db.query<ActiveAlertLabels>(
    `SELECT workspace_id AS "workspaceId", rule_id AS "ruleId", severity, state FROM alerts WHERE state IN ('pending', 'firing')`,
  );
}

/**
 * The workspace's pending and firing alerts, what an evaluation starts from.
 *
 * @example
 * const open = await readOpenAlerts(tx, 'ws_1');
 */
export async function readOpenAlerts(db: SqlExecutor, workspaceId: string): Promise<OpenAlert[]> {
  const rows = await db.query<AlertRow>(`SELECT ${COLUMNS} FROM alerts WHERE workspace_id = $1 AND state IN ('pending', 'firing')`, [workspaceId]);
  return rows.map((r) => ({ id: r.id, ruleId: r.rule_id, fingerprint: r.fingerprint, state: r.state as OpenAlert['state'], activeAt: r.active_at, labels: r.labels }));
}

/**
 * Writes an evaluation's changes in the caller's transaction and returns the alerts that fired
 * or resolved, as written: the ones to notify.
 *
 * @example
 * const notify = await db.transaction((tx) => applyAlertChanges(tx, 'ws_1', changes, now));
 */
export async function applyAlertChanges(tx: SqlExecutor, workspaceId: string, changes: readonly AlertChange[], now: Date): Promise<AlertRecord[]> {
  const notify: AlertRecord[] = [];
  for (const change of changes) {
    switch (change.type) {
      case 'pending':
        await insertAlert(tx, workspaceId, change.observation, 'pending', now, now);
        break;
      case 'firing':
        notify.push(
          change.alertId === null
            ? await insertAlert(tx, workspaceId, change.observation, 'firing', change.activeAt, now)
            : await updateAlert(tx, workspaceId, change.alertId, change.observation, `state = 'firing', fired_at = $9`, now),
        );
        break;
      case 'observed':
        await updateAlert(tx, workspaceId, change.alertId, change.observation, '', now);
        break;
      case 'resolved':
        notify.push(await updateAlert(tx, workspaceId, change.alertId, change.observation, `state = 'resolved', resolved_at = $9`, now));
        break;
      case 'cleared':
        await tx.query(`DELETE FROM alerts WHERE workspace_id = $1 AND id = $2 AND state = 'pending'`, [workspaceId, change.alertId]);
        break;
    }
  }
  return notify;
}

async function insertAlert(tx: SqlExecutor, workspaceId: string, o: Observation, state: 'pending' | 'firing', activeAt: Date, now: Date): Promise<AlertRecord> {
  const [row] = await tx.query<AlertRow>(
    `INSERT INTO alerts (id, workspace_id, rule_id, fingerprint, kind, severity, state, labels, metric, value, threshold, sample, message,
                         active_at, fired_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12, $13, $14, $15, $16)
     RETURNING ${COLUMNS}`,
    [
      ALERT_ID_PREFIX + uuidv7(),
      workspaceId,
      o.ruleId,
      o.fingerprint,
      o.kind,
      o.severity,
      state,
      JSON.stringify(o.labels),
      o.metric,
      o.value,
      o.threshold,
      o.sample,
      o.message,
      activeAt.toISOString(),
      state === 'firing' ? now.toISOString() : null,
      now.toISOString(),
    ],
  );
  if (!row) throw new Error('INSERT … RETURNING gave no row');
  return toRecord(row);
}

/**
 * Refreshes an open alert's measure and, with `set`, moves its state (`$9` is now). A removed
 * rule's alert resolves without an observation and keeps its last measure.
 */
async function updateAlert(tx: SqlExecutor, workspaceId: string, id: string, o: Observation | null, set: string, now: Date): Promise<AlertRecord> {
  const [row] = await tx.query<AlertRow>(
    `UPDATE alerts
        SET value = COALESCE($3, value), threshold = COALESCE($4, threshold), sample = COALESCE($5, sample),
            message = COALESCE($6, message), severity = COALESCE($7, severity), kind = COALESCE($8, kind),
            updated_at = $9${set ? `, ${set}` : ''}
      WHERE workspace_id = $1 AND id = $2 AND state IN ('pending', 'firing')
      RETURNING ${COLUMNS}`,
    [workspaceId, id, o?.value ?? null, o?.threshold ?? null, o?.sample ?? null, o?.message ?? null, o?.severity ?? null, o?.kind ?? null, now.toISOString()],
  );
  if (!row) throw new Error(`alert ${id} is no longer open`);
  return toRecord(row);
}
