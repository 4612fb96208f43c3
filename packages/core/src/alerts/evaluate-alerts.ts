/**
 * Alert evaluation: what each rule sees in its window (value, threshold, sample), and how each
 * alert moves through its lifecycle (none → pending → firing → resolved), with the minimum
 * sample, the `for` duration and the hysteresis that keeps a value hovering at the threshold from
 * flapping. Pure: the server loads the counts and open alerts and writes the changes.
 *
 * @module
 */
import { alertFingerprint } from './alert-fingerprint.js';
import { SCORE_METRIC_PREFIX, judgeRuleEvaluatorId, type AlertRule, type AlertRuleKind, type AlertSeverity } from './alert-rules.js';
import { binomialUpperTail } from '../stats/distributions.js';
import { baselineStart, HOUR_MS, sumWindow, windowStart, type HourlyCounts, type WindowCounts } from './alert-window.js';

const PERCENT = 100;
/** Values are kept to 2 decimals, like the rollup's rates. */
const DECIMALS = 2;

/** Responses and sessions registered in a window (their distinct counts do not add up by hour). */
export interface RegisteredCounts {
  responses: number;
  sessions: number;
}

/** An alert that is pending or firing. */
export interface OpenAlert {
  id: string;
  ruleId: string;
  fingerprint: string;
  state: 'pending' | 'firing';
  /** When the condition started to hold. */
  activeAt: Date;
  /** The alert's own labels, as its observation had them. */
  labels: Readonly<Record<string, string>>;
}

/** Everything one workspace's evaluation needs. */
export interface AlertInput {
  now: Date;
  rules: readonly AlertRule[];
  /** Hourly buckets covering the longest window plus its baseline. */
  buckets: readonly HourlyCounts[];
  /** Registered responses and sessions per window length (hours) of the correction and escalation rules. */
  registered: ReadonlyMap<number, RegisteredCounts>;
  open: readonly OpenAlert[];
  /**
   * The score_mean rules' windows: numeric scores and their sum per {@link scoreWindowKey}
   * (window length and score name); a window not given counts as empty.
   */
  scores?: ReadonlyMap<string, { count: number; sum: number }>;
  /**
   * The judge_agreement rules' calibrations per {@link judgeWindowKey} (window days and evaluator
   * id); a calibration not given counts as no data (n = 0).
   */
  judges?: ReadonlyMap<string, JudgeWindow>;
}

/** A judge's calibration over a rule's window: units with both labels, and the two statistics on them. */
export interface JudgeWindow {
  n: number;
  /** Cohen's kappa; null with no units, or when both sides used one and the same label. */
  kappa: number | null;
  /** Share of the units where judge and humans agree, 0–1; null with no units. */
  agreement: number | null;
}

/**
 * The key of a judge_agreement rule's calibration in {@link AlertInput.judges}.
 *
 * @example
 * judgeWindowKey(30, 'ev_1') // '30\u0000ev_1'
 */
export function judgeWindowKey(windowDays: number, evaluatorId: string): string {
  return `${windowDays}\u0000${evaluatorId}`;
}

/**
 * The key of a score_mean rule's window in {@link AlertInput.scores}.
 *
 * @example
 * scoreWindowKey(24, 'helpfulness') // '24\u0000helpfulness'
 */
export function scoreWindowKey(windowHours: number, name: string): string {
  return `${windowHours}\u0000${name}`;
}

/** What one rule sees for one fingerprint at one evaluation. */
export interface Observation {
  ruleId: string;
  kind: AlertRuleKind;
  severity: AlertSeverity;
  fingerprint: string;
  /** The alert's own labels (a spike's `category`). */
  labels: Record<string, string>;
  /** e.g. `satisfaction_rate`, `correction_rate`, `category_negatives:hallucination`. */
  metric: string;
  /** The measured value: a percentage, or a spike's negatives in the window. */
  value: number;
  /** The level it is compared with: the rule's percentage, or factor × the expected negatives. */
  threshold: number;
  /** Rated responses, responses or sessions the value is over. */
  sample: number;
  /** The condition holds (and the sample is large enough). */
  breached: boolean;
  /** The value is past the threshold by the hysteresis, the other way: a firing alert may resolve. */
  clear: boolean;
  message: string;
}

