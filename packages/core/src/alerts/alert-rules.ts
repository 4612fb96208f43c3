/**
 * Quality-alert rules: their JSON shape, validation and the Phase 4.1 defaults (satisfaction below
 * 70 % warns, below 50 % is critical, an error category above 2× its baseline, plus correction and
 * escalation rates). Every rate and rate threshold is a percentage 0–100; a category spike's
 * threshold is a factor over its baseline. `docs/alerts.md` describes each field.
 *
 * @module
 */
import { z } from 'zod';

/** What a rule watches. */
export const ALERT_RULE_KINDS = ['satisfaction', 'category_spike', 'correction_rate', 'escalation_rate', 'score_mean', 'judge_agreement'] as const;
/** One of {@link ALERT_RULE_KINDS}. */
export type AlertRuleKind = (typeof ALERT_RULE_KINDS)[number];
/** Phase 4.1 severities. */
export const ALERT_SEVERITIES = ['warning', 'critical'] as const;
/** One of {@link ALERT_SEVERITIES}. */
export type AlertSeverity = (typeof ALERT_SEVERITIES)[number];

/** The rolling window of Phase 4.1, in hours. */
export const DEFAULT_WINDOW_HOURS = 24;
/** The longest rolling window: a week of hourly buckets. */
export const MAX_WINDOW_HOURS = 168;
/** Rated responses (or responses, sessions) a window needs before a rule judges it. */
export const DEFAULT_MIN_SAMPLE = 30;
/** Days before the window that make a category's baseline. */
export const DEFAULT_BASELINE_DAYS = 7;
/** The longest baseline a rule may ask for (the hourly counts are kept a little longer). */
export const MAX_BASELINE_DAYS = 14;
/**
 * Negatives naming a category in the window before a spike of it counts (a baseline of 0 would make
 * one event a spike). 10, tuned on the demo and dataset replays (docs/alerts.md, "False alarms"):
 * 5–9 negatives of a category in a day is the noise of a small workspace.
 */
export const DEFAULT_MIN_COUNT = 10;
/**
 * The one-sided binomial p-value below which a category's count is a spike: P(X ≥ count) for X ~
 * Binomial(rated in the window, the category's baseline share). 0.001, because the rule tests
 * every category every hour (some 3,600 correlated tests a month for 5 categories): at 0.01 the
 * demo's quiet weeks still spiked (docs/alerts.md, "False alarms").
 */
export const DEFAULT_SPIKE_MAX_P_VALUE = 0.001;
/** Default hysteresis of a rate rule, in percentage points. */
export const DEFAULT_RATE_HYSTERESIS = 5;
/** Default hysteresis of a score mean, in the score's own units: none (it resolves once back past the threshold). */
export const DEFAULT_SCORE_HYSTERESIS = 0;
/** The metric prefix of a score_mean rule: `score:<name>` (issue 26 §1). */
export const SCORE_METRIC_PREFIX = 'score:';
/** The metric prefix of a judge_agreement rule: `judge_agreement:<evaluator id>` (issue 28). */
export const JUDGE_AGREEMENT_METRIC_PREFIX = 'judge_agreement:';
/** What a judge_agreement rule compares with its threshold: Cohen's kappa (−1–1) or the agreement share (0–1). */
export const JUDGE_AGREEMENT_STATISTICS = ['kappa', 'agreement'] as const;
/** One of {@link JUDGE_AGREEMENT_STATISTICS}. */
export type JudgeAgreementStatistic = (typeof JUDGE_AGREEMENT_STATISTICS)[number];
/** A judge_agreement rule's window by default: the weight rule's 30 days (core's `JUDGE_WEIGHT_RULE`). */
export const DEFAULT_JUDGE_WINDOW_DAYS = 30;
/** The longest window of a judge_agreement rule. */
export const MAX_JUDGE_WINDOW_DAYS = 90;
/** Units with both labels a judge_agreement rule needs by default: the weight rule's n ≥ 50. */
export const DEFAULT_JUDGE_MIN_SAMPLE = 50;
/** Default hysteresis of a category spike, as a factor: 2× fires, 1.5× resolves. */
export const DEFAULT_SPIKE_HYSTERESIS = 0.5;
/** The longest `forSeconds`: a week. */
export const MAX_FOR_SECONDS = 7 * 86_400;
/** Rules one workspace may have. */
export const MAX_ALERT_RULES = 50;
/** The largest spike factor a rule may set. */
export const MAX_SPIKE_FACTOR = 1_000;

const PERCENT_MAX = 100;
const MAX_MIN_SAMPLE = 1_000_000;

