/**
 * The stats report behind `GET /v1/stats` and Phase 4.1's `FeedbackStats`: from per-day
 * {@link StatsSums} of a selection (read from the rollups, never from events) to the rates,
 * intervals, rolling satisfaction, trend and cold-start baseline. Every rate is a percentage
 * 0–100 with 2 decimals, interval bounds included; p-values stay fractions (docs/metrics.md, "Units").
 *
 * @module
 */
import { meanOf, percentOf } from './daily-metrics.js';
import { addSumsInto, compareCodeUnits, emptySums, type StatsSums } from './stats-sums.js';
import { recentDropOf, type RecentDrop } from './recent-drop.js';
import { trendOf, type Trend } from './trend.js';
import { DAY_MS } from '../time.js';
import { wilsonInterval } from './wilson.js';

/** Rated responses (positive + negative ratings) below which a workspace sees the default baseline. */
export const COLD_START_MIN_RATED = 30;

/**
 * The default baseline a workspace with too little data is compared with (ADR-016 "synthetic
 * baseline"). 70 % satisfaction is Phase 4.1's warning threshold: the level the seed treats as
 * the floor of a healthy assistant. docs/metrics.md says where each figure comes from.
 */
export const DEFAULT_BASELINE = { satisfactionRate: 70 } as const;

/** Days in the rolling satisfaction window (Phase 4.1). */
export const ROLLING_DAYS = 7;
const INTERVAL_CONFIDENCE = 0.95;
const PERCENT = 100;

/** A rate with its Wilson interval, all percentages. */
export interface RateInterval {
  rate: number | null;
  lower: number | null;
  upper: number | null;
  confidence: number;
}

/** The measures of one selection (the whole range, or one group). */
export interface StatsMeasures {
  /** Counted events of every type. */
  events: number;
  /** Rated: positive + negative ratings (thumbs, stars, usefulness). */
  total: number;
  positive: number;
  negative: number;
  /** positive / total, with its Wilson interval. */
  satisfactionRate: number | null;
  satisfactionInterval: RateInterval;
  /** Responses registered, and their sessions counted per day (session-days). */
  responses: number;
  sessions: number;
  /** The Feedback-and-RLHF monitoring rates. */
  positiveRate: number | null;
  correctionRate: number | null;
  escalationRate: number | null;
  /** Mean time from a response to its feedback, ms. */
  avgResponseTimeMs: number | null;
  firstPassAcceptanceRate: number | null;
  averageEditDistance: number | null;
  qualityScores: { accuracy: number | null; completeness: number | null; styleMatch: number | null };
}

/** One day of the range. */
export interface StatsDayPoint {
  date: string;
  total: number;
  positive: number;
  negative: number;
  satisfactionRate: number | null;
  /** Satisfaction over the 7 days ending this day (Phase 4.1 rolling 7-day rate). */
  rolling7DaySatisfaction: number | null;
}

/** The cold-start baseline (ADR-016): the default until the workspace has enough ratings. */
export interface StatsBaseline {
  source: 'default' | 'workspace';
  satisfactionRate: number | null;
  /** Ratings needed for the workspace's own figures to be the baseline. */
  minimumRated: number;
  rated: number;
}

/** The whole report. */
export interface StatsReport extends StatsMeasures {
  from: string;
  to: string;
  /** Satisfaction over the last 7 days of the range, with its interval. */
  rolling7DaySatisfaction: RateInterval;
  byCategory: Record<string, { positive: number; negative: number }>;
  /**
   * Counted events per source, of every source (explicit, implicit, outcome, review, judge), with
   * the positive and negative ratings among them and their rate. The report's other figures are
   * the users' (review and judge left out); this is where reviewers and judges show, apart.
   */
  bySource: Record<string, SourceMeasures>;
  byDay: StatsDayPoint[];
  topIssues: Array<{ query: string; negativeCount: number }>;
  /** Negative events per error category, most frequent first, with each one's share of them. */
  errorCategories: Array<{ category: string; count: number; share: number }>;
  trend: Trend;
  /** A sharp drop of the last 2–3 days against the 7-day line before them (stats/recent-drop.ts). */
  recentDrop: RecentDrop;
  /** null when the request did not group. */
  groupBy: StatsGroupBy | null;
  groups: Array<{ key: string } & StatsMeasures>;
  baseline: StatsBaseline;
}

