/**
 * Sample-ratio mismatch: did traffic split the way the experiment says it should? A chi-square
 * goodness-of-fit test of the observed units per variant against the expected shares, as
 * GrowthBook's `check_srm` (growthbook/growthbook packages/stats/gbstats/utils.py): variants with
 * a weight ≤ 0 add nothing to the statistic, degrees of freedom are variants − 1, and no traffic
 * at all gives p = 1. GrowthBook warns at p < 0.001, so does feedloop.
 *
 * @module
 */
import { chiSquareCdf } from './distributions.js';

/** The p-value below which the split is called a mismatch (GrowthBook's default SRM threshold). */
export const SRM_THRESHOLD = 0.001;

/** The test's outcome. */
export interface SampleRatioResult {
  chiSquare: number;
  pValue: number;
  /** pValue < {@link SRM_THRESHOLD}. */
  mismatch: boolean;
}

/**
 * Tests observed counts against expected weights (any scale: they are normalized).
 *
 * @example
 * sampleRatioMismatch([1000, 1200], [0.5, 0.5]) // { chiSquare: 18.18, pValue: 0.0000201, mismatch: true }
 */
export function sampleRatioMismatch(observed: readonly number[], weights: readonly number[]): SampleRatioResult {
  if (observed.length !== weights.length) throw new RangeError('observed and weights must have the same length');
  const total = observed.reduce((a, b) => a + b, 0);
  if (!(total > 0) || observed.length < 2) return { chiSquare: 0, pValue: 1, mismatch: false };
  const totalWeight = weights.reduce((a, b) => a + b, 0);
  let chiSquare = 0;
  observed.forEach((o, i) => {
    const w = weights[i] ?? 0;
    if (w <= 0) return;
    const expected = (w / totalWeight) * total;
    chiSquare += (o - expected) ** 2 / expected;
  });
  const pValue = 1 - chiSquareCdf(chiSquare, observed.length - 1);
  return { chiSquare, pValue, mismatch: pValue < SRM_THRESHOLD };
}
