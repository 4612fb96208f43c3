/**
 * Percent agreement: the share of rater pairs on a unit that gave the same label, averaged over
 * units with at least two ratings. With two raters per unit it is the share of units both raters
 * labelled alike; with more it is Fleiss' (1971) P-bar, extended to units with differing numbers
 * of raters. It ignores chance agreement; the kappas and alpha correct for it.
 *
 * @module
 */
import { categoriesOf, indexOfCategories, unitCounts, type MaybeCategory } from './categories.js';
import { evaluate, summedStatistic, type SummedStatistic, type UnitRow } from './summed-statistic.js';

/**
 * Percent agreement as a bootstrappable statistic; units with fewer than two ratings do not count.
 * Totals: [sum of per-unit agreement, units].
 */
export function percentAgreementStatistic(units: readonly (readonly MaybeCategory[])[]): SummedStatistic {
  const index = indexOfCategories(categoriesOf(units.flat()));
  const rows = units.map((ratings): UnitRow => {
    const { counts, m } = unitCounts(ratings, index);
    if (m < 2) return [];
    let agreeing = 0;
    for (const count of counts.values()) agreeing += count * (count - 1);
    return [
      [0, agreeing / (m * (m - 1))],
      [1, 1],
    ];
  });
  return summedStatistic(2, rows, (totals) => (totals[1]! > 0 ? totals[0]! / totals[1]! : null));
}

/**
 * The share of agreeing rater pairs per unit, averaged over units with two or more ratings
 * (`null`/`undefined` is a missing rating); null when no unit has two.
 *
 * @example
 * percentAgreement([['yes', 'yes'], ['yes', 'no'], ['no', 'no', 'no'], ['yes', null]]) // 2 / 3
 */
export function percentAgreement(units: readonly (readonly MaybeCategory[])[]): number | null {
  return evaluate(percentAgreementStatistic(units));
}