/** One source's share of a selection: its counted events, and the ratings (thumbs, stars, usefulness) among them. */
export interface SourceMeasures {
  events: number;
  positive: number;
  negative: number;
  /** positive / (positive + negative) × 100, with 2 decimals; null without ratings. */
  positiveRate: number | null;
}

/** How `GET /v1/stats` groups. */
export const STATS_GROUP_BY = ['day', 'week', 'agent', 'model', 'queryType', 'variant', 'category', 'source'] as const;
export type StatsGroupBy = (typeof STATS_GROUP_BY)[number];

/** The report's inputs, as the adapter reads them from the rollups. */
export interface StatsInput {
  /** First and last UTC day of the range, inclusive (YYYY-MM-DD). */
  from: string;
  to: string;
  /** The selection's sums per day; days may be missing (nothing happened). */
  days: ReadonlyArray<{ day: string; sums: StatsSums }>;
  /** null: no groups. */
  groupBy: StatsGroupBy | null;
  /** For an agent, model, queryType or variant groupBy: the sums per value over the range. */
  groups?: ReadonlyArray<{ key: string; sums: StatsSums }>;
  /** Negative ratings per normalized query over the range, any order. */
  issues: ReadonlyArray<{ query: string; negatives: number }>;
  /** Top issues listed at most (default 10). */
  topIssues?: number;
}

/**
 * Builds the report. Pure: the adapter reads sums, this does the arithmetic once.
 *
 * @example
 * const report = buildStatsReport({ from: '2026-11-01', to: '2026-11-30', days, groupBy: 'day', issues: [] });
 * report.satisfactionRate // 82.5
 * report.trend.direction // 'stable'
 */
export function buildStatsReport(input: StatsInput): StatsReport {
  const dates = daysBetween(input.from, input.to);
  const byDate = new Map<string, StatsSums>();
  for (const d of input.days) {
    const into = byDate.get(d.day);
    if (into === undefined) byDate.set(d.day, addSumsInto(emptySums(), d.sums));
    else addSumsInto(into, d.sums);
  }
  const perDay = dates.map((date) => ({ date, sums: byDate.get(date) ?? emptySums() }));
  const total = emptySums();
  for (const d of perDay) addSumsInto(total, d.sums);

  // Rolling 7-day satisfaction from running totals of the two counts it needs.
  const runningPositive: number[] = [];
  const runningNegative: number[] = [];
  const byDay: StatsDayPoint[] = perDay.map((d, i) => {
    const { positiveRatings: positive, negativeRatings: negative } = d.sums;
    runningPositive.push((runningPositive[i - 1] ?? 0) + positive);
    runningNegative.push((runningNegative[i - 1] ?? 0) + negative);
    const windowPositive = (runningPositive[i] ?? 0) - (runningPositive[i - ROLLING_DAYS] ?? 0);
    const windowNegative = (runningNegative[i] ?? 0) - (runningNegative[i - ROLLING_DAYS] ?? 0);
    return {
      date: d.date,
      total: positive + negative,
      positive,
      negative,
      satisfactionRate: percentOf(positive, positive + negative),
      rolling7DaySatisfaction: percentOf(windowPositive, windowPositive + windowNegative),
    };
  });
  const last = byDay.length - 1;
  const weekPositive = (runningPositive[last] ?? 0) - (runningPositive[last - ROLLING_DAYS] ?? 0);
  const weekNegative = (runningNegative[last] ?? 0) - (runningNegative[last - ROLLING_DAYS] ?? 0);
  const measures = measuresOf(total);

  return {
    from: input.from,
    to: input.to,
    ...measures,
    rolling7DaySatisfaction: rateInterval(weekPositive, weekPositive + weekNegative),
    byCategory: byCategoryOf(total),
    bySource: bySourceOf(total),
    byDay,
    topIssues: topIssuesOf(input.issues, input.topIssues ?? 10),
    errorCategories: errorCategoriesOf(total),
    trend: trendOf(
      byDay.flatMap((d, i) => (d.satisfactionRate === null ? [] : [{ x: i, y: d.satisfactionRate }])),
    ),
    recentDrop: recentDropOf(byDay),
    groupBy: input.groupBy,
    groups: groupsOf(input, perDay, total),
    baseline: baselineOf(measures),
  };
}

