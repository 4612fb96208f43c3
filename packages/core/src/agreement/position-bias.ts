/**
 * Position bias in pairwise review: the share of decided comparisons won by whichever response
 * was shown first. Without bias it is 0.5 (the order is randomised per item and reviewer); an
 * interval that excludes 0.5 says the reviewers favour a position. Ties say nothing about
 * position and are left out.
 *
 * @module
 */
import { wilsonInterval } from '../stats/wilson.js';

/** The share of first-position wins with its Wilson interval. */
export interface PositionBias {
  /** First-position wins / decided comparisons; null with none. */
  share: number | null;
  low: number | null;
  high: number | null;
  /** Decided comparisons (ties excluded). */
  n: number;
  firstWins: number;
}

/**
 * The share of first-position wins among decided comparisons (`true`: the first shown won,
 * `false`: the second, `null`/`undefined`: a tie or unknown order), with a 95 % Wilson interval.
 *
 * @example
 * positionBias([true, true, false, null]) // share 2/3 over n = 3
 */
export function positionBias(outcomes: Iterable<boolean | null | undefined>): PositionBias {
  let n = 0;
  let firstWins = 0;
  for (const outcome of outcomes) {
    if (outcome === null || outcome === undefined) continue;
    n += 1;
    if (outcome) firstWins += 1;
  }
  const interval = wilsonInterval(firstWins, n);
  return { share: interval.rate, low: interval.lower, high: interval.upper, n, firstWins };
}
