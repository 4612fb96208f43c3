/**
 * Treatment against control as GrowthBook's frequentist engine computes it, with its defaults
 * (relative difference, two-sided, alpha 0.05). Sources, growthbook/growthbook packages/stats:
 *
 * - gbstats/utils.py `frequentist_diff`, `frequentist_variance`, `variance_of_ratios`: the relative
 *   lift (mean_b − mean_a) / mean_a and its delta-method variance
 *   var_b/(n_b·mean_a²) + var_a·mean_b²/(n_a·mean_a⁴);
 * - gbstats/models/tests.py `EffectMoments.dof`: Welch–Satterthwaite degrees of freedom, and the
 *   uninformative result when a variance is zero or the control's mean is 0;
 * - gbstats/frequentist/tests.py `TwoSidedTTest`: p = 2(1 − T_dof(|lift| / se)) and the
 *   interval lift ± t_{1−α/2, dof}·se;
 * - gbstats/frequentist/tests.py `SequentialTwoSidedTTest`: the always-valid confidence sequence of
 *   Waudby-Smith et al. 2023 (arXiv 2103.06476v7, eq. 9 and the tuning of eq. 161) with
 *   `sequential_tuning_parameter` 5000 (GrowthBook's default), and its always-valid p-value
 *   (eq. 155: 1 / e-value, capped at 1).
 *
 * All figures here are fractions (0.05 = +5 %); the API turns lifts into percentages.
 *
 * @module
 */
import { studentTCdf, studentTQuantile } from './distributions.js';
import { statisticMean, statisticVariance, type SampleStatistic } from './sample-statistic.js';

/** GrowthBook's default significance level. */
export const DEFAULT_ALPHA = 0.05;
/** GrowthBook's default `sequential_tuning_parameter` (the sample size where the sequence is tightest). */
export const DEFAULT_SEQUENTIAL_TUNING = 5000;

/** The relative lift of treatment over control and its delta-method standard error. */
export interface EffectMoments {
  /** (mean_b − mean_a) / mean_a. */
  lift: number;
  standardError: number;
  /** Welch–Satterthwaite degrees of freedom. */
  dof: number;
}

/** A frequentist comparison: the lift, its interval and p-value. */
export interface FrequentistResult {
  lift: number;
  standardError: number;
  ci: [number, number];
  pValue: number;
}

/**
 * The lift's moments, or `undefined` where GrowthBook returns its uninformative default: a
 * variant with a zero variance, or a control mean of 0 (a relative lift is undefined).
 *
 * @example
 * effectMoments({ kind: 'proportion', n: 28, sum: 14 }, { kind: 'proportion', n: 30, sum: 16 })
 * // { lift: 0.0667, standardError: 0.2717, dof: 55.7 } (rounded)
 */
export function effectMoments(control: SampleStatistic, treatment: SampleStatistic): EffectMoments | undefined {
  const meanA = statisticMean(control);
  const meanB = statisticMean(treatment);
  const varA = statisticVariance(control);
  const varB = statisticVariance(treatment);
  if (!(varA > 0) || !(varB > 0) || meanA === 0 || control.n < 2 || treatment.n < 2) return undefined;
  const variance = varB / treatment.n / meanA ** 2 + ((varA / control.n) * meanB ** 2) / meanA ** 4;
  const dof =
    (varB / treatment.n + varA / control.n) ** 2 /
    (varB ** 2 / (treatment.n ** 2 * (treatment.n - 1)) + varA ** 2 / (control.n ** 2 * (control.n - 1)));
  return { lift: (meanB - meanA) / meanA, standardError: Math.sqrt(variance), dof };
}

/**
 * The fixed-horizon test: Welch's two-sided t-test on the relative lift (GrowthBook `TwoSidedTTest`).
 *
 * @example
 * welchTTest({ lift: 0.70732, standardError: 0.37879, dof: 5000 }).pValue // ≈ 0.0619
 */
export function welchTTest(moments: EffectMoments, alpha = DEFAULT_ALPHA): FrequentistResult {
  const { lift, standardError, dof } = moments;
  const pValue = 2 * (1 - studentTCdf(Math.abs(lift / standardError), dof));
  const width = studentTQuantile(1 - alpha / 2, dof) * standardError;
  return { lift, standardError, ci: [lift - width, lift + width], pValue };
}

/**
 * The sequential test: an always-valid confidence sequence and p-value, valid however often one
 * looks (GrowthBook `SequentialTwoSidedTTest`). `n` is both variants' units together.
 *
 * @example
 * sequentialTTest(moments, 6461).ci // wider than welchTTest(moments).ci
 */
export function sequentialTTest(moments: EffectMoments, n: number, tuning = DEFAULT_SEQUENTIAL_TUNING, alpha = DEFAULT_ALPHA): FrequentistResult {
  const { lift, standardError } = moments;
  // eq. 161: the mixing parameter that makes the sequence tightest near n = tuning.
  const rho = Math.sqrt((-2 * Math.log(alpha) + Math.log(-2 * Math.log(alpha) + 1)) / tuning);
  const nRho2 = n * rho ** 2;
  // eq. 9 with the per-observation variance se²·n, as gbstats passes it.
  const s2 = standardError ** 2 * n;
  const width = Math.sqrt(s2) * Math.sqrt((2 * (nRho2 + 1) * Math.log(Math.sqrt(nRho2 + 1) / alpha)) / (n * rho) ** 2);
  // eq. 155, reparameterized as in gbstats: the e-value of the mixture martingale.
  const st2 = (lift ** 2 * n) / standardError ** 2;
  const evalue = Math.exp((rho ** 2 * st2) / (2 * (nRho2 + 1))) / Math.sqrt(nRho2 + 1);
  return { lift, standardError, ci: [lift - width, lift + width], pValue: Math.min(1, 1 / evalue) };
}
