/**
 * The Wilson score interval for a proportion: the interval feedloop puts beside every rate
 * (satisfaction, correction, …). Unlike the normal ("Wald") interval it stays inside [0, 1] and
 * is honest for small samples and rates near 0 or 1 (Wilson 1927; Agresti & Coull 1998).
 *
 * @module
 */
import { normalQuantile } from './distributions.js';

/** A proportion with its interval, all as fractions in [0, 1]. */
export interface ProportionInterval {
  /** successes / trials; null when there are no trials. */
  rate: number | null;
  lower: number | null;
  upper: number | null;
  /** The interval's confidence level, e.g. 0.95. */
  confidence: number;
}

/**
 * The Wilson score interval of `successes` out of `trials`, at `confidence` (default 0.95).
 * With no trials every figure is null: there is nothing to estimate.
 *
 * @example
 * wilsonInterval(81, 263) // { rate: 0.308, lower: 0.255, upper: 0.366, confidence: 0.95 } (rounded)
 */
export function wilsonInterval(successes: number, trials: number, confidence = 0.95): ProportionInterval {
  if (!(trials > 0)) return { rate: null, lower: null, upper: null, confidence };
  if (successes < 0 || successes > trials) throw new RangeError(`successes must be within 0..trials, got ${successes} of ${trials}`);
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const p = successes / trials;
  const z2 = z * z;
  const denominator = 1 + z2 / trials;
  const centre = (p + z2 / (2 * trials)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / denominator;
  return { rate: p, lower: Math.max(0, centre - half), upper: Math.min(1, centre + half), confidence };
}
