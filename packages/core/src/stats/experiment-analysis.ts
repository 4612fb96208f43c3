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
 * Where GrowthBook's normal approximation fails (a rate at 0 % or 100 %, a control at 0, an
 * expected count below 5) the verdict reads Fisher's exact test instead, and a score whose
 * relative lift is undefined reads Welch's test on the absolute difference (issue 24): a real
 * difference is never left without a verdict. Below `minSample` every figure is still computed,
 * marked `preliminary`, and the verdict is `not enough data`.
 *
 * @module
 */
import type { ExperimentDefinition, ExperimentMetric } from '../experiment-definition.js';
import { bayesianEffectTest } from './bayesian-effect.js';
import { emptyFactTotals } from './experiment-facts.js';
import { studentTCdf, studentTQuantile } from './distributions.js';
import { fisherExactTest, normalApproximationFails, proportionDifferenceInterval } from './fisher-exact.js';
import { DEFAULT_ALPHA, effectMoments, sequentialTTest, welchTTest } from './relative-lift.js';
import { sampleRatioMismatch } from './sample-ratio.js';
import { statisticMean, statisticVariance, type SampleStatistic } from './sample-statistic.js';
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
  /**
   * Treatment minus control: percentage points for `satisfaction` and `correction_rate`, score
   * units ([−2, 2]) for `composite_score`; defined whenever both variants have units, also where
   * the relative lift is not. Null without units.
   */
  difference: number | null;
  /** 95 % interval of `difference`: Newcombe's hybrid score interval for rates, Welch's for the score. */
  differenceCi: [number, number] | null;
  /** Fisher's exact test, where the normal approximation fails for a rate (see `fisher-exact.ts`); else null. */
  exact: { test: 'fisher'; pValue: number } | null;
  /**
   * The test the verdict reads: `sequential` (GrowthBook's always-valid interval of the lift),
   * `fisher_exact` (a rate where the normal approximation fails), `welch_difference` (a score
   * whose relative lift is undefined); null when a variant has no units.
   */
  decidedBy: 'sequential' | 'fisher_exact' | 'welch_difference' | null;
  /** Below `minSample`: the figures are shown, but the verdict is `not enough data`. */
  preliminary: boolean;
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

/** A difference of two means with its interval and p-value, in the metric's internal scale. */
interface AbsoluteDifference {
  difference: number;
  ci: [number, number];
  pValue: number;
}

/**
 * Welch's test on the absolute difference of two means: what is left to say of a mean metric
 * when GrowthBook's relative lift is undefined (a variant without spread, a control mean of 0).
 * With no spread at all, different means are certain (p = 0) and equal ones are no difference.
 */
function welchDifference(a: SampleStatistic, b: SampleStatistic): AbsoluteDifference {
  const difference = statisticMean(b) - statisticMean(a);
  const va = statisticVariance(a) / a.n;
  const vb = statisticVariance(b) / b.n;
  const se = Math.sqrt(va + vb);
  if (!(se > 0)) return { difference, ci: [difference, difference], pValue: difference === 0 ? 1 : 0 };
  const dof = (va + vb) ** 2 / ((a.n > 1 ? va ** 2 / (a.n - 1) : 0) + (b.n > 1 ? vb ** 2 / (b.n - 1) : 0));
  const width = studentTQuantile(1 - DEFAULT_ALPHA / 2, dof) * se;
  return { difference, ci: [difference - width, difference + width], pValue: 2 * (1 - studentTCdf(Math.abs(difference) / se, dof)) };
}

/** How a difference in the metric's internal scale is shown: percentage points, or score units (the composite is kept as (score + 1) / 2). */
function differenceScale(metric: ExperimentMetric): number {
  return metric === 'composite_score' ? 2 : 100;
}

function directional(difference: number, inverse: boolean): Verdict {
  if (difference === 0) return 'no detectable difference yet';
  return difference > 0 !== inverse ? 'treatment is better' : 'treatment is worse';
}

function compare(control: VariantTotals, treatment: VariantTotals, definition: ExperimentDefinition, srm: boolean): Comparison {
  const { metric, minSample } = definition;
  const a = metricStatistic(control, metric);
  const b = metricStatistic(treatment, metric);
  const inverse = metric === 'correction_rate';
  const preliminary = a.n < minSample || b.n < minSample;
  const base = { variant: treatment.variant, metric, units: { control: a.n, treatment: b.n }, preliminary };
  const waiting: Verdict = srm ? 'sample ratio mismatch: results unreliable' : preliminary ? 'not enough data' : 'no detectable difference yet';
  const none = { ...base, lift: null, difference: null, differenceCi: null, fixedHorizon: null, sequential: null, bayesian: null, exact: null, decidedBy: null };
  if (a.n < 1 || b.n < 1) return { ...none, verdict: waiting };

  // GrowthBook's figures wherever its relative lift is defined, shown below minSample too.
  const moments = effectMoments(a, b);
  const growthbook = moments
    ? (() => {
        const fixed = welchTTest(moments);
        const sequential = sequentialTTest(moments, a.n + b.n);
        const bayes = bayesianEffectTest(moments, { inverse });
        return {
          lift: moments.lift * 100,
          fixedHorizon: { ci: toPercent(fixed.ci), pValue: fixed.pValue },
          sequential: { ci: toPercent(sequential.ci), pValue: sequential.pValue },
          bayesian: { chanceToWin: bayes.chanceToWin, risk: bayes.risk, ci: toPercent(bayes.ci) },
        };
      })()
    : { lift: null, fixedHorizon: null, sequential: null, bayesian: null };

  // The absolute difference, which exists where the relative one does not.
  const scale = differenceScale(metric);
  let difference: number;
  let differenceCi: [number, number];
  let exact: Comparison['exact'] = null;
  let decidedBy: NonNullable<Comparison['decidedBy']> = 'sequential';
  let decided: Verdict = 'no detectable difference yet';
  if (a.kind === 'proportion' && b.kind === 'proportion') {
    difference = statisticMean(b) - statisticMean(a);
    differenceCi = proportionDifferenceInterval(b.sum, b.n, a.sum, a.n);
    if (!moments || normalApproximationFails(b.sum, b.n, a.sum, a.n)) {
      const pValue = fisherExactTest(b.sum, b.n - b.sum, a.sum, a.n - a.sum);
      exact = { test: 'fisher', pValue };
      decidedBy = 'fisher_exact';
      decided = pValue < DEFAULT_ALPHA ? directional(difference, inverse) : 'no detectable difference yet';
    }
  } else {
    const welch = welchDifference(a, b);
    difference = welch.difference;
    differenceCi = welch.ci;
    if (!moments) {
      decidedBy = 'welch_difference';
      decided = welch.pValue < DEFAULT_ALPHA ? directional(difference, inverse) : 'no detectable difference yet';
    }
  }
  if (decidedBy === 'sequential' && growthbook.sequential) {
    // The sequential interval holds however often one looks.
    if (growthbook.sequential.ci[0] > 0) decided = inverse ? 'treatment is worse' : 'treatment is better';
    else if (growthbook.sequential.ci[1] < 0) decided = inverse ? 'treatment is better' : 'treatment is worse';
  }
  return {
    ...base,
    ...growthbook,
    difference: difference * scale,
    differenceCi: [differenceCi[0] * scale, differenceCi[1] * scale],
    exact,
    decidedBy,
    verdict: srm || preliminary ? waiting : decided,
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
