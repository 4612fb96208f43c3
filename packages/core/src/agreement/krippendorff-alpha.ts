/**
 * Krippendorff's alpha (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability"): the
 * agreement coefficient that takes any number of raters, missing ratings, and a metric suited to
 * the data: α = 1 − D_o / D_e, observed over expected disagreement, both read from the
 * coincidence matrix of values paired within units. Units with fewer than two ratings are not
 * pairable and do not count.
 *
 * The nominal and ordinal forms keep the coincidence matrix as totals; the interval form needs
 * only sums of values and squares (the squared-difference metric factorises), so continuous
 * scores with thousands of distinct values stay cheap to bootstrap.
 *
 * @module
 */
import { categoriesOf, indexOfCategories, unitCounts, type MaybeCategory } from './categories.js';
import { evaluate, summedStatistic, type SummedStatistic, type UnitRow } from './summed-statistic.js';

/** The metric of the data: nominal labels, ordered ranks, or interval numbers. */
export type AlphaLevel = 'nominal' | 'ordinal' | 'interval';

/**
 * Krippendorff's alpha as a bootstrappable statistic over units (each unit: its ratings, missing
 * as null/undefined). Ordinal and interval levels need numbers.
 */
export function krippendorffAlphaStatistic(units: readonly (readonly MaybeCategory[])[], level: AlphaLevel): SummedStatistic {
  return level === 'interval' ? intervalAlpha(units) : coincidenceAlpha(units, level);
}

/**
 * Krippendorff's alpha of units × ratings (missing as null/undefined); null when undefined
 * (fewer than two pairable values, or no variation at all).
 *
 * @example
 * // Krippendorff (2011): 4 observers, 12 units, missing values → nominal 0.743, interval 0.849
 * krippendorffAlpha(units, 'nominal') // ≈ 0.743
 */
export function krippendorffAlpha(units: readonly (readonly MaybeCategory[])[], level: AlphaLevel): number | null {
  return evaluate(krippendorffAlphaStatistic(units, level));
}

function coincidenceAlpha(units: readonly (readonly MaybeCategory[])[], level: 'nominal' | 'ordinal'): SummedStatistic {
  const values = categoriesOf(units.flat());
  if (level === 'ordinal') for (const value of values) if (typeof value !== 'number') throw new RangeError(`ordinal alpha needs numbers, got ${JSON.stringify(value)}`);
  const index = indexOfCategories(values);
  const k = values.length;
  const rows = units.map((ratings): UnitRow => {
    const { counts, m } = unitCounts(ratings, index);
    if (m < 2) return [];
    const row: [number, number][] = [];
    for (const [c, nc] of counts) {
      for (const [d, nd] of counts) row.push([c * k + d, (c === d ? nc * (nc - 1) : nc * nd) / (m - 1)]);
    }
    return row;
  });
  // Reused by every resample: the marginals and the metric (nominal fixed; ordinal rebuilt).
  const marginals = new Float64Array(k);
  const delta = level === 'nominal' ? nominalDelta(k) : new Float64Array(k * k);
  return summedStatistic(Math.max(1, k * k), rows, (coincidences) => {
    marginals.fill(0);
    let n = 0;
    for (let c = 0; c < k; c += 1) {
      for (let d = 0; d < k; d += 1) marginals[c]! += coincidences[c * k + d]!;
      n += marginals[c]!;
    }
    if (n <= 1) return null;
    if (level === 'ordinal') ordinalDelta(marginals, delta);
    let observed = 0;
    let expected = 0;
    for (let c = 0; c < k; c += 1) {
      for (let d = 0; d < k; d += 1) {
        const weight = delta[c * k + d]!;
        if (weight === 0) continue;
        observed += coincidences[c * k + d]! * weight;
        expected += marginals[c]! * marginals[d]! * weight;
      }
    }
    if (expected === 0) return null;
    return 1 - ((n - 1) * observed) / expected;
  });
}

function nominalDelta(k: number): Float64Array {
  const delta = new Float64Array(k * k).fill(1);
  for (let c = 0; c < k; c += 1) delta[c * k + c] = 0;
  return delta;
}

// Krippendorff's ordinal metric: the squared number of values ranked between c and d, counting
// the two ends by half; it depends on the marginals, so it is rebuilt for every resample.
function ordinalDelta(marginals: Float64Array, delta: Float64Array): void {
  const k = marginals.length;
  for (let c = 0; c < k; c += 1) {
    let between = 0;
    for (let d = c; d < k; d += 1) {
      between += marginals[d]!;
      const distance = between - (marginals[c]! + marginals[d]!) / 2;
      delta[c * k + d] = distance * distance;
      delta[d * k + c] = distance * distance;
    }
  }
}

// Interval metric δ = (a − b)²: within-unit disagreement is Σ_{i≠j} (v_i − v_j)² / (m − 1)
// = 2 (m Σv² − (Σv)²) / (m − 1), and the expected side over all n pairable values is
// 2 (n Σv² − (Σv)²). Totals: [n, Σv, Σv², Σ within-unit disagreement]. Values are centred first so
// the sums of squares do not lose precision.
function intervalAlpha(units: readonly (readonly MaybeCategory[])[]): SummedStatistic {
  let sum = 0;
  let count = 0;
  for (const ratings of units) {
    for (const rating of ratings) {
      if (rating === null || rating === undefined) continue;
      if (typeof rating !== 'number' || !Number.isFinite(rating)) throw new RangeError(`interval alpha needs finite numbers, got ${JSON.stringify(rating)}`);
      sum += rating;
      count += 1;
    }
  }
  const centre = count > 0 ? sum / count : 0;
  const rows = units.map((ratings): UnitRow => {
    let m = 0;
    let s = 0;
    let q = 0;
    for (const rating of ratings) {
      if (rating === null || rating === undefined) continue;
      const v = (rating as number) - centre;
      m += 1;
      s += v;
      q += v * v;
    }
    if (m < 2) return [];
    return [
      [0, m],
      [1, s],
      [2, q],
      [3, (2 * (m * q - s * s)) / (m - 1)],
    ];
  });
  return summedStatistic(4, rows, (totals) => {
    const n = totals[0]!;
    if (n <= 1) return null;
    const expected = 2 * (n * totals[2]! - totals[1]! * totals[1]!);
    if (!(expected > 1e-12 * Math.max(1, n * totals[2]!))) return null;
    return 1 - ((n - 1) * totals[3]!) / expected;
  });
}