/**
 * The measures of a selection's sums: rates as percentages, intervals as percentages.
 *
 * @example
 * measuresOf(sums).satisfactionInterval // { rate: 75, lower: 30.06, upper: 95.44, confidence: 0.95 }
 */
export function measuresOf(s: StatsSums): StatsMeasures {
  const rated = s.positiveRatings + s.negativeRatings;
  return {
    events: s.events,
    total: rated,
    positive: s.positiveRatings,
    negative: s.negativeRatings,
    satisfactionRate: percentOf(s.positiveRatings, rated),
    satisfactionInterval: rateInterval(s.positiveRatings, rated),
    responses: s.responses,
    sessions: s.sessions,
    positiveRate: percentOf(s.positiveRatings, rated),
    correctionRate: percentOf(s.correctedResponses, s.responses),
    escalationRate: percentOf(s.escalatedSessions, s.sessions),
    avgResponseTimeMs: meanOf(s.responseTimeSumMs, s.responseTimeCount),
    firstPassAcceptanceRate: percentOf(s.firstPassAccepted, s.firstPassJudged),
    averageEditDistance: meanOf(s.editDistanceSum, s.editDistanceCount),
    qualityScores: {
      accuracy: meanOf(s.accuracySum, s.accuracyCount),
      completeness: meanOf(s.completenessSum, s.completenessCount),
      styleMatch: meanOf(s.styleMatchSum, s.styleMatchCount),
    },
  };
}

/**
 * A Wilson interval as percentages with 2 decimals.
 *
 * @example
 * rateInterval(3, 4) // { rate: 75, lower: 30.06, upper: 95.44, confidence: 0.95 }
 */
export function rateInterval(successes: number, trials: number): RateInterval {
  const w = wilsonInterval(successes, trials, INTERVAL_CONFIDENCE);
  const pct = (x: number | null) => (x === null ? null : Math.round(x * PERCENT * PERCENT) / PERCENT);
  return { rate: percentOf(successes, trials), lower: pct(w.lower), upper: pct(w.upper), confidence: INTERVAL_CONFIDENCE };
}

/**
 * The UTC days from `from` to `to` inclusive (YYYY-MM-DD); empty when `to` is before `from`.
 *
 * @example
 * daysBetween('2026-02-27', '2026-03-01') // ['2026-02-27', '2026-02-28', '2026-03-01']
 */
