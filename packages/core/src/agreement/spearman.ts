/**
 * Spearman's rank correlation with tied ranks: Pearson's correlation of the two variables' ranks,
 * ties given the mean of the ranks they span (midranks). The shortcut 1 − 6Σd²/(n(n²−1)) is only
 * right without ties, and ratings are mostly ties, so it is not used.
 *
 * @module
 */
import type { RatingPair } from './cohen-kappa.js';
import { evaluate, summedStatistic, type SummedStatistic } from './summed-statistic.js';

/**
 * Spearman's rho as a bootstrappable statistic over units (null entries do not count). Totals
 * count each distinct (x, y) pair, so a resample only re-weighs those pairs and the midranks are
 * recomputed from the marginals (resampled duplicates are ties, as they should be).
 */
export function spearmanStatistic(pairs: readonly (RatingPair<number> | null)[]): SummedStatistic {
  const xs = distinctSorted(pairs.map((pair) => pair?.[0]));
  const ys = distinctSorted(pairs.map((pair) => pair?.[1]));
  const xIndex = new Map(xs.map((value, index) => [value, index]));
  const yIndex = new Map(ys.map((value, index) => [value, index]));
  const cellOf = new Map<string, number>();
  const cellX: number[] = [];
  const cellY: number[] = [];
  const rows = pairs.map((pair) => {
    if (!pair) return [];
    const x = xIndex.get(pair[0])!;
    const y = yIndex.get(pair[1])!;
    const key = `${x}:${y}`;
    let cell = cellOf.get(key);
    if (cell === undefined) {
      cell = cellX.length;
      cellOf.set(key, cell);
      cellX.push(x);
      cellY.push(y);
    }
    return [[cell, 1] as const];
  });
  const wx = new Float64Array(xs.length);
  const wy = new Float64Array(ys.length);
  const rx = new Float64Array(xs.length);
  const ry = new Float64Array(ys.length);
  return summedStatistic(Math.max(1, cellX.length), rows, (totals) => {
    wx.fill(0);
    wy.fill(0);
    let n = 0;
    for (let c = 0; c < cellX.length; c += 1) {
      const w = totals[c]!;
      wx[cellX[c]!]! += w;
      wy[cellY[c]!]! += w;
      n += w;
    }
    if (n < 2) return null;
    const mean = (n + 1) / 2;
    centredMidranks(wx, mean, rx);
    centredMidranks(wy, mean, ry);
    let covariance = 0;
    for (let c = 0; c < cellX.length; c += 1) covariance += totals[c]! * rx[cellX[c]!]! * ry[cellY[c]!]!;
    const vx = weightedSquares(wx, rx);
    const vy = weightedSquares(wy, ry);
    if (vx === 0 || vy === 0) return null;
    return covariance / Math.sqrt(vx * vy);
  });
}

/**
 * Spearman's rho of paired numbers, ties as midranks; null with fewer than two pairs or when
 * either side is constant.
 *
 * @example
 * spearmanRho([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]) // 0.8207826816681233 (scipy's documented example)
 */
export function spearmanRho(x: readonly number[], y: readonly number[]): number | null {
  if (x.length !== y.length) throw new RangeError(`x and y must be the same length, got ${x.length} and ${y.length}`);
  return evaluate(spearmanStatistic(x.map((value, index) => [value, y[index]!] as const)));
}

function distinctSorted(values: readonly (number | undefined)[]): number[] {
  const seen = new Set<number>();
  for (const value of values) {
    if (value === undefined) continue;
    if (!Number.isFinite(value)) throw new RangeError(`ranks need finite numbers, got ${value}`);
    seen.add(value);
  }
  return [...seen].sort((a, b) => a - b);
}

function centredMidranks(weights: Float64Array, mean: number, ranks: Float64Array): void {
  let below = 0;
  for (let i = 0; i < weights.length; i += 1) {
    ranks[i] = below + (weights[i]! + 1) / 2 - mean;
    below += weights[i]!;
  }
}

function weightedSquares(weights: Float64Array, ranks: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < weights.length; i += 1) sum += weights[i]! * ranks[i]! * ranks[i]!;
  return sum;
}
