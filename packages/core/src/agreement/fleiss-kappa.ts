/**
 * Fleiss' kappa (Fleiss 1971): agreement of a fixed number m of raters per unit on nominal
 * labels, where the raters need not be the same people on every unit. κ = (P̄ − P̄_e) / (1 − P̄_e),
 * with P̄ the mean share of agreeing rater pairs per unit and P̄_e the sum of squared overall
 * category shares. It needs the same m on every unit; callers pick the units with that m.
 *
 * @module
 */
import { evaluate, summedStatistic, type SummedStatistic, type UnitRow } from './summed-statistic.js';

/**
 * Fleiss' kappa as a bootstrappable statistic. Each unit is its count of ratings per category (a
 * row of the subjects × categories table), or null when the unit does not count. Totals:
 * [Σ P_i, units, Σ n_i1, …, Σ n_ik].
 */
export function fleissKappaStatistic(units: readonly (readonly number[] | null)[], raters: number, categories: number): SummedStatistic {
  if (!Number.isInteger(raters) || raters < 2) throw new RangeError(`raters must be an integer of at least 2, got ${raters}`);
  const rows = units.map((counts, unit): UnitRow => {
    if (!counts) return [];
    if (counts.length !== categories) throw new RangeError(`unit ${unit} has ${counts.length} category counts, expected ${categories}`);
    let m = 0;
    let agreeing = 0;
    const row: [number, number][] = [];
    counts.forEach((count, category) => {
      if (!Number.isInteger(count) || count < 0) throw new RangeError(`unit ${unit} has an invalid count ${count}`);
      m += count;
      agreeing += count * (count - 1);
      if (count > 0) row.push([2 + category, count]);
    });
    if (m !== raters) throw new RangeError(`unit ${unit} has ${m} ratings, expected ${raters}`);
    return [[0, agreeing / (raters * (raters - 1))], [1, 1], ...row];
  });
  return summedStatistic(2 + categories, rows, (totals) => {
    const n = totals[1]!;
    if (n === 0) return null;
    const observed = totals[0]! / n;
    let chance = 0;
    for (let j = 0; j < categories; j += 1) {
      const share = totals[2 + j]! / (n * raters);
      chance += share * share;
    }
    if (chance >= 1 - 1e-12) return null;
    return (observed - chance) / (1 - chance);
  });
}

/**
 * Fleiss' kappa of a subjects × categories table of counts, every row summing to the same
 * number of raters; null when undefined (no rows, or every rating in one category).
 *
 * @example
 * // Fleiss (1971)-style table: 10 subjects, 14 raters, 5 categories (the Wikipedia example)
 * fleissKappa(table) // ≈ 0.210
 */
export function fleissKappa(table: readonly (readonly number[])[]): number | null {
  if (table.length === 0) return null;
  const raters = table[0]!.reduce((sum, count) => sum + count, 0);
  return evaluate(fleissKappaStatistic(table, raters, table[0]!.length));
}
