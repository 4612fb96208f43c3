/**
 * An experiment's read: per-variant figures and each treatment against the control, from the
 * variants' sufficient statistics alone (the store computes them with one bounded query).
 *
 * Units: rates, lifts and their intervals are percentages (lift may be negative); p-values and
 * chance to win are probabilities 0–1; risk is an expected loss relative to the control's mean,
 * as a fraction (GrowthBook's relative risk: 0.01 = 1 % of the control's metric).
 *
 * The verdict reads the sequential (always-valid) interval, so looking every day does not
 * inflate false positives: a treatment is better or worse only when that interval excludes 0.
 *
 * @module
 */
import type { ExperimentDefinition, ExperimentMetric } from '../experiment-definition.js';
import { bayesianEffectTest } from './bayesian-effect.js';
import { emptyFactTotals } from './experiment-facts.js';
import { effectMoments, sequentialTTest, welchTTest } from './relative-lift.js';
import { sampleRatioMismatch } from './sample-ratio.js';
import { statisticMean, type SampleStatistic } from './sample-statistic.js';
import { wilsonInterval } from './wilson.js';

/** What the store sums per variant. */
export interface VariantTotals {
  variant: string;
  /** Responses registered with the variant. */
  responses: number;
  /** Responses with at least one counted rating. */
  rated: number;
  /** Rated responses with more positive than negative counted ratings. */
  positive: number;
  /** Responses with at least one counted correction. */
  corrected: number;
  /** Corrections and edits with an edit distance, and the distances' sum (percent of characters). */
  edits: number;
  editDistanceSum: number;
  /** Responses with a composite score, and the scores' sum and sum of squares (scores in [−1, 1]). */
  scored: number;
  scoreSum: number;
  scoreSumSquares: number;
}

/** The words of a verdict. */
export const VERDICTS = [
  'treatment is better',
  'treatment is worse',
  'no detectable difference yet',
  'not enough data',
  'sample ratio mismatch: results unreliable',
] as const;
/** One of {@link VERDICTS}. */
export type Verdict = (typeof VERDICTS)[number];

/** A percentage with its interval (null without data). */
export interface PercentInterval {
  rate: number | null;
  lower: number | null;
  upper: number | null;
}

/** One variant's figures. */
export interface VariantSummary {
  variant: string;
  isControl: boolean;
  responses: number;
  rated: number;
  positive: number;
  /** positive / rated, percent, with its 95 % Wilson interval. */
  satisfaction: PercentInterval;
  /** corrected / responses, percent. */
  correctionRate: number | null;
  /** Mean edit distance of corrections and edits, percent of characters. */
  averageEditDistance: number | null;
  /** Mean composite score in [−1, 1]. */
  compositeScore: number | null;
  /** Expected traffic share, percent. */
  expectedShare: number;
}

/** A treatment against the control on the deciding metric. */
export interface Comparison {
  variant: string;
  metric: ExperimentMetric;
  /** Units in the metric, control then treatment. */
  units: { control: number; treatment: number };
  /** Relative lift, percent; null when it cannot be computed (no variance, control mean 0, too few units). */
  lift: number | null;
  /** Fixed-horizon Welch t-test: 95 % interval of the lift (percent) and p-value. */
  fixedHorizon: { ci: [number, number]; pValue: number } | null;
  /** Sequential test: always-valid 95 % interval (percent) and p-value. */
  sequential: { ci: [number, number]; pValue: number } | null;
  /** Bayesian: chance to win (0–1), risk (relative, fraction), 95 % credible interval (percent). */
  bayesian: { chanceToWin: number; risk: { control: number; treatment: number }; ci: [number, number] } | null;
  verdict: Verdict;
}

/** The whole read. */
export interface ExperimentAnalysis {
  control: string;
  metric: ExperimentMetric;
  minSample: number;
  /** Chi-square of the observed responses per variant against the expected shares. */
  sampleRatio: { chiSquare: number; pValue: number; mismatch: boolean };
  variants: VariantSummary[];
  comparisons: Comparison[];
  /** The experiment's verdict: SRM first, then any better, any worse, no difference, not enough data. */
  verdict: Verdict;
}

const percent = (x: number | null): number | null => (x === null ? null : x * 100);
const ratio = (a: number, b: number): number | null => (b > 0 ? a / b : null);

/**
 * The deciding metric's sufficient statistics of one variant. The composite score is shifted to
 * (score + 1) / 2 in [0, 1], so its relative lift is taken against a positive baseline.
 */
export function metricStatistic(totals: VariantTotals, metric: ExperimentMetric): SampleStatistic {
  switch (metric) {
    case 'satisfaction':
      return { kind: 'proportion', n: totals.rated, sum: totals.positive };
    case 'correction_rate':
      return { kind: 'proportion', n: totals.responses, sum: totals.corrected };
    case 'composite_score':
      return {
        kind: 'mean',
        n: totals.scored,
        sum: (totals.scoreSum + totals.scored) / 2,
        sumSquares: (totals.scoreSumSquares + 2 * totals.scoreSum + totals.scored) / 4,
      };
  }
}