/** One change to store; `resolved` without an observation means the rule was removed or disabled. */
export type AlertChange =
  | { type: 'pending'; observation: Observation }
  | { type: 'firing'; alertId: string | null; activeAt: Date; observation: Observation }
  | { type: 'observed'; alertId: string; observation: Observation }
  | { type: 'resolved'; alertId: string; observation: Observation | null }
  | { type: 'cleared'; alertId: string };

const round = (x: number): number => Math.round(x * 10 ** DECIMALS) / 10 ** DECIMALS;
const percent = (n: number, d: number): number => round((n * PERCENT) / d);

/**
 * What every enabled rule sees now: one observation per rule, and per category for a spike rule
 * (the categories in its window, and those with an open alert, so that an alert can resolve once
 * its category falls quiet). A rule whose sample is too small gives an observation that is
 * neither breached nor clear: an open alert holds, and nothing new starts, on too little data.
 *
 * @example
 * observe({ now, rules: defaultAlertRules(), buckets, registered: new Map(), open: [] })
 */
export function observe(input: AlertInput): Observation[] {
  const out: Observation[] = [];
  const openByRule = new Map<string, OpenAlert[]>();
  for (const a of input.open) openByRule.set(a.ruleId, [...(openByRule.get(a.ruleId) ?? []), a]);
  const far = new Date(input.now.getTime() + HOUR_MS);
  for (const rule of input.rules) {
    if (!rule.enabled) continue;
    const from = windowStart(input.now, rule.windowHours);
    const counts = sumWindow(input.buckets, from, far);
    if (rule.kind === 'judge_agreement') {
      const evaluatorId = judgeRuleEvaluatorId(rule) ?? '';
      const window = input.judges?.get(judgeWindowKey(rule.windowDays ?? 0, evaluatorId)) ?? { n: 0, kappa: null, agreement: null };
      out.push(observeJudge(rule, evaluatorId, window));
    } else if (rule.kind === 'score_mean') {
      const name = (rule.metric ?? '').slice(SCORE_METRIC_PREFIX.length);
      out.push(observeScoreMean(rule, name, input.scores?.get(scoreWindowKey(rule.windowHours, name)) ?? { count: 0, sum: 0 }));
    } else if (rule.kind === 'category_spike') {
      const baseline = sumWindow(input.buckets, baselineStart(from, rule.baselineDays ?? 1), from);
      out.push(...observeSpikes(rule, counts, baseline, openByRule.get(rule.id) ?? []));
    } else {
      out.push(observeRate(rule, counts, input.registered.get(rule.windowHours) ?? { responses: 0, sessions: 0 }));
    }
  }
  return out;
}

/** A rate rule: satisfaction fires below its threshold, the correction and escalation rates above. */
function observeRate(rule: AlertRule, counts: WindowCounts, registered: RegisteredCounts): Observation {
  const [numerator, sample, metric, label] =
    rule.kind === 'satisfaction'
      ? [counts.positive, counts.rated, 'satisfaction_rate', 'Satisfaction']
      : rule.kind === 'correction_rate'
        ? [counts.corrections, registered.responses, 'correction_rate', 'Correction rate']
        : [counts.escalations, registered.sessions, 'escalation_rate', 'Escalation rate'];
  // The counts are events and the denominators distinct responses or sessions, so a response
  // corrected twice could take the rate past 100 (docs/alerts.md, "Approximations"): capped.
  const value = sample === 0 ? 0 : Math.min(PERCENT, percent(numerator, sample));
  const below = rule.kind === 'satisfaction';
  const unit = rule.kind === 'escalation_rate' ? 'sessions' : rule.kind === 'correction_rate' ? 'responses' : 'rated responses';
  return thresholdObservation(rule, {
    metric,
    value,
    sample,
    below,
    message: `${label} ${value} % is ${below ? 'below' : 'above'} ${rule.threshold} % over the last ${rule.windowHours} h (${sample} ${unit})`,
  });
}

/** Decimals a score mean is compared and reported with. */
const MEAN_DECIMALS = 4;