const ruleInput = z.strictObject({
  id: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be 1-64 lowercase letters, digits, - or _, starting with a letter or digit')
    .describe('Unique in the workspace; part of every alert fingerprint of the rule'),
  kind: z.enum(ALERT_RULE_KINDS).describe('What the rule watches'),
  severity: z.enum(ALERT_SEVERITIES),
  threshold: z
    .number()
    .describe('satisfaction: fires below it (%); correction_rate, escalation_rate: fires above it (%); category_spike: fires above this factor × baseline; score_mean: the score mean, in its own units, it fires below (or above)'),
  windowHours: z.number().int().min(1).max(MAX_WINDOW_HOURS).default(DEFAULT_WINDOW_HOURS).describe('The rolling window, in hourly buckets (the current hour included)'),
  minSample: z
    .number()
    .int()
    .min(1)
    .max(MAX_MIN_SAMPLE)
    .optional()
    .describe(
      `Rated responses (satisfaction, category_spike), responses (correction_rate), sessions (escalation_rate) or units with both a judge's and a human label (judge_agreement) in the window before it is judged (default ${DEFAULT_MIN_SAMPLE}; ${DEFAULT_JUDGE_MIN_SAMPLE} for judge_agreement)`,
    ),
  forSeconds: z.number().int().min(0).max(MAX_FOR_SECONDS).default(0).describe('How long the condition must hold (pending) before the alert fires'),
  hysteresis: z
    .number()
    .min(0)
    .optional()
    .describe(`Margin past the threshold before a firing alert resolves: percentage points (default ${DEFAULT_RATE_HYSTERESIS}), or a factor for category_spike (default ${DEFAULT_SPIKE_HYSTERESIS})`),
  baselineDays: z.number().int().min(1).max(MAX_BASELINE_DAYS).optional().describe(`category_spike only: days before the window that make the baseline (default ${DEFAULT_BASELINE_DAYS})`),
  minCount: z.number().int().min(1).max(MAX_MIN_SAMPLE).optional().describe(`category_spike only: negatives naming the category in the window before it can spike (default ${DEFAULT_MIN_COUNT})`),
  maxPValue: z
    .number()
    .gt(0)
    .max(1)
    .optional()
    .describe(`category_spike only: the binomial test's p-value must be below this for a spike (default ${DEFAULT_SPIKE_MAX_P_VALUE}; 1 turns the test off)`),
  metric: z
    .string()
    .min(1)
    .max(JUDGE_AGREEMENT_METRIC_PREFIX.length + 200)
    .optional()
    .describe('score_mean: `score:<name>`, the named score whose mean the rule watches; judge_agreement: `judge_agreement:<evaluator id>`; required there, absent elsewhere'),
  statistic: z.enum(JUDGE_AGREEMENT_STATISTICS).optional().describe("judge_agreement only: `kappa` (Cohen's kappa, default) or `agreement` (share of units where judge and humans agree, 0–1)"),
  windowDays: z
    .number()
    .int()
    .min(1)
    .max(MAX_JUDGE_WINDOW_DAYS)
    .optional()
    .describe(`judge_agreement only: the calibration window, in days up to now (default ${DEFAULT_JUDGE_WINDOW_DAYS}, as the weight rule)`),
  direction: z.enum(['below', 'above']).optional().describe('score_mean only: fire when the mean is below (default) or above the threshold'),
  enabled: z.boolean().default(true),
});

/** A rule as a client writes it (defaults not yet applied). */
export type AlertRuleInput = z.input<typeof ruleInput>;

/** A rule with every default applied. */
export interface AlertRule {
  id: string;
  kind: AlertRuleKind;
  severity: AlertSeverity;
  threshold: number;
  windowHours: number;
  minSample: number;
  forSeconds: number;
  hysteresis: number;
  /** category_spike only. */
  baselineDays?: number;
  /** category_spike only. */
  minCount?: number;
  /** category_spike only: the significance level of the binomial test. */
  maxPValue?: number;
  /** score_mean: `score:<name>`; judge_agreement: `judge_agreement:<evaluator id>`. */
  metric?: string;
  /** judge_agreement only: the statistic compared with the threshold. */
  statistic?: JudgeAgreementStatistic;
  /** judge_agreement only: the calibration window in days. */
  windowDays?: number;
  /** score_mean only: which side of the threshold fires. */
  direction?: 'below' | 'above';
  enabled: boolean;
}

