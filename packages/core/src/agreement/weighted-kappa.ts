/**
 * Weighted kappa (Cohen 1968) for ordinal ratings: disagreements count by how far apart the two
 * ratings are, κ_w = 1 − Σ w·observed / Σ w·expected. With quadratic weights w = (x − y)² it
 * equals the intraclass correlation of the two raters (Fleiss & Cohen 1973), which is why it is
 * the usual figure for 1–5 ratings. Distances are taken between the rating values themselves,
 * so a 1 against a 5 weighs 16 even when no 2–4 was used.
 *
 * @module
 */
import { categoriesOf, categoryIndex, indexOfCategories } from './categories.js';
import type { RatingPair } from './cohen-kappa.js';
import { evaluate, summedStatistic, type SummedStatistic } from './summed-statistic.js';

/** How a disagreement of size d weighs: quadratic d², linear |d|. */
export type KappaWeights = 'quadratic' | 'linear';

/**
 * Weighted kappa as a bootstrappable statistic (null entries do not count); totals are the
 * contingency table over the distinct rating values.
 */
export function weightedKappaStatistic(pairs: readonly (RatingPair<number> | null)[], weights: KappaWeights = 'quadratic'): SummedStatistic {
  const values = categoriesOf(pairs.flatMap((pair) => (pair ? [pair[0], pair[1]] : []))) as number[];
  for (const value of values) if (!Number.isFinite(value)) throw new RangeError(`ratings must be finite numbers, got ${value}`);
  const index = indexOfCategories(values);
  const k = values.length;
  const weight = new Float64Array(k * k);
  for (let i = 0; i < k; i += 1) {
    for (let j = 0; j < k; j += 1) {
      const d = Math.abs(values[i]! - values[j]!);
      weight[i * k + j] = weights === 'quadratic' ? d * d : d;
    }
  }
  const rows = pairs.map((pair) => (pair ? [[categoryIndex(index, pair[0]) * k + categoryIndex(index, pair[1]), 1] as const] : []));
  const rowSums = new Float64Array(k);
  const columnSums = new Float64Array(k);
  return summedStatistic(Math.max(1, k * k), rows, (table) => {
    let n = 0;
    rowSums.fill(0);
    columnSums.fill(0);
    let observed = 0;
    for (let i = 0; i < k; i += 1) {
      for (let j = 0; j < k; j += 1) {
        const count = table[i * k + j]!;
        n += count;
        rowSums[i]! += count;
        columnSums[j]! += count;
        observed += weight[i * k + j]! * count;
      }
    }
    if (n === 0) return null;
    let expected = 0;
    for (let i = 0; i < k; i += 1) for (let j = 0; j < k; j += 1) expected += (weight[i * k + j]! * rowSums[i]! * columnSums[j]!) / n;
    return expected > 0 ? 1 - observed / expected : null;
  });
}

/**
 * Weighted kappa of two raters' numeric ratings (quadratic weights by default).
 *
 * @example
 * weightedKappa([[1, 1], [2, 3], [5, 4], [3, 3]]) // ≈ 0.88
 */
export function weightedKappa(pairs: readonly RatingPair<number>[], weights: KappaWeights = 'quadratic'): number | null {
  return evaluate(weightedKappaStatistic(pairs, weights));
}
