/**
 * Percentile bootstrap intervals for agreement statistics: resample the units (review items, or
 * judged responses) with replacement, recompute the statistic, and read the 2.5th and 97.5th
 * percentiles. Agreement coefficients have no simple variance formula once items have varying
 * numbers of raters and missing values, so the bootstrap is the interval Krippendorff (2004) and
 * Hayes & Krippendorff (2007) recommend for alpha, used here for every coefficient alike.
 *
 * Determinism: draws come from a seeded generator, so the same input gives the same interval.
 * Several statistics of one report are resampled with the same draws (the unit is the item), so
 * a report costs one set of draws however many figures it holds.
 *
 * @module
 */
import { drawResample, randomState } from './seeded-random.js';
import { accumulate, addPatterns, contributingUnits, isCompressed, type SummedStatistic } from './summed-statistic.js';

/** A statistic with its interval and the number of units it rests on. */
export interface Estimate {
  /** The statistic on the sample; null when undefined (no units, or no variation to judge). */
  value: number | null;
  /** Lower end of the percentile interval; null when the statistic is null. */
  low: number | null;
  /** Upper end of the percentile interval; null when the statistic is null. */
  high: number | null;
  /** Units (items, pairs) that contribute. */
  n: number;
}

/** How the bootstrap resamples. */
export interface BootstrapOptions {
  /** Resamples drawn (default 1,000, enough for a stable 95 % percentile interval). */
  resamples?: number;
  /** Seed of the generator (default: a fixed seed, so results are reproducible). */
  seed?: number;
  /** Confidence of the interval (default 0.95). */
  confidence?: number;
}

/** Resamples drawn when the caller says nothing. */
export const DEFAULT_RESAMPLES = 1000;

/** Fewest resamples {@link resamplesWithin} gives: below this the 2.5th percentile rests on < 5 draws. */
export const MIN_RESAMPLES = 200;

/**
 * How many resamples fit a budget of draws: `draws` is what one resample costs (units × the
 * statistics computed on them). {@link DEFAULT_RESAMPLES} while they fit, fewer beyond, never
 * below {@link MIN_RESAMPLES}. A request-time read uses it so that its cost stops growing with
 * the queue while its intervals stay usable.
 *
 * @example
 * resamplesWithin(10_000 * 16) // 1000 (10,000 items, 16 statistics)
 * resamplesWithin(50_000 * 10) // 400
 */
export function resamplesWithin(draws: number, budget = 200_000_000): number {
  if (draws <= 0) return DEFAULT_RESAMPLES;
  return Math.max(MIN_RESAMPLES, Math.min(DEFAULT_RESAMPLES, Math.floor(budget / draws)));
}

/**
 * Bootstraps several statistics over the same units with the same draws. Every statistic must
 * have one row per unit (empty rows allowed: that unit does not count for that statistic).
 *
 * @example
 * const [kappa, alpha] = bootstrapEstimates([kappaStatistic, alphaStatistic]);
 * // kappa = { value: 0.62, low: 0.55, high: 0.69, n: 812 }
 */