/** The problem with one rule, or `undefined`: ranges that depend on the kind. */
function kindProblem(rule: z.output<typeof ruleInput>): { path: string; message: string } | undefined {
  const spike = rule.kind === 'category_spike';
  const score = rule.kind === 'score_mean';
  const judge = rule.kind === 'judge_agreement';
  if (judge) return judgeProblem(rule);
  if (rule.statistic !== undefined) return { path: 'statistic', message: 'only a judge_agreement rule has a statistic' };
  if (rule.windowDays !== undefined) return { path: 'windowDays', message: 'only a judge_agreement rule has windowDays' };
  if (score !== (rule.metric !== undefined)) return { path: 'metric', message: score ? 'a score_mean rule names its score: score:<name>' : 'only a score_mean or judge_agreement rule has a metric' };
  if (score && !(rule.metric ?? '').startsWith(SCORE_METRIC_PREFIX)) return { path: 'metric', message: 'must be score:<name>' };
  if (score && (rule.metric ?? '').length === SCORE_METRIC_PREFIX.length) return { path: 'metric', message: 'must be score:<name>' };
  if (!score && rule.direction !== undefined) return { path: 'direction', message: 'only a score_mean rule has a direction' };
  if (score) return (rule.hysteresis ?? DEFAULT_SCORE_HYSTERESIS) >= 0 && Number.isFinite(rule.threshold) ? undefined : { path: 'threshold', message: 'must be a finite number' };
  if (!spike && rule.baselineDays !== undefined) return { path: 'baselineDays', message: 'only a category_spike rule has a baseline' };
  if (!spike && rule.minCount !== undefined) return { path: 'minCount', message: 'only a category_spike rule has a minCount' };
  if (!spike && rule.maxPValue !== undefined) return { path: 'maxPValue', message: 'only a category_spike rule has a maxPValue' };
  const hysteresis = rule.hysteresis ?? (spike ? DEFAULT_SPIKE_HYSTERESIS : DEFAULT_RATE_HYSTERESIS);
  if (spike) {
    if (!(rule.threshold > 1 && rule.threshold <= MAX_SPIKE_FACTOR)) return { path: 'threshold', message: `a spike factor must be above 1 and at most ${MAX_SPIKE_FACTOR}` };
    if (hysteresis >= rule.threshold) return { path: 'hysteresis', message: 'must be below the threshold (the alert resolves at threshold − hysteresis times the baseline)' };
    return undefined;
  }
  if (!(rule.threshold >= 0 && rule.threshold <= PERCENT_MAX)) return { path: 'threshold', message: 'a rate threshold is a percentage from 0 to 100' };
  // Otherwise the resolve level lies outside 0–100 and a firing alert could never resolve.
  if (rule.kind === 'satisfaction' && rule.threshold + hysteresis > PERCENT_MAX) return { path: 'hysteresis', message: 'threshold + hysteresis must be at most 100' };
  if (rule.kind !== 'satisfaction' && rule.threshold - hysteresis < 0) return { path: 'hysteresis', message: 'threshold − hysteresis must be at least 0' };
  return undefined;
}

/** An evaluator id as a metric names it (the ids the evaluators route makes, and room for older ones). */
const EVALUATOR_ID = /^[A-Za-z0-9_-]{1,200}$/;

/** A judge_agreement rule's own problems: its metric names an evaluator, its threshold fits the statistic. */
function judgeProblem(rule: z.output<typeof ruleInput>): { path: string; message: string } | undefined {
  const metric = rule.metric ?? '';
  if (!metric.startsWith(JUDGE_AGREEMENT_METRIC_PREFIX) || !EVALUATOR_ID.test(metric.slice(JUDGE_AGREEMENT_METRIC_PREFIX.length))) {
    return { path: 'metric', message: 'a judge_agreement rule names its evaluator: judge_agreement:<evaluator id>' };
  }
  if (rule.direction !== undefined) return { path: 'direction', message: 'only a score_mean rule has a direction (judge_agreement fires below its threshold)' };
  for (const field of ['baselineDays', 'minCount', 'maxPValue'] as const) {
    if (rule[field] !== undefined) return { path: field, message: `only a category_spike rule has a ${field}` };
  }
  const kappa = (rule.statistic ?? 'kappa') === 'kappa';
  const [low, high] = kappa ? [-1, 1] : [0, 1];
  if (!(rule.threshold >= low && rule.threshold <= high)) return { path: 'threshold', message: kappa ? 'a kappa threshold is from -1 to 1' : 'an agreement threshold is a share from 0 to 1' };
  if (rule.threshold + (rule.hysteresis ?? 0) > high) return { path: 'hysteresis', message: `threshold + hysteresis must be at most ${high}` };
  return undefined;
}

