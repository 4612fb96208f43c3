/**
 * Trend of a daily series (the satisfaction rate): the least-squares slope with its t-test
 * (Phase 4.1's "trend by linear regression") and the Mann-Kendall test (Mann 1945; Kendall 1975;
 * Gilbert 1987, §16.4), which needs no normality and shrugs off an outlier day. The word is
 * `improving` or `declining` only when both agree and are significant, so one noisy day does
 * not turn a dashboard red.
 *
 * @module
 */
import { twoSidedTPValue, twoSidedZPValue } from './distributions.js';

/** Significance level of both tests. */
export const TREND_ALPHA = 0.05;
/** Fewer days than this give `not_enough_days` whatever the figures. */
export const TREND_MIN_DAYS = 7;

/** Ordinary least squares of y on x, with the slope's t-test. */
export interface LinearTrend {
  n: number;
  slope: number | null;
  intercept: number | null;
  /** Standard error of the slope. */
  slopeStdError: number | null;
  /** slope / slopeStdError, on n − 2 degrees of freedom. */
  t: number | null;
  df: number;
  /** Two-sided p-value of the slope's t-test (H0: slope = 0). */
  pValue: number | null;
}

/**
 * Least-squares line through `(x, y)` points and the t-test of its slope. Needs 3 points and
 * two distinct x for a test; fewer give nulls. A perfect fit (no residual) has p = 0 unless the
 * slope is 0.
 *
 * @example
 * linearTrend([{ x: 0, y: 1 }, { x: 1, y: 3 }, { x: 2, y: 2 }, { x: 3, y: 5 }]).slope // 1.1
 */
export function linearTrend(points: ReadonlyArray<{ x: number; y: number }>): LinearTrend {
  const n = points.length;
  const df = Math.max(0, n - 2);
  const none: LinearTrend = { n, slope: null, intercept: null, slopeStdError: null, t: null, df, pValue: null };
  if (n < 3) return none;
  const meanX = points.reduce((s, p) => s + p.x, 0) / n;
  const meanY = points.reduce((s, p) => s + p.y, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (const p of points) {
    sxx += (p.x - meanX) ** 2;
    sxy += (p.x - meanX) * (p.y - meanY);
  }
  if (sxx === 0) return none;
  const slope = sxy / sxx;
  const intercept = meanY - slope * meanX;
  let sse = 0;
  for (const p of points) sse += (p.y - (intercept + slope * p.x)) ** 2;
  const slopeStdError = Math.sqrt(sse / df / sxx);
  if (slopeStdError === 0) return { n, slope, intercept, slopeStdError, t: null, df, pValue: slope === 0 ? 1 : 0 };
  const t = slope / slopeStdError;
  return { n, slope, intercept, slopeStdError, t, df, pValue: twoSidedTPValue(t, df) };
}

/** The Mann-Kendall trend test. */
export interface MannKendall {
  n: number;
  /** Σ sign(x_j − x_i) over i < j. */
  s: number;
  /** Var(S) with the ties correction. */
  variance: number;
  /** (S − 1)/√Var for S > 0, (S + 1)/√Var for S < 0, else 0 (continuity-corrected). */
  z: number;
  /** Two-sided p-value from the normal approximation. */
  pValue: number;
  /** Kendall's tau: S / (n(n − 1)/2). */
  tau: number | null;
}

/**
 * Mann-Kendall test of a series in time order. The variance is
 * [n(n−1)(2n+5) − Σ t(t−1)(2t+5)] / 18 over the groups of t tied values (Gilbert 1987, eq. 16.4).
 *
 * @example
 * mannKendall([1, 2, 3, 4, 5]) // { n: 5, s: 10, variance: 16.67, z: 2.205, pValue: 0.027, tau: 1 } (rounded)
 */
export function mannKendall(series: readonly number[]): MannKendall {
  const n = series.length;
  let s = 0;
  for (let i = 0; i < n - 1; i++) {
    const xi = series[i] ?? 0;
    for (let j = i + 1; j < n; j++) s += Math.sign((series[j] ?? 0) - xi);
  }
  const ties = new Map<number, number>();
  for (const x of series) ties.set(x, (ties.get(x) ?? 0) + 1);
  let tieTerm = 0;
  for (const t of ties.values()) tieTerm += t * (t - 1) * (2 * t + 5);
  const variance = (n * (n - 1) * (2 * n + 5) - tieTerm) / 18;
  const z = variance <= 0 || s === 0 ? 0 : (s - Math.sign(s)) / Math.sqrt(variance);
  const pairs = (n * (n - 1)) / 2;
  return { n, s, variance, z, pValue: variance <= 0 ? 1 : twoSidedZPValue(z), tau: pairs === 0 ? null : s / pairs };
}

/** The trend in words, and the figures behind it. */
export interface Trend {
  /** `not_enough_days` below {@link TREND_MIN_DAYS} days with a rate: never "stable" on too little. */
  direction: 'improving' | 'stable' | 'declining' | 'not_enough_days';
  /** The words to show: the direction, or "not enough days: N of 7". */
  verdict: string;
  /** Days in the series (days with a rate). */
  days: number;
  /** Days a verdict needs ({@link TREND_MIN_DAYS}). */
  requiredDays: number;
  regression: LinearTrend;
  mannKendall: MannKendall;
}

/**
 * The trend of a daily rate (higher is better): `not_enough_days` below {@link TREND_MIN_DAYS}
 * days; else `improving` or `declining` when both the regression slope and Mann-Kendall are
 * significant at {@link TREND_ALPHA} in the same direction, else `stable`. `x` is the day's
 * offset, so a gap (a day without a rate) stays a gap.
 *
 * @example
 * trendOf([{ x: 0, y: 60 }, { x: 1, y: 62 }, ..., { x: 9, y: 80 }]).direction // 'improving'
 */
export function trendOf(points: ReadonlyArray<{ x: number; y: number }>): Trend {
  const ordered = [...points].sort((a, b) => a.x - b.x);
  const regression = linearTrend(ordered);
  const mk = mannKendall(ordered.map((p) => p.y));
  const days = ordered.length;
  if (days < TREND_MIN_DAYS) {
    return { direction: 'not_enough_days', verdict: `not enough days: ${days} of ${TREND_MIN_DAYS}`, days, requiredDays: TREND_MIN_DAYS, regression, mannKendall: mk };
  }
  let direction: Trend['direction'] = 'stable';
  const significant = regression.pValue !== null && regression.pValue < TREND_ALPHA && mk.pValue < TREND_ALPHA;
  if (significant && regression.slope !== null && Math.sign(regression.slope) === Math.sign(mk.s)) {
    direction = regression.slope > 0 ? 'improving' : 'declining';
  }
  return { direction, verdict: direction, days, requiredDays: TREND_MIN_DAYS, regression, mannKendall: mk };
}