/** A score_mean rule over its window: the mean of the named score's numeric values. */
function observeScoreMean(rule: AlertRule, name: string, window: { count: number; sum: number }): Observation {
  const value = window.count === 0 ? 0 : Number((window.sum / window.count).toFixed(MEAN_DECIMALS));
  const below = rule.direction !== 'above';
  return thresholdObservation(rule, {
    metric: `${SCORE_METRIC_PREFIX}${name}`,
    value,
    sample: window.count,
    below,
    message: `Mean ${JSON.stringify(name)} score ${value} is ${below ? 'below' : 'above'} ${rule.threshold} over the last ${rule.windowHours} h (${window.count} scores)`,
  });
}

/** Decimals a judge's statistic is compared and reported with. */
const JUDGE_DECIMALS = 3;

/**
 * A judge_agreement rule: the statistic over the window fires below the threshold. Too few units
 * (or a kappa that is undefined: one label on both sides) is the "not enough data" state: neither
 * breached nor clear, so nothing starts and an open alert holds.
 */
function observeJudge(rule: AlertRule, evaluatorId: string, window: JudgeWindow): Observation {
  const statistic = rule.statistic ?? 'kappa';
  const raw = statistic === 'kappa' ? window.kappa : window.agreement;
  const value = raw === null ? 0 : Number(raw.toFixed(JUDGE_DECIMALS));
  const label = statistic === 'kappa' ? "Cohen's kappa" : 'Agreement';
  const o = thresholdObservation(rule, {
    metric: `judge_agreement:${evaluatorId}`,
    value,
    sample: raw === null ? 0 : window.n,
    below: true,
    message:
      window.n < rule.minSample || raw === null
        ? `Not enough data: judge ${JSON.stringify(evaluatorId)} has ${window.n} units with a human label over the last ${rule.windowDays ?? 0} d (needs ${rule.minSample})`
        : `${label} of judge ${JSON.stringify(evaluatorId)} with the humans ${value} is below ${rule.threshold} over the last ${rule.windowDays ?? 0} d (${window.n} units)`,
  });
  return { ...o, sample: window.n };
}

/**
 * A rule with one threshold on one value: breached past the threshold (below it, or above it) on
 * enough sample, clear once back past it by the rule's hysteresis.
 */
function thresholdObservation(rule: AlertRule, o: { metric: string; value: number; sample: number; below: boolean; message: string }): Observation {
  const enough = o.sample >= rule.minSample;
  const breached = enough && (o.below ? o.value < rule.threshold : o.value > rule.threshold);
  const clear = enough && (o.below ? o.value >= rule.threshold + rule.hysteresis : o.value <= rule.threshold - rule.hysteresis);
  return {
    ruleId: rule.id,
    kind: rule.kind,
    severity: rule.severity,
    fingerprint: alertFingerprint(rule.id, {}),
    labels: {},
    metric: o.metric,
    value: o.value,
    threshold: rule.threshold,
    sample: o.sample,
    breached,
    clear,
    message: o.message,
  };
}