function summarize(totals: VariantTotals, control: string, share: number): VariantSummary {
  const wilson = wilsonInterval(totals.positive, totals.rated);
  return {
    variant: totals.variant,
    isControl: totals.variant === control,
    responses: totals.responses,
    rated: totals.rated,
    positive: totals.positive,
    satisfaction: { rate: percent(wilson.rate), lower: percent(wilson.lower), upper: percent(wilson.upper) },
    correctionRate: percent(ratio(totals.corrected, totals.responses)),
    averageEditDistance: ratio(totals.editDistanceSum, totals.edits),
    compositeScore: ratio(totals.scoreSum, totals.scored),
    expectedShare: share * 100,
  };
}

const toPercent = (ci: [number, number]): [number, number] => [ci[0] * 100, ci[1] * 100];

function compare(control: VariantTotals, treatment: VariantTotals, definition: ExperimentDefinition, srm: boolean): Comparison {
  const { metric, minSample } = definition;
  const a = metricStatistic(control, metric);
  const b = metricStatistic(treatment, metric);
  const base = { variant: treatment.variant, metric, units: { control: a.n, treatment: b.n } };
  const moments = effectMoments(a, b);
  const empty = { ...base, lift: null, fixedHorizon: null, sequential: null, bayesian: null };
  if (a.n < minSample || b.n < minSample) return { ...empty, verdict: srm ? 'sample ratio mismatch: results unreliable' : 'not enough data' };
  if (!moments) {
    // Same means with no spread (e.g. both 100 %) is no difference; a control mean of 0 cannot carry a relative lift.
    return { ...empty, verdict: srm ? 'sample ratio mismatch: results unreliable' : 'no detectable difference yet' };
  }
  const inverse = metric === 'correction_rate';
  const fixed = welchTTest(moments);
  const sequential = sequentialTTest(moments, a.n + b.n);
  const bayes = bayesianEffectTest(moments, { inverse });
  let verdict: Verdict = 'no detectable difference yet';
  if (srm) verdict = 'sample ratio mismatch: results unreliable';
  else if (sequential.ci[0] > 0) verdict = inverse ? 'treatment is worse' : 'treatment is better';
  else if (sequential.ci[1] < 0) verdict = inverse ? 'treatment is better' : 'treatment is worse';
  return {
    ...base,
    lift: moments.lift * 100,
    fixedHorizon: { ci: toPercent(fixed.ci), pValue: fixed.pValue },
    sequential: { ci: toPercent(sequential.ci), pValue: sequential.pValue },
    bayesian: { chanceToWin: bayes.chanceToWin, risk: bayes.risk, ci: toPercent(bayes.ci) },
    verdict,
  };
}

/** Expected shares (fractions) for the variants, in order: declared weights, else an even split. */
function expectedShares(names: readonly string[], weights: Readonly<Record<string, number>> | undefined): number[] {
  const raw = names.map((name) => (weights ? (weights[name] ?? 0) : 1));
  const total = raw.reduce((x, y) => x + y, 0);
  return raw.map((w) => (total > 0 ? w / total : 0));
}

function overall(comparisons: readonly Comparison[], srm: boolean): Verdict {
  if (srm) return 'sample ratio mismatch: results unreliable';
  const verdicts = new Set(comparisons.map((c) => c.verdict));
  for (const v of ['treatment is better', 'treatment is worse', 'no detectable difference yet'] as const) if (verdicts.has(v)) return v;
  return 'not enough data';
}

/**
 * Analyses an experiment. The variants are those seen plus those the weights declare (with zero
 * totals), the control first; the control is added even when it has no responses, so its
 * absence reads as "not enough data" rather than silently comparing two treatments.
 *
 * @example
 * analyzeExperiment([controlTotals, treatmentTotals], defaultExperimentDefinition()).verdict // 'treatment is better'
 */
export function analyzeExperiment(seen: readonly VariantTotals[], definition: ExperimentDefinition): ExperimentAnalysis {
  const byName = new Map(seen.map((t) => [t.variant, t]));
  const names = new Set([definition.control, ...Object.keys(definition.weights ?? {}), ...byName.keys()]);
  const ordered = [definition.control, ...[...names].filter((n) => n !== definition.control).sort()];
  const totals = ordered.map((variant) => byName.get(variant) ?? emptyTotals(variant));
  const shares = expectedShares(ordered, definition.weights);
  const srm = sampleRatioMismatch(
    totals.map((t) => t.responses),
    shares,
  );
  const [control, ...treatments] = totals as [VariantTotals, ...VariantTotals[]];
  const comparisons = treatments.map((t) => compare(control, t, definition, srm.mismatch));
  return {
    control: definition.control,
    metric: definition.metric,
    minSample: definition.minSample,
    sampleRatio: srm,
    variants: totals.map((t, i) => summarize(t, definition.control, shares[i] ?? 0)),
    comparisons,
    verdict: overall(comparisons, srm.mismatch),
  };
}

/**
 * A variant with nothing yet.
 *
 * @example
 * emptyTotals('B').responses // 0
 */
export function emptyTotals(variant: string): VariantTotals {
  return { variant, responses: 0, ...emptyFactTotals() };
}
