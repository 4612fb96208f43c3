/**
 * The alert rule editor's preview: replays a rule set hour by hour over past hourly counts and
 * says which alerts would have fired, when, and when they would have resolved. Pure: the server
 * reads the counts; the lifecycle is `evaluateAlerts`' own, so a preview matches what the
 * evaluator would have done at hourly ticks.
 *
 * @module
 */
import type { AlertRule, AlertSeverity } from './alert-rules.js';
import { HOUR_MS, type HourlyCounts } from './alert-window.js';
import { evaluateAlerts, type JudgeWindow, type OpenAlert, type RegisteredCounts } from './evaluate-alerts.js';

/** Responses and sessions registered in one UTC hour. */
export interface HourlyRegistered extends RegisteredCounts {
  hour: Date;
}

/** One alert the preview would have raised. */
export interface PreviewedAlert {
  ruleId: string;
  severity: AlertSeverity;
  labels: Record<string, string>;
  metric: string;
  /** The first value that fired it, and its threshold. */
  value: number;
  threshold: number;
  message: string;
  firedAt: Date;
  /** `null`: still firing at the end of the replay. */
  resolvedAt: Date | null;
}

/**
 * Replays `rules` at every hour from `from` to `to` over `buckets` (which should start a window
 * and a baseline before `from`); judge_agreement rules over `judges` at each hour (the live tick
 * reads a judge's calibration at most hourly too). Sessions registered are summed by hour, which overcounts a
 * session spanning hours: a preview's escalation rate can read a little lower than the live one.
 *
 * @example
 * previewAlerts({ rules, buckets, registered, from: new Date(Date.now() - 30 * 86_400_000), to: new Date() })
 * // [{ ruleId: 'satisfaction-drop', firedAt: 2026-11-02T14:00Z, resolvedAt: 2026-11-03T09:00Z, ... }]
 */
export function previewAlerts(input: {
  rules: readonly AlertRule[];
  buckets: readonly HourlyCounts[];
  registered: readonly HourlyRegistered[];
  from: Date;
  to: Date;
  /**
   * The judge_agreement rules' calibrations as they stood at an hour (per core's `judgeWindowKey`),
   * e.g. by `judgeWindowAt`; absent, those rules see no data, as live without a calibration.
   */
  judges?: (now: Date) => ReadonlyMap<string, JudgeWindow>;
}): PreviewedAlert[] {
  const out: PreviewedAlert[] = [];
  let open: OpenAlert[] = [];
  const byId = new Map<string, PreviewedAlert>();
  let nextId = 0;
  const start = Math.ceil(input.from.getTime() / HOUR_MS) * HOUR_MS;
  const windows = [...new Set(input.rules.map((r) => r.windowHours))];
  for (let t = start; t <= input.to.getTime(); t += HOUR_MS) {
    const now = new Date(t);
    const registered = new Map<number, RegisteredCounts>();
    for (const w of windows) {
      const lo = t - w * HOUR_MS;
      let responses = 0;
      let sessions = 0;
      for (const r of input.registered) {
        const h = r.hour.getTime();
        if (h >= lo && h <= t) {
          responses += r.responses;
          sessions += r.sessions;
        }
      }
      registered.set(w, { responses, sessions });
    }
    const changes = evaluateAlerts({ now, rules: input.rules, buckets: input.buckets, registered, open, ...(input.judges ? { judges: input.judges(now) } : {}) });
    for (const c of changes) {
      if (c.type === 'pending') {
        open.push({ id: `p${nextId++}`, ruleId: c.observation.ruleId, fingerprint: c.observation.fingerprint, state: 'pending', activeAt: now, labels: c.observation.labels });
      } else if (c.type === 'firing') {
        const o = c.observation;
        const id = c.alertId ?? `p${nextId++}`;
        if (c.alertId === null) open.push({ id, ruleId: o.ruleId, fingerprint: o.fingerprint, state: 'firing', activeAt: now, labels: o.labels });
        else open = open.map((a) => (a.id === id ? { ...a, state: 'firing' } : a));
        const alert: PreviewedAlert = { ruleId: o.ruleId, severity: o.severity, labels: o.labels, metric: o.metric, value: o.value, threshold: o.threshold, message: o.message, firedAt: now, resolvedAt: null };
        byId.set(id, alert);
        out.push(alert);
      } else if (c.type === 'resolved' || c.type === 'cleared') {
        const fired = byId.get(c.alertId);
        if (fired) fired.resolvedAt = now;
        open = open.filter((a) => a.id !== c.alertId);
      }
    }
  }
  return out;
}
