/**
 * Cohen's kappa (Cohen 1960): agreement of two raters on nominal labels, corrected for the
 * agreement their own label frequencies would give by chance:
 * κ = (p_o − p_e) / (1 − p_e), with p_o the observed share of agreement and p_e the sum over
 * categories of the product of the two raters' marginal shares.
 *
 * @module
 */
import { categoriesOf, categoryIndex, indexOfCategories, type Category } from './categories.js';
import { evaluate, summedStatistic, type SummedStatistic } from './summed-statistic.js';

/** One unit rated by both raters: [first rater's label, second rater's label]; null: not both. */
export type RatingPair<T extends Category = Category> = readonly [T, T];

/**
 * Cohen's kappa as a bootstrappable statistic over units (null entries do not count). Totals are
 * the k × k contingency table, row = first rater.
 */
export function cohenKappaStatistic(pairs: readonly (RatingPair | null)[], categories?: readonly Category[]): SummedStatistic {
  const labels = categories ?? categoriesOf(pairs.flatMap((pair) => (pair ? [pair[0], pair[1]] : [])));
  const index = indexOfCategories(labels);
  const k = labels.length;
  const rows = pairs.map((pair) => (pair ? [[categoryIndex(index, pair[0]) * k + categoryIndex(index, pair[1]), 1] as const] : []));
  // Scratch for the marginals, reused by every resample (finish runs a thousand times).
  const scratch = new Float64Array(2 * k);
  return summedStatistic(Math.max(1, k * k), rows, (table) => kappaOfTable(table, k, scratch));
}

/**
 * Cohen's kappa of a k × k contingency table given flat (row-major, row = first rater); null
 * with no units or when chance agreement is already 1 (both raters used one and the same label).
 * `scratch` (2k slots) saves allocations when called per resample.
 */
export function kappaOfTable(table: Float64Array | readonly number[], k: number, scratch = new Float64Array(2 * k)): number | null {
  let n = 0;
  let agreeing = 0;
  scratch.fill(0);
  const rowSums = scratch.subarray(0, k);
  const columnSums = scratch.subarray(k, 2 * k);
  for (let i = 0; i < k; i += 1) {
    for (let j = 0; j < k; j += 1) {
      const count = table[i * k + j]!;
      n += count;
      rowSums[i]! += count;
      columnSums[j]! += count;
      if (i === j) agreeing += count;
    }
  }
  if (n === 0) return null;
  let chance = 0;
  for (let i = 0; i < k; i += 1) chance += (rowSums[i]! / n) * (columnSums[i]! / n);
  if (chance >= 1 - 1e-12) return null;
  return (agreeing / n - chance) / (1 - chance);
}

/**
 * Cohen's kappa of two raters over the units both rated.
 *
 * @example
 * // 50 proposals: both yes 20, A yes/B no 5, A no/B yes 10, both no 15 → p_o 0.7, p_e 0.5
 * cohenKappa(pairs) // 0.4
 */
export function cohenKappa(pairs: readonly RatingPair[]): number | null {
  return evaluate(cohenKappaStatistic(pairs));
}