/** A spike rule: one observation per category in the window or with an open alert of the rule. */
function observeSpikes(rule: AlertRule, counts: WindowCounts, baseline: WindowCounts, open: readonly OpenAlert[]): Observation[] {
  const baselineDays = rule.baselineDays ?? 1;
  const minCount = rule.minCount ?? 1;
  const maxPValue = rule.maxPValue ?? 1;
  const enough = counts.rated >= rule.minSample;
  const categories = new Set(counts.negativeCategories.keys());
  const out: Observation[] = [];
  const seen = new Set<string>();
  for (const category of [...categories].sort()) {
    const observation = spikeOf(category);
    seen.add(observation.fingerprint);
    out.push(observation);
  }
  // Categories gone quiet: their count is 0 now, so their alerts resolve.
  for (const alert of open) if (!seen.has(alert.fingerprint)) out.push(...quietCategory(alert));
  return out;

  // A category's expected count is the window's ratings times its share of the baseline's ratings
  // (with ½ added, Jeffreys-style, so a category never seen before has a small share, not 0), so a
  // busier day is not a spike; the one-sided binomial test says whether the count is more than
  // chance. A spike needs all three: at least minCount, above factor × expected, p below maxPValue.
  function spikeOf(category: string): Observation {
    const count = counts.negativeCategories.get(category) ?? 0;
    const share = ((baseline.negativeCategories.get(category) ?? 0) + 0.5) / (baseline.rated + 1);
    const trials = Math.max(counts.rated, count);
    const expected = trials * share;
    const p = binomialUpperTail(count, trials, share);
    const limit = round(rule.threshold * expected);
    const breached = enough && count >= minCount && count > rule.threshold * expected && p < maxPValue;
    const clear = enough && (count <= (rule.threshold - rule.hysteresis) * expected || count < minCount);
    return {
      ruleId: rule.id,
      kind: rule.kind,
      severity: rule.severity,
      fingerprint: alertFingerprint(rule.id, { category }),
      labels: { category },
      metric: `category_negatives:${category}`,
      value: count,
      threshold: limit,
      sample: counts.rated,
      breached,
      clear,
      message: `${count} negatives name "${category}" over the last ${rule.windowHours} h, above ${rule.threshold}× the ${round(expected)} its ${baselineDays}-day baseline share of ${counts.rated} rated predicts (binomial p = ${p.toPrecision(2)})`,
    };
  }

  // An open alert whose category is not in the window's counts: its label names the category.
  function quietCategory(alert: OpenAlert): Observation[] {
    const category = alert.labels.category;
    return category === undefined ? [] : [spikeOf(category)];
  }
}

/**
 * The lifecycle step of every open alert and observation:
 * - breached with no open alert: `pending`, or straight to `firing` when `forSeconds` is 0;
 * - pending and still breached for `forSeconds`: `firing`; pending and no longer breached: `cleared`
 *   (it never fired, so nobody is told);
 * - firing and `clear` (past the threshold by the hysteresis): `resolved`; firing otherwise:
 *   `observed` (the value is refreshed; inside the hysteresis band it keeps firing);
 * - an open alert whose rule is gone or disabled: `resolved` (firing) or `cleared` (pending).
 *
 * @example
 * const changes = evaluateAlerts({ now, rules, buckets, registered, open });
 * changes.filter((c) => c.type === 'firing') // the alerts to notify
 */
export function evaluateAlerts(input: AlertInput): AlertChange[] {
  const observations = observe(input);
  const openByFingerprint = new Map(input.open.map((a) => [`${a.ruleId}\u0000${a.fingerprint}`, a]));
  const changes: AlertChange[] = [];
  const touched = new Set<string>();
  const rules = new Map(input.rules.filter((r) => r.enabled).map((r) => [r.id, r]));
  for (const o of observations) {
    const key = `${o.ruleId}\u0000${o.fingerprint}`;
    touched.add(key);
    const open = openByFingerprint.get(key);
    const forMs = (rules.get(o.ruleId)?.forSeconds ?? 0) * 1_000;
    const change = step(open, o, forMs, input.now);
    if (change) changes.push(change);
  }
  for (const [key, alert] of openByFingerprint) {
    if (touched.has(key) || rules.has(alert.ruleId)) continue;
    changes.push(alert.state === 'firing' ? { type: 'resolved', alertId: alert.id, observation: null } : { type: 'cleared', alertId: alert.id });
  }
  return changes;
}

/** One alert's step; `undefined` when nothing changes. */
function step(open: OpenAlert | undefined, o: Observation, forMs: number, now: Date): AlertChange | undefined {
  if (open === undefined) {
    if (!o.breached) return undefined;
    return forMs === 0 ? { type: 'firing', alertId: null, activeAt: now, observation: o } : { type: 'pending', observation: o };
  }
  if (open.state === 'pending') {
    if (!o.breached) return { type: 'cleared', alertId: open.id };
    if (now.getTime() - open.activeAt.getTime() >= forMs) return { type: 'firing', alertId: open.id, activeAt: open.activeAt, observation: o };
    return { type: 'observed', alertId: open.id, observation: o };
  }
  if (o.clear) return { type: 'resolved', alertId: open.id, observation: o };
  return { type: 'observed', alertId: open.id, observation: o };
}
