/**
 * The sufficient statistics of one metric in one variant, as GrowthBook's stats engine takes
 * them (growthbook/growthbook packages/stats/gbstats/models/statistics.py: `ProportionStatistic`
 * and `SampleMeanStatistic`). A variant's whole metric is three numbers, so a read never needs
 * the rows themselves.
 *
 * @module
 */

/**
 * A metric's sufficient statistics: `n` units, the `sum` of their values and, for a mean metric,
 * the `sumSquares`. A `proportion` has 0/1 values (sum = successes), so its squares are its sum.
 */
export type SampleStatistic =
  | { kind: 'proportion'; n: number; sum: number }
  | { kind: 'mean'; n: number; sum: number; sumSquares: number };

/**
 * The metric's mean: sum / n (0 without units).
 *
 * @example
 * statisticMean({ kind: 'proportion', n: 28, sum: 14 }) // 0.5
 */
export function statisticMean(stat: SampleStatistic): number {
  return stat.n > 0 ? stat.sum / stat.n : 0;
}

/**
 * The per-unit variance as gbstats computes it: p(1 − p) for a proportion (no n − 1 correction,
 * as `ProportionStatistic.variance`), the unbiased sample variance (sum of squares − sum²/n) / (n − 1)
 * for a mean (`SampleMeanStatistic.variance`; 0 below two units).
 *
 * @example
 * statisticVariance({ kind: 'mean', n: 10, sum: 100, sumSquares: 1002.25 }) // 0.25
 */
export function statisticVariance(stat: SampleStatistic): number {
  if (stat.kind === 'proportion') {
    const p = statisticMean(stat);
    return p * (1 - p);
  }
  if (stat.n <= 1) return 0;
  return (stat.sumSquares - (stat.sum * stat.sum) / stat.n) / (stat.n - 1);
}