export function bootstrapEstimates(statistics: readonly SummedStatistic[], options: BootstrapOptions = {}): Estimate[] {
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const confidence = options.confidence ?? 0.95;
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError(`resamples must be a positive integer, got ${resamples}`);
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence must be within (0, 1), got ${confidence}`);
  if (statistics.length === 0) return [];
  const units = statistics[0]!.patternOf.length;
  for (const statistic of statistics) {
    if (statistic.patternOf.length !== units) throw new RangeError('every statistic of one bootstrap needs one row per unit');
  }
  const totals = statistics.map((statistic) => new Float64Array(statistic.size));
  const values = statistics.map((statistic, index) => statistic.finish(accumulate(statistic, totals[index]!)));
  const counts = statistics.map(contributingUnits);
  const draws: number[][] = statistics.map(() => []);
  const live = statistics.map((_, index) => values[index] !== null && counts[index]! > 0);
  if (units > 0 && live.some(Boolean)) {
    const random = randomState(options.seed);
    const drawn = new Uint32Array(units);
    const scratch = statistics.map((statistic) => new Float64Array(statistic.offsets.length));
    const joint = jointPatterns(statistics.filter((statistic, index) => live[index] && isCompressed(statistic)));
    const jointCounts = joint ? new Float64Array(joint.count) : null;
    for (let b = 0; b < resamples; b += 1) {
      drawResample(random, drawn);
      if (joint && jointCounts) {
        jointCounts.fill(0);
        for (let u = 0; u < units; u += 1) jointCounts[joint.of[u]!]! += drawn[u]!;
      }
      for (let index = 0; index < statistics.length; index += 1) {
        if (!live[index]) continue;
        const statistic = statistics[index]!;
        const toPattern = joint?.toPattern.get(statistic);
        let summed: Float64Array;
        if (toPattern && jointCounts) {
          const multiplicity = scratch[index]!;
          multiplicity.fill(0);
          for (let j = 0; j < toPattern.length; j += 1) multiplicity[toPattern[j]!]! += jointCounts[j]!;
          summed = addPatterns(statistic, totals[index]!, multiplicity);
        } else {
          summed = accumulate(statistic, totals[index]!, drawn, scratch[index]);
        }
        const value = statistic.finish(summed);
        // A resample can make a statistic undefined (e.g. every drawn item alike): it says nothing
        // about the spread, so it is left out rather than counted as 0.
        if (value !== null && Number.isFinite(value)) draws[index]!.push(value);
      }
    }
  }
  return statistics.map((_, index) => {
    const value = values[index] ?? null;
    const n = counts[index]!;
    if (value === null || n === 0) return { value: null, low: null, high: null, n };
    const sorted = Float64Array.from(draws[index]!).sort();
    if (sorted.length === 0) return { value, low: value, high: value, n };
    return { value, low: percentile(sorted, (1 - confidence) / 2), high: percentile(sorted, (1 + confidence) / 2), n };
  });
}

/**
 * One statistic's bootstrap interval; see {@link bootstrapEstimates}.
 *
 * @example
 * bootstrapEstimate(cohenKappaStatistic(pairs)) // { value: 0.4, low: 0.15, high: 0.63, n: 50 }
 */
export function bootstrapEstimate(statistic: SummedStatistic, options: BootstrapOptions = {}): Estimate {
  return bootstrapEstimates([statistic], options)[0]!;
}

/** Units grouped by their patterns in several statistics at once. */
interface JointPatterns {
  /** Distinct joint patterns. */
  count: number;
  /** Each unit's joint pattern. */
  of: Uint32Array;
  /** Per statistic: each joint pattern's own pattern. */
  toPattern: Map<SummedStatistic, Uint32Array>;
}

// Statistics with few distinct rows (the kappas, nominal alpha, percent agreement of a labelled
// queue) are resampled through their joint pattern: items whose rows are alike in every such
// statistic (the same reviewers giving the same labels) form one joint pattern, the draws are
// counted once per joint pattern, and each statistic sums its pattern counts from those, instead
// of every statistic passing over every item. Worth it only while joint patterns stay few.
function jointPatterns(statistics: readonly SummedStatistic[]): JointPatterns | null {
  if (statistics.length < 2) return null;
  const units = statistics[0]!.patternOf.length;
  const ids = new Map<string, number>();
  const of = new Uint32Array(units);
  const firstUnit: number[] = [];
  for (let u = 0; u < units; u += 1) {
    let key = '';
    for (const statistic of statistics) key += `${statistic.patternOf[u]},`;
    let id = ids.get(key);
    if (id === undefined) {
      id = firstUnit.length;
      ids.set(key, id);
      firstUnit.push(u);
      if (firstUnit.length * 4 > units) return null;
    }
    of[u] = id;
  }
  const toPattern = new Map(statistics.map((statistic) => [statistic, Uint32Array.from(firstUnit, (u) => statistic.patternOf[u]!)]));
  return { count: firstUnit.length, of, toPattern };
}

/** The p-quantile of sorted values, interpolating between neighbours (Hyndman & Fan type 7). */
export function percentile(sorted: Float64Array | readonly number[], p: number): number {
  const position = (sorted.length - 1) * p;
  const below = Math.floor(position);
  const above = Math.min(sorted.length - 1, below + 1);
  const lower = sorted[below]!;
  return lower + (sorted[above]! - lower) * (position - below);
}
