/**
 * The rankings of the insights report, over sums the server reads from the daily rollup: agents
 * and models with the lowest satisfaction, query types with the highest escalation rate. Each is
 * ranked by the conservative end of its Wilson interval, so a value with few ratings and a bad
 * raw rate does not outrank one whose rate is bad for sure, and only values with at least a
 * minimum sample are ranked at all.
 *
 * @module
 */
import { wilsonInterval } from '../stats/wilson.js';

/** Default minimum of rated responses (agents, models) or sessions (query types) to be ranked. */
export const RANKING_MIN_SAMPLE = 30;

/** Ratings of one agent or model over the period, summed from the rollup. */
export interface RatingTotals {
  name: string;
  positive: number;
  negative: number;
}

/** Escalations of one query type over the period, summed from the rollup. */
export interface EscalationTotals {
  name: string;
  sessions: number;
  escalated: number;
}

/** A rate as a percentage 0-100 with its 95 % Wilson interval (percentages too). */
export interface RateWithInterval {
  rate: number;
  lower: number;
  upper: number;
}

/** A ranked agent or model. */
export interface SatisfactionRank extends RatingTotals {
  rated: number;
  satisfaction: RateWithInterval;
}

/** A ranked query type. */
export interface EscalationRank extends EscalationTotals {
  escalation: RateWithInterval;
}

/** A ranking and the values it left out for want of a sample. */
export interface Ranking<T> {
  ranked: T[];
  /** Names with data but fewer than `minSample` rated responses or sessions. */
  belowMinimumSample: string[];
  minSample: number;
}

function percentInterval(successes: number, trials: number): RateWithInterval {
  const ci = wilsonInterval(successes, trials);
  return { rate: 100 * (ci.rate ?? 0), lower: 100 * (ci.lower ?? 0), upper: 100 * (ci.upper ?? 0) };
}

/**
 * Agents or models with the lowest satisfaction (positive / rated): those with at least
 * `minSample` rated, ranked by the upper bound of the interval, lowest first (the value is at
 * best that good), ties by rate then name.
 *
 * @example
 * lowestSatisfaction([{ name: 'sql-agent', positive: 10, negative: 30 }]).ranked[0].satisfaction.upper // 39.8
 */
export function lowestSatisfaction(totals: readonly RatingTotals[], options: { minSample?: number; limit?: number } = {}): Ranking<SatisfactionRank> {
  const minSample = options.minSample ?? RANKING_MIN_SAMPLE;
  const ranked = totals
    .filter((t) => t.positive + t.negative >= minSample)
    .map((t) => ({ ...t, rated: t.positive + t.negative, satisfaction: percentInterval(t.positive, t.positive + t.negative) }))
    .sort((a, b) => a.satisfaction.upper - b.satisfaction.upper || a.satisfaction.rate - b.satisfaction.rate || a.name.localeCompare(b.name));
  return {
    ranked: options.limit === undefined ? ranked : ranked.slice(0, options.limit),
    belowMinimumSample: totals.filter((t) => t.positive + t.negative > 0 && t.positive + t.negative < minSample).map((t) => t.name).sort(),
    minSample,
  };
}

/**
 * Query types with the highest escalation rate (escalated / sessions): those with at least
 * `minSample` sessions, ranked by the lower bound of the interval, highest first (the rate is at
 * least that high), ties by rate then name.
 *
 * @example
 * highestEscalation([{ name: 'billing', sessions: 50, escalated: 20 }]).ranked[0].escalation.lower // 27.6
 */
export function highestEscalation(totals: readonly EscalationTotals[], options: { minSample?: number; limit?: number } = {}): Ranking<EscalationRank> {
  const minSample = options.minSample ?? RANKING_MIN_SAMPLE;
  const ranked = totals
    .filter((t) => t.sessions >= minSample)
    .map((t) => ({ ...t, escalation: percentInterval(Math.min(t.escalated, t.sessions), t.sessions) }))
    .sort((a, b) => b.escalation.lower - a.escalation.lower || b.escalation.rate - a.escalation.rate || a.name.localeCompare(b.name));
  return {
    ranked: options.limit === undefined ? ranked : ranked.slice(0, options.limit),
    belowMinimumSample: totals.filter((t) => t.sessions > 0 && t.sessions < minSample).map((t) => t.name).sort(),
    minSample,
  };
}