/**
 * The evaluator a judge_agreement rule watches, or `undefined` for any other rule.
 *
 * @example
 * judgeRuleEvaluatorId({ kind: 'judge_agreement', metric: 'judge_agreement:ev_1' }) // 'ev_1'
 */
export function judgeRuleEvaluatorId(rule: { kind: AlertRuleKind; metric?: string | undefined }): string | undefined {
  if (rule.kind !== 'judge_agreement' || rule.metric === undefined) return undefined;
  return rule.metric.slice(JUDGE_AGREEMENT_METRIC_PREFIX.length);
}

/** One rule: the fields, then the ranges that depend on its kind; defaults applied. */
export const alertRuleSchema = ruleInput
  .superRefine((rule, ctx) => {
    const problem = kindProblem(rule);
    if (problem) ctx.addIssue({ code: 'custom', path: [problem.path], message: problem.message });
  })
  .transform((rule): AlertRule => {
    const spike = rule.kind === 'category_spike';
    const { baselineDays, minCount, maxPValue, hysteresis, metric, direction, statistic, windowDays, minSample, ...rest } = rule;
    if (rule.kind === 'judge_agreement') {
      return {
        ...rest,
        minSample: minSample ?? DEFAULT_JUDGE_MIN_SAMPLE,
        hysteresis: hysteresis ?? 0,
        metric,
        statistic: statistic ?? 'kappa',
        windowDays: windowDays ?? DEFAULT_JUDGE_WINDOW_DAYS,
      };
    }
    if (rule.kind === 'score_mean') return { ...rest, minSample: minSample ?? DEFAULT_MIN_SAMPLE, hysteresis: hysteresis ?? DEFAULT_SCORE_HYSTERESIS, metric, direction: direction ?? 'below' };
    return {
      ...rest,
      minSample: minSample ?? DEFAULT_MIN_SAMPLE,
      hysteresis: hysteresis ?? (spike ? DEFAULT_SPIKE_HYSTERESIS : DEFAULT_RATE_HYSTERESIS),
      ...(spike
        ? { baselineDays: baselineDays ?? DEFAULT_BASELINE_DAYS, minCount: minCount ?? DEFAULT_MIN_COUNT, maxPValue: maxPValue ?? DEFAULT_SPIKE_MAX_P_VALUE }
        : {}),
    };
  });

/** A workspace's rule set, as `PUT /v1/alert-rules` takes it: ids unique, at most {@link MAX_ALERT_RULES}. */
export const alertRuleSetSchema = z.strictObject({
  rules: z
    .array(alertRuleSchema)
    .max(MAX_ALERT_RULES)
    .superRefine((rules, ctx) => {
      const seen = new Set<string>();
      rules.forEach((rule, i) => {
        if (seen.has(rule.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `duplicate rule id ${JSON.stringify(rule.id)}` });
        seen.add(rule.id);
      });
    }),
});

/**
 * The rules of a workspace that never set any: Phase 4.1's satisfaction levels and category
 * spike, and the Feedback-and-RLHF monitoring rates (a correction rate above 20 % or an
 * escalation rate above 10 % warns).
 *
 * @example
 * defaultAlertRules().map((r) => r.id)
 * // ['satisfaction-warning', 'satisfaction-critical', 'category-spike', 'correction-rate', 'escalation-rate']
 */
export function defaultAlertRules(): AlertRule[] {
  const base = { windowHours: DEFAULT_WINDOW_HOURS, minSample: DEFAULT_MIN_SAMPLE, forSeconds: 0, hysteresis: DEFAULT_RATE_HYSTERESIS, enabled: true };
  return [
    { ...base, id: 'satisfaction-warning', kind: 'satisfaction', severity: 'warning', threshold: 70 },
    { ...base, id: 'satisfaction-critical', kind: 'satisfaction', severity: 'critical', threshold: 50 },
    {
      ...base,
      id: 'category-spike',
      kind: 'category_spike',
      severity: 'warning',
      threshold: 2,
      hysteresis: DEFAULT_SPIKE_HYSTERESIS,
      baselineDays: DEFAULT_BASELINE_DAYS,
      minCount: DEFAULT_MIN_COUNT,
      maxPValue: DEFAULT_SPIKE_MAX_P_VALUE,
    },
    { ...base, id: 'correction-rate', kind: 'correction_rate', severity: 'warning', threshold: 20 },
    { ...base, id: 'escalation-rate', kind: 'escalation_rate', severity: 'warning', threshold: 10 },
  ];
}
