/**
 * The `alerts` job: evaluates every workspace's quality-alert rules once per tick, however many
 * workers run it. A tick is named by its start, `floor(now / interval) × interval` in epoch
 * milliseconds; the evaluator whose `INSERT … ON CONFLICT DO
 * NOTHING` claims the tick's row evaluates, the others return at once. Each workspace is then
 * evaluated in a transaction of its own (under a transaction-level advisory lock on the workspace,
 * so two evaluators of neighbouring ticks never interleave on it), which writes the alert changes
 * and queues the `alert.firing` / `alert.resolved` deliveries of the workspace's webhooks; a
 * failure leaves that workspace for the next tick.
 */
import {
  baselineStart,
  evaluateAlerts,
  SCORE_METRIC_PREFIX,
  scoreWindowKey,
  HOUR_MS,
  MAX_BASELINE_DAYS,
  MAX_WINDOW_HOURS,
  windowStart,
  type AlertRule,
  type RegisteredCounts,
} from '@feedloop/core';
import type { SqlClient, SqlExecutor } from '../db/sql-client.js';
import { alertMessage } from './alert-messages.js';
import { createDeliveries } from '../store/webhooks.js';
import { claimAlertTick } from '../store/alert-ticks.js';
import { readAlertRules } from '../store/alert-rules.js';
import { readHourlyCounts, readRegistered, workspacesToEvaluate } from '../store/alert-window.js';
import { applyAlertChanges, lockWorkspaceAlerts, readOpenAlerts } from '../store/alerts.js';
import { pruneHourlyCounts } from '../store/hourly-metrics.js';
import { scoreWindow } from '../store/score-reads.js';
import { judgeAgreementWindows } from './judge-agreement-windows.js';

/** How long tick rows are kept (older ones are deleted by the evaluator that claims a new one). */
const TICKS_KEPT_MS = 86_400_000;
/** Hourly counts are kept for the longest window and baseline a rule may ask for, and a day more. */
const HOURLY_KEPT_MS = (MAX_WINDOW_HOURS + (MAX_BASELINE_DAYS + 1) * 24) * HOUR_MS;

/** What one call did. */
export interface AlertTickReport {
  /** The tick's start, epoch milliseconds. */
  tick: number;
  /** Whether this call claimed the tick (false: another evaluator has it). */
  evaluated: boolean;
  workspaces: number;
  fired: number;
  resolved: number;
  /** Deliveries queued, to send now. */
  deliveryIds: number[];
  /** Workspaces whose evaluation failed (left for the next tick). */
  errors: Array<{ workspaceId: string; error: unknown }>;
}

/**
 * Evaluates the tick of `now` if no other evaluator claimed it.
 *
 * @example
 * const report = await evaluateAlertTick(db, { intervalMs: 30_000 });
 * if (report.deliveryIds.length > 0) await deliverDueWebhooks(db, { ids: report.deliveryIds });
 */
export async function evaluateAlertTick(db: SqlClient, options: { intervalMs: number; now?: Date }): Promise<AlertTickReport> {
  const now = options.now ?? new Date();
  // Whole milliseconds: the tick is a bigint, and an interval like 0.0333 s is not.
  const step = Math.max(1, Math.round(options.intervalMs));
  const tick = Math.floor(now.getTime() / step) * step;
  const report: AlertTickReport = { tick, evaluated: false, workspaces: 0, fired: 0, resolved: 0, deliveryIds: [], errors: [] };
  if (!(await claimAlertTick(db, tick, TICKS_KEPT_MS))) return report;
  report.evaluated = true;
  await pruneHourlyCounts(db, new Date(now.getTime() - HOURLY_KEPT_MS));
  const workspaces = await workspacesToEvaluate(db, windowStart(now, MAX_WINDOW_HOURS));
  report.workspaces = workspaces.length;
  for (const workspaceId of workspaces) {
    try {
      const notified = await db.transaction((tx) => evaluateWorkspace(tx, workspaceId, now));
      report.fired += notified.fired;
      report.resolved += notified.resolved;
      report.deliveryIds.push(...notified.deliveryIds);
    } catch (error) {
      report.errors.push({ workspaceId, error });
    }
  }
  return report;
}

/** One workspace's evaluation, in the caller's transaction. */
async function evaluateWorkspace(tx: SqlExecutor, workspaceId: string, now: Date): Promise<{ fired: number; resolved: number; deliveryIds: number[] }> {
  await lockWorkspaceAlerts(tx, workspaceId);
  const { rules } = await readAlertRules(tx, workspaceId);
  const buckets = await readHourlyCounts(tx, workspaceId, earliestHour(rules, now));
  const registered = new Map<number, RegisteredCounts>();
  for (const rule of rules) {
    if (!rule.enabled || (rule.kind !== 'correction_rate' && rule.kind !== 'escalation_rate') || registered.has(rule.windowHours)) continue;
    registered.set(rule.windowHours, await readRegistered(tx, workspaceId, windowStart(now, rule.windowHours)));
  }
  const scores = new Map<string, { count: number; sum: number }>();
  for (const rule of rules) {
    if (!rule.enabled || rule.kind !== 'score_mean' || rule.metric === undefined) continue;
    const name = rule.metric.slice(SCORE_METRIC_PREFIX.length);
    const key = scoreWindowKey(rule.windowHours, name);
    if (!scores.has(key)) scores.set(key, await scoreWindow(tx, workspaceId, name, windowStart(now, rule.windowHours)));
  }
  // Judges' calibrations are read at most hourly per rule window (judge-agreement-windows.ts).
  const judges = await judgeAgreementWindows(tx, workspaceId, rules, now);
  const open = await readOpenAlerts(tx, workspaceId);
  const changes = evaluateAlerts({ now, rules, buckets, registered, open, scores, judges });
  const notify = await applyAlertChanges(tx, workspaceId, changes, now);
  const deliveryIds = await createDeliveries(
    tx,
    notify.map((a) => alertMessage(workspaceId, a, now)),
  );
  return { fired: notify.filter((a) => a.state === 'firing').length, resolved: notify.filter((a) => a.state === 'resolved').length, deliveryIds };
}

/** The first hour any enabled rule reads: its window's start, and a spike rule's baseline before it. */
function earliestHour(rules: readonly AlertRule[], now: Date): Date {
  let earliest = now.getTime();
  for (const rule of rules) {
    if (!rule.enabled) continue;
    const from = windowStart(now, rule.windowHours);
    const first = rule.kind === 'category_spike' ? baselineStart(from, rule.baselineDays ?? 0) : from;
    earliest = Math.min(earliest, first.getTime());
  }
  return new Date(earliest);
}