export function daysBetween(from: string, to: string): string[] {
  const start = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`);
  const out: string[] = [];
  for (let t = start; t <= end; t += DAY_MS) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/**
 * The Monday (UTC) starting the ISO week of a day.
 *
 * @example
 * weekOf('2026-11-22') // '2026-11-16' (a Sunday belongs to the week of the Monday before)
 */
export function weekOf(day: string): string {
  const t = Date.parse(`${day}T00:00:00Z`);
  const sinceMonday = (new Date(t).getUTCDay() + 6) % 7;
  return new Date(t - sinceMonday * DAY_MS).toISOString().slice(0, 10);
}

function groupsOf(input: StatsInput, perDay: ReadonlyArray<{ date: string; sums: StatsSums }>, total: StatsSums): Array<{ key: string } & StatsMeasures> {
  let groups: Array<{ key: string; sums: StatsSums }>;
  if (input.groupBy === null) return [];
  if (input.groupBy === 'day') groups = perDay.map((d) => ({ key: d.date, sums: d.sums }));
  else if (input.groupBy === 'week') {
    const weeks = new Map<string, StatsSums>();
    for (const d of perDay) {
      const week = weekOf(d.date);
      weeks.set(week, addSumsInto(weeks.get(week) ?? emptySums(), d.sums));
    }
    groups = [...weeks].map(([key, sums]) => ({ key, sums }));
  } else if (input.groupBy === 'category') {
    // Categories belong to events, not responses: a category group has its ratings only.
    groups = Object.entries(byCategoryOf(total)).map(([key, c]) => ({ key, sums: { ...emptySums(), positiveRatings: c.positive, negativeRatings: c.negative } }));
  } else if (input.groupBy === 'source') {
    // Sources belong to events: a source group has its events and ratings only, so the explicit
    // group's ratings are the report's own and a judge's show beside them, never inside.
    groups = Object.entries(bySourceOf(total)).map(([key, c]) => ({
      key,
      sums: { ...emptySums(), events: c.events, positiveRatings: c.positive, negativeRatings: c.negative },
    }));
  } else groups = [...(input.groups ?? [])].sort((a, b) => compareCodeUnits(a.key, b.key));
  return groups.map((g) => ({ key: g.key, ...measuresOf(g.sums) }));
}

/**
 * Per source: its events and ratings. Days rolled up before sources were summed have no split;
 * their events count in `events` only (docs/metrics.md).
 */
function bySourceOf(s: StatsSums): Record<string, SourceMeasures> {
  const events = s.sourceEvents ?? {};
  const positive = s.sourcePositive ?? {};
  const negative = s.sourceNegative ?? {};
  const keys = [...new Set([...Object.keys(events), ...Object.keys(positive), ...Object.keys(negative)])].sort(compareCodeUnits);
  return Object.fromEntries(
    keys.map((k) => {
      const [p, n] = [countOf(positive, k), countOf(negative, k)];
      return [k, { events: countOf(events, k), positive: p, negative: n, positiveRate: percentOf(p, p + n) }];
    }),
  );
}

function byCategoryOf(s: StatsSums): Record<string, { positive: number; negative: number }> {
  const keys = [...new Set([...Object.keys(s.positiveCategoryCounts), ...Object.keys(s.negativeCategoryCounts)])].sort(compareCodeUnits);
  return Object.fromEntries(
    keys.map((k) => [k, { positive: countOf(s.positiveCategoryCounts, k), negative: countOf(s.negativeCategoryCounts, k) }]),
  );
}

function errorCategoriesOf(s: StatsSums): Array<{ category: string; count: number; share: number }> {
  const entries = Object.entries(s.negativeCategoryCounts);
  const sum = entries.reduce((n, [, c]) => n + c, 0);
  return entries
    .sort(([a, x], [b, y]) => y - x || compareCodeUnits(a, b))
    .map(([category, count]) => ({ category, count, share: percentOf(count, sum) ?? 0 }));
}

function topIssuesOf(issues: StatsInput['issues'], limit: number): Array<{ query: string; negativeCount: number }> {
  const counts = new Map<string, number>();
  for (const i of issues) counts.set(i.query, (counts.get(i.query) ?? 0) + i.negatives);
  return [...counts]
    .sort(([a, x], [b, y]) => y - x || compareCodeUnits(a, b))
    .slice(0, limit)
    .map(([query, negativeCount]) => ({ query, negativeCount }));
}

function baselineOf(m: StatsMeasures): StatsBaseline {
  if (m.total < COLD_START_MIN_RATED) {
    return { source: 'default', satisfactionRate: DEFAULT_BASELINE.satisfactionRate, minimumRated: COLD_START_MIN_RATED, rated: m.total };
  }
  return { source: 'workspace', satisfactionRate: m.satisfactionRate, minimumRated: COLD_START_MIN_RATED, rated: m.total };
}

function countOf(record: Record<string, number>, key: string): number {
  return Object.hasOwn(record, key) ? (record[key] ?? 0) : 0;
}
