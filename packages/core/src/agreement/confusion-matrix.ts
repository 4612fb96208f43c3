/**
 * The confusion matrix of two label sources (a judge against the humans, one reviewer against
 * another): how often each pair of labels occurred. It is what a team reads to see which way a
 * judge errs, where a single kappa only says how much.
 *
 * @module
 */
import { categoriesOf, categoryIndex, indexOfCategories, type Category } from './categories.js';
import type { RatingPair } from './cohen-kappa.js';

/** Counts of label pairs: `counts[row][column]`, row = the first label of each pair. */
export interface ConfusionMatrix {
  /** The labels, in the order of rows and columns. */
  labels: Category[];
  counts: number[][];
  /** Pairs counted. */
  n: number;
}

/**
 * Counts each [first, second] label pair; `labels` fixes the order (default: every label seen,
 * numbers ascending then strings).
 *
 * @example
 * confusionMatrix([['positive', 'positive'], ['positive', 'negative']])
 * // { labels: ['negative', 'positive'], counts: [[0, 0], [1, 1]], n: 2 }
 */
export function confusionMatrix(pairs: readonly RatingPair[], labels?: readonly Category[]): ConfusionMatrix {
  const order = labels ? [...labels] : categoriesOf(pairs.flatMap((pair) => [pair[0], pair[1]]));
  const index = indexOfCategories(order);
  const counts = order.map(() => order.map(() => 0));
  for (const [first, second] of pairs) counts[categoryIndex(index, first)]![categoryIndex(index, second)]! += 1;
  return { labels: order, counts, n: pairs.length };
}
