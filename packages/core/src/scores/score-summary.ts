/**
 * A named score's summary over a selection (issue 26 §1, `GET /v1/stats?groupBy=score`): how
 * many scores, their mean with its 95 % interval (Student's t: scores are means of a few values,
 * often under 30), and how often each categorical label (or boolean) was given. Pure; fed by the
 * sums a query keeps.
 */
import { studentTQuantile } from '../stats/distributions.js';
import { statisticVariance } from '../stats/sample-statistic.js';
import type { ScoreConfig } from './score-config.js';

/** What a selection's scores of one name add up to. */
export interface ScoreSums {
  name: string;
  /** Scores of that name (numeric value or not). */
  count: number;
  /** Of them, the ones with a numeric value, and its sum and sum of squares. */
  valued: number;
  sum: number;
  sumSquares: number;
  /** Label (`stringValue`) → scores that gave it. */
  labels: Record<string, number>;
}

/** One score name's summary. */
export interface ScoreSummary {
  name: string;
  count: number;
  /** The mean of the numeric values; null without any. */
  mean: number | null;
  /** The mean's 95 % interval (t with n − 1 degrees of freedom); null under two values. */
  interval: { lower: number; upper: number } | null;
  /** Label → count, for categorical and boolean scores (empty for numeric ones). */
  categories: Record<string, number>;
}

/** Decimals a mean and its bounds are given to. */
const DECIMALS = 4;
const round = (x: number): number => Number(x.toFixed(DECIMALS));

/**
 * The mean of `n` values and its two-sided interval at `confidence`: mean ± t(n − 1) · s / √n.
 *
 * @example
 * meanInterval(4, 10, 30) // { mean: 2.5, lower: ≈0.446, upper: ≈4.554 }
 * meanInterval(1, 3, 9) // { mean: 3, lower: null, upper: null }
 */
export function meanInterval(n: number, sum: number, sumSquares: number, confidence = 0.95): { mean: number | null; lower: number | null; upper: number | null } {
  if (n <= 0) return { mean: null, lower: null, upper: null };
  const mean = sum / n;
  if (n < 2) return { mean, lower: null, upper: null };
  const sd = Math.sqrt(Math.max(0, statisticVariance({ kind: 'mean', n, sum, sumSquares })));
  const half = studentTQuantile(1 - (1 - confidence) / 2, n - 1) * (sd / Math.sqrt(n));
  return { mean, lower: mean - half, upper: mean + half };
}

/** The values a score of one name can take (its config's range), when known. */
export interface ScoreRange {
  min?: number;
  max?: number;
}

/**
 * The range a config allows: a numeric config's `min`/`max` (either may be open), a boolean's 0..1,
 * a categorical config's lowest and highest category value.
 *
 * @example
 * scoreRange({ dataType: 'boolean' }) // { min: 0, max: 1 }
 * scoreRange({ dataType: 'numeric', min: 1 }) // { min: 1 }
 */
export function scoreRange(config: RewardConfig): ScoreRange {
  if (config.dataType === 'boolean') return { min: 0, max: 1 };
  if (config.dataType === 'categorical') {
    const values = (config.categories ?? []).map((c) => c.value);
    return values.length === 0 ? {} : { min: Math.min(...values), max: Math.max(...values) };
  }
  return { ...(config.min === undefined ? {} : { min: config.min }), ...(config.max === undefined ? {} : { max: config.max }) };
}

/**
 * Summarizes each score name's sums, by name. A mean's interval is kept within the values its
 * config allows (`ranges`, by name): with a few scores the t interval runs past them (two
 * scores of 0 and 1 gave -5.85..6.85 on a 0..1 score), and a bound no score can reach tells a
 * reader nothing.
 *
 * @example
 * summarizeScores([{ name: 'tone', count: 3, valued: 3, sum: 2, sumSquares: 2, labels: { polite: 2, rude: 1 } }])
 * // [{ name: 'tone', count: 3, mean: 0.6667, interval: { lower: …, upper: … }, categories: { polite: 2, rude: 1 } }]
 */
export function summarizeScores(sums: readonly ScoreSums[], ranges: ReadonlyMap<string, ScoreRange> = new Map()): ScoreSummary[] {
  return [...sums]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((s) => {
      const m = meanInterval(s.valued, s.sum, s.sumSquares);
      const range = ranges.get(s.name) ?? {};
      const clamp = (x: number): number => Math.min(range.max ?? Infinity, Math.max(range.min ?? -Infinity, x));
      return {
        name: s.name,
        count: s.count,
        mean: m.mean === null ? null : round(m.mean),
        interval: m.lower === null || m.upper === null ? null : { lower: round(clamp(m.lower)), upper: round(clamp(m.upper)) },
        categories: Object.fromEntries(Object.entries(s.labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      };
    });
}

/** What {@link scoreReward} needs of a config. */
export type RewardConfig = Pick<ScoreConfig, 'dataType' | 'min' | 'max' | 'categories'>;

/**
 * A score scaled to [-1, 1], as the composite response score reads it with the config's weight:
 * a numeric score across its range (`min`..`max`; 0..1 when the config leaves either open), a
 * boolean 1 as 1 and 0 as -1, a categorical value across its categories' values. Clamped.
 *
 * @example
 * scoreReward(0.75, { dataType: 'numeric', min: 0, max: 1 }) // 0.5
 * scoreReward(0, { dataType: 'boolean' }) // -1
 * scoreReward(2, { dataType: 'categorical', categories: [{ value: 0, label: 'bad' }, { value: 1, label: 'ok' }, { value: 2, label: 'good' }] }) // 1
 */
export function scoreReward(value: number, config: RewardConfig): number {
  let lo = 0;
  let hi = 1;
  if (config.dataType === 'numeric') {
    lo = config.min ?? 0;
    hi = config.max ?? Math.max(1, lo + 1);
  } else if (config.dataType === 'categorical') {
    const values = (config.categories ?? []).map((c) => c.value);
    if (values.length < 2) return 0;
    lo = Math.min(...values);
    hi = Math.max(...values);
  }
  if (!(hi > lo)) return 0;
  return Math.min(1, Math.max(-1, (2 * (value - lo)) / (hi - lo) - 1));
}
