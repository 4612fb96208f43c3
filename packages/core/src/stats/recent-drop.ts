/**
 * A sharp recent drop of satisfaction: the last 2–3 days against the 7-day rolling line just
 * before them and its Wilson interval. The 30-day regression and Mann-Kendall weigh every day
 * alike, so two bad days at the end of a month barely move them; this names what a team sees at
 * a glance on the chart (a model rollout gone wrong) without waiting for the trend to turn.
 *
 * @module
 */
import { wilsonInterval } from './wilson.js';

/** Days before the recent window that make the baseline: the rolling line's 7 days. */
export const DROP_BASELINE_DAYS = 7;
/** The recent windows tried, shortest first: a drop of 2 days is named as soon as it shows. */
export const DROP_WINDOWS = [2, 3] as const;
/** Ratings the recent window needs before it is judged (fewer tell nothing at 95 %). */
export const DROP_MIN_RECENT_RATED = 20;
/** Ratings the baseline needs. */
export const DROP_MIN_BASELINE_RATED = 30;
const CONFIDENCE = 0.95;
const PERCENT = 100;

/** One day's rating counts, oldest first. */
export interface DayRatings {
  positive: number;
  negative: number;
}

/** A rate with its interval, percentages with 2 decimals (null: no ratings). */
export interface DropInterval {
  rate: number | null;
  lower: number | null;
  upper: number | null;
  rated: number;
}

/** What {@link recentDropOf} found. */
export interface RecentDrop {
  /** A drop is named. */
  detected: boolean;
  /** The recent window judged (the one that dropped, else the longest tried). */
  days: number;
  /** Satisfaction over the recent window, %, and its ratings. */
  rate: number | null;
  rated: number;
  /** The 7 days before the recent window (the rolling line as it stood), with its 95 % interval. */
  baseline: DropInterval;
  /** The words the Overview shows, or null when nothing is named. */
  verdict: string | null;
}

const round2 = (x: number): number => Math.round(x * PERCENT) / PERCENT;
const round1 = (x: number): number => Math.round(x * 10) / 10;

function intervalOf(days: readonly DayRatings[]): DropInterval {
  const positive = days.reduce((s, d) => s + d.positive, 0);
  const rated = days.reduce((s, d) => s + d.positive + d.negative, 0);
  const w = wilsonInterval(positive, rated, CONFIDENCE);
  const pct = (x: number | null) => (x === null ? null : round2(x * PERCENT));
  return { rate: pct(w.rate), lower: pct(w.lower), upper: pct(w.upper), rated };
}

/**
 * Judges the last days of a daily series (oldest first, the range's last day last). A drop is
 * named when, for a recent window of 2 (else 3) days with at least {@link DROP_MIN_RECENT_RATED}
 * ratings, both hold against the 7 days before it (at least {@link DROP_MIN_BASELINE_RATED}
 * ratings): the recent rate lies below the baseline's 95 % interval, and the recent window's own
 * 95 % interval lies wholly below the baseline rate. Both intervals must say it, so a small or
 * noisy window is never named.
 *
 * @example
 * recentDropOf([...Array(10).fill({ positive: 80, negative: 20 }), { positive: 52, negative: 48 }, { positive: 52, negative: 48 }])
 * // { detected: true, days: 2, rate: 52, baseline: { rate: 80, lower: 76.9, upper: 82.8, ... }, verdict: 'sharp drop: ...' }
 */
export function recentDropOf(series: readonly DayRatings[]): RecentDrop {
  let last: RecentDrop | null = null;
  for (const days of DROP_WINDOWS) {
    if (series.length < days + 1) break;
    const recentDays = series.slice(-days);
    const recent = intervalOf(recentDays);
    const baseline = intervalOf(series.slice(Math.max(0, series.length - days - DROP_BASELINE_DAYS), series.length - days));
    const judged = recent.rated >= DROP_MIN_RECENT_RATED && baseline.rated >= DROP_MIN_BASELINE_RATED;
    const detected =
      judged &&
      recent.rate !== null &&
      recent.upper !== null &&
      baseline.rate !== null &&
      baseline.lower !== null &&
      recent.rate < baseline.lower &&
      recent.upper < baseline.rate;
    last = {
      detected,
      days,
      rate: recent.rate,
      rated: recent.rated,
      baseline,
      verdict: detected
        ? `sharp drop: ${round1(recent.rate ?? 0)} % over the last ${days} days vs ${round1(baseline.rate ?? 0)} % (${round1(baseline.lower ?? 0)}–${round1(baseline.upper ?? 0)} %) over the ${DROP_BASELINE_DAYS} days before`
        : null,
    };
    if (detected) return last;
  }
  return last ?? { detected: false, days: 0, rate: null, rated: 0, baseline: { rate: null, lower: null, upper: null, rated: 0 }, verdict: null };
}
