/**
 * The probability distributions feedloop's statistics need, from stdlib (`@stdlib/stats-base-dists-*`,
 * well tested, browser-safe), behind names that say what they compute. Every statistic in
 * `stats/` reaches the distributions through this file, so one library serves them all.
 *
 * @module
 */
import chiSquareCdfOf from '@stdlib/stats-base-dists-chisquare-cdf';
import normalCdfOf from '@stdlib/stats-base-dists-normal-cdf';
import normalQuantileOf from '@stdlib/stats-base-dists-normal-quantile';
import tCdfOf from '@stdlib/stats-base-dists-t-cdf';
import tQuantileOf from '@stdlib/stats-base-dists-t-quantile';

/**
 * P(Z ≤ z) for the standard normal distribution.
 *
 * @example
 * normalCdf(1.959964) // ≈ 0.975
 */
export function normalCdf(z: number, mean = 0, sd = 1): number {
  return normalCdfOf(z, mean, sd);
}

/**
 * The z with P(Z ≤ z) = p for the normal distribution (the probit for mean 0, sd 1).
 *
 * @example
 * normalQuantile(0.975) // ≈ 1.959964
 */
export function normalQuantile(p: number, mean = 0, sd = 1): number {
  return normalQuantileOf(p, mean, sd);
}

/**
 * P(T ≤ t) for Student's t distribution with `df` degrees of freedom (`df` may be fractional, as
 * Welch's test gives).
 *
 * @example
 * studentTCdf(2.228139, 10) // ≈ 0.975
 */
export function studentTCdf(t: number, df: number): number {
  return tCdfOf(t, df);
}

/**
 * The t with P(T ≤ t) = p for Student's t distribution with `df` degrees of freedom.
 *
 * @example
 * studentTQuantile(0.975, 10) // ≈ 2.228139
 */
export function studentTQuantile(p: number, df: number): number {
  return tQuantileOf(p, df);
}

/**
 * P(X ≤ x) for the chi-square distribution with `df` degrees of freedom.
 *
 * @example
 * 1 - chiSquareCdf(3.841459, 1) // ≈ 0.05
 */
export function chiSquareCdf(x: number, df: number): number {
  return chiSquareCdfOf(x, df);
}

/**
 * Two-sided p-value of a t statistic: P(|T| ≥ |t|).
 *
 * @example
 * twoSidedTPValue(2.228139, 10) // ≈ 0.05
 */
export function twoSidedTPValue(t: number, df: number): number {
  return 2 * (1 - studentTCdf(Math.abs(t), df));
}

/**
 * Two-sided p-value of a z statistic: P(|Z| ≥ |z|).
 *
 * @example
 * twoSidedZPValue(1.959964) // ≈ 0.05
 */
export function twoSidedZPValue(z: number): number {
  return 2 * (1 - normalCdf(Math.abs(z)));
}
