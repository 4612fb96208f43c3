/**
 * `GET /v1/stats` (the stats report over a range, filtered and grouped) and Phase 4.1's
 * `GET /api/rag/feedback/stats` (the same numbers as `FeedbackStats`). Both read the rollups and
 * today's live counters, never events (see store/stats-report.ts). Rates are percentages 0–100.
 */
import { DAY_MS, STATS_GROUP_BY, scoreRange, summarizeScores, utcDay, type StatsGroupBy } from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FeedloopError } from '../../errors.js';
import { loadStatsReport, STATS_DIMENSION_COLUMNS, statsDimensionSeen, type LiveFieldsReader } from '../../store/stats-report.js';
import { watchWorkspaceRates } from '../../metrics.js';
import { uncombinableFilter, workspaceRates, type StatsFilters } from '../../store/stats-sums.js';
import { scoreSums } from '../../store/score-reads.js';
import { listScoreConfigs } from '../../store/score-configs.js';
import { authOf } from '../auth.js';
import { heavyReadClient } from '../../db/sql-client.js';
import type { AppServices } from '../services.js';

const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
/** Every stats route defaults to the last 30 days, today included. */
export const DEFAULT_RANGE_DAYS = 30;
/** The longest range one request may cover: a year and a day, so "last year" always fits. */
const MAX_RANGE_DAYS = 366;
const FILTER_MAX_LENGTH = 256;

const day = z.string().regex(DAY_PATTERN, 'must be a UTC day, YYYY-MM-DD');
const filter = z.string().min(1).max(FILTER_MAX_LENGTH);
const rangeQuery = { from: day.optional().describe('First UTC day (default: 29 days before `to`)'), to: day.optional().describe('Last UTC day (default: today)') };

const statsQuery = z.strictObject({
  ...rangeQuery,
  groupBy: z
    .enum([...STATS_GROUP_BY, 'score'])
    .optional()
    .describe('Adds `groups`, one per day, week, agent, model, query type, variant, category or source (explicit, implicit, outcome, review, judge: each with its events and ratings); `score` adds `scores`, one per score name (not combined with filters)'),
  agent: filter.optional(),
  model: filter.optional(),
  queryType: filter.optional(),
  experimentId: filter.optional(),
  variant: filter.optional(),
  category: filter.optional(),
  userId: filter.optional(),
});

const rate = z.number().nullable();
const interval = z.object({ rate, lower: rate, upper: rate, confidence: z.number() });
const measures = {
  events: z.number().int(),
  total: z.number().int().describe('Rated: positive + negative ratings'),
  positive: z.number().int(),
  negative: z.number().int(),
  satisfactionRate: rate.describe('positive / total, %'),
  satisfactionInterval: interval.describe('Wilson 95 % interval, %'),
  responses: z.number().int(),
  sessions: z.number().int(),
  positiveRate: rate,
  correctionRate: rate,
  escalationRate: rate,
  avgResponseTimeMs: rate,
  firstPassAcceptanceRate: rate,
  averageEditDistance: rate,
  qualityScores: z.object({ accuracy: rate, completeness: rate, styleMatch: rate }),
};
const linear = z.object({ n: z.number(), slope: rate, intercept: rate, slopeStdError: rate, t: rate, df: z.number(), pValue: rate });
const mk = z.object({ n: z.number(), s: z.number(), variance: z.number(), z: z.number(), pValue: z.number(), tau: rate });
const trend = z.object({
  direction: z.enum(['improving', 'stable', 'declining', 'not_enough_days']),
  verdict: z.string().describe('The words to show: the direction, or "not enough days: N of 7"'),
  days: z.number().int(),
  requiredDays: z.number().int(),
  regression: linear,
  mannKendall: mk,
});
const recentDrop = z
  .object({
    detected: z.boolean(),
    days: z.number().int(),
    rate,
    rated: z.number().int(),
    baseline: z.object({ rate, lower: rate, upper: rate, rated: z.number().int() }),
    verdict: z.string().nullable(),
  })
  .describe('A sharp drop of the last 2–3 days below the 7-day line before them and its 95 % interval (docs/metrics.md)');

const statsResponse = z.object({
  from: z.string(),
  to: z.string(),
  ...measures,
  rolling7DaySatisfaction: interval,
  byCategory: z.record(z.string(), z.object({ positive: z.number().int(), negative: z.number().int() })),
  bySource: z
    .record(z.string(), z.object({ events: z.number().int(), positive: z.number().int(), negative: z.number().int(), positiveRate: rate }))
    .describe("Counted events per source, with the ratings among them: the report's other figures are the users' (explicit, implicit, outcome); reviews and judges show here, apart (docs/metrics.md)"),
  byDay: z.array(z.object({ date: z.string(), total: z.number().int(), positive: z.number().int(), negative: z.number().int(), satisfactionRate: rate, rolling7DaySatisfaction: rate })),
  topIssues: z.array(z.object({ query: z.string(), negativeCount: z.number().int() })),
  errorCategories: z.array(z.object({ category: z.string(), count: z.number().int(), share: z.number() })),
  trend,
  recentDrop,
  groupBy: z.enum([...STATS_GROUP_BY, 'score']).nullable(),
  scores: z
    .array(
      z.object({
        name: z.string(),
        count: z.number().int(),
        mean: z.number().nullable(),
        interval: z.object({ lower: z.number(), upper: z.number() }).nullable().describe('95 % interval of the mean (Student t); null under two values'),
        categories: z.record(z.string(), z.number().int()).describe('Label (stringValue) → count, for categorical and boolean scores'),
      }),
    )
    .optional()
    .describe('With groupBy=score: per score name, the current scores that occurred in the range (docs/scores.md)'),
  groups: z.array(z.object({ key: z.string(), ...measures })),
  baseline: z.object({ source: z.enum(['default', 'workspace']), satisfactionRate: rate, minimumRated: z.number().int(), rated: z.number().int() }),
  source: z.enum(['rollup', 'cells', 'users']).describe('rollup: feedback_metrics_daily; cells: feedback_stats_cells (experimentId, variant, combined filters); users: feedback_user_stats_daily (userId)'),
  live: z.object({ day: z.string(), source: z.enum(['counters', 'rollup']) }).nullable().describe("Where today's ratings came from, when the range includes today"),
  warnings: z.array(z.string()).describe('Why an answer may be empty: e.g. a filter value this workspace never saw (the zeros are still answered)'),
});

/** Phase 4.1 `FeedbackStats`, exactly (satisfactionRate a fraction, as the seed's `positive / total`). */
const feedbackStatsResponse = z.strictObject({
  total: z.number().int(),
  positive: z.number().int(),
  negative: z.number().int(),
  satisfactionRate: z.number(),
  byCategory: z.record(z.string(), z.object({ positive: z.number().int(), negative: z.number().int() })),
  byDay: z.array(z.object({ date: z.string(), positive: z.number().int(), negative: z.number().int() })),
  topIssues: z.array(z.object({ query: z.string(), negativeCount: z.number().int() })),
  trend: z.enum(['improving', 'stable', 'declining']),
});

/**
 * The range of a request: `to` defaults to today (UTC), `from` to 29 days before `to`.
 *
 * @example
 * rangeOf({}, new Date('2026-11-22T10:00:00Z')) // { from: '2026-10-24', to: '2026-11-22' }
 */
export function rangeOf(query: { from?: string | undefined; to?: string | undefined }, now: Date): { from: string; to: string } {
  const to = query.to ?? utcDay(now);
  const toMs = calendarDay(to, 'to');
  const from = query.from ?? utcDay(new Date(toMs - (DEFAULT_RANGE_DAYS - 1) * DAY_MS));
  const fromMs = calendarDay(from, 'from');
  if (fromMs > toMs) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'from: must not be after to', { field: 'from' });
  if ((toMs - fromMs) / DAY_MS + 1 > MAX_RANGE_DAYS) {
    throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', `from: a range covers at most ${MAX_RANGE_DAYS} days`, { field: 'from' });
  }
  return { from, to };
}

/** A YYYY-MM-DD that names a real day (not 2026-02-30), as ms since the epoch. */
function calendarDay(value: string, field: string): number {
  const ms = Date.parse(`${value}T00:00:00Z`);
  if (Number.isNaN(ms) || utcDay(new Date(ms)) !== value) {
    throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', `${field}: not a calendar day`, { field });
  }
  return ms;
}

/** Filters whose value is a response dimension, and its column in feedback_stats_cells. */
/** The warnings for filter values no response of the workspace ever had (any day). */
async function unseenFilterValues(db: AppServices['db'], workspaceId: string, filters: StatsFilters): Promise<string[]> {
  const warnings: string[] = [];
  for (const field of Object.keys(STATS_DIMENSION_COLUMNS) as Array<keyof typeof STATS_DIMENSION_COLUMNS>) {
    const value = filters[field];
    if (value === undefined) continue;
    if (!(await statsDimensionSeen(db, workspaceId, field, value))) warnings.push(`${field} ${JSON.stringify(value)} was never seen in this workspace: the figures are zeros`);
  }
  return warnings;
}

/** The stats report routes. */
export const statsReportRoutes: FastifyPluginAsync<AppServices> = async (app, { db, pipeline, metrics }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  watchWorkspaceRates(metrics, () => workspaceRates(db, new Date()));
  // The stats ranges are heavy reads: on PGlite their statements wait while a request's statement waits.
  const heavy = heavyReadClient(db);
  const readLive: LiveFieldsReader = (workspaceId, d) => pipeline.liveCounters.read(workspaceId, d);

  r.get('/v1/stats', {
    // A heavy read: under the per-workspace and per-process cap (http/heavy-reads.ts).
    config: { heavyRead: true },
    schema: {
      summary: 'Stats over a range: satisfaction with its interval, rolling 7-day, by category, by day, top issues, rates, trend',
      description:
        'Reads the daily rollups (and, for today, the live counters), never events. Rates and interval bounds are percentages 0–100; ' +
        'p-values are fractions. Default range: the last 30 days. experimentId, variant and combined filters read the stats cells, ' +
        'userId the per-user sums; category and userId cannot be combined with other filters.',
      tags: ['stats'],
      querystring: statsQuery,
      response: { 200: statsResponse },
    },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const { from: qFrom, to: qTo, groupBy, ...rest } = request.query;
      const range = rangeOf({ from: qFrom, to: qTo }, new Date());
      const filters: StatsFilters = rest;
      const byScore = groupBy === 'score';
      const grouping = byScore ? null : ((groupBy as StatsGroupBy | undefined) ?? null);
      const filtered = Object.entries(filters).find(([, v]) => v !== undefined)?.[0];
      if (byScore && filtered !== undefined) {
        throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', `${filtered}: cannot be combined with groupBy=score (scores are summed per workspace and range)`, { field: filtered });
      }
      const alone = uncombinableFilter(filters, grouping);
      if (alone !== undefined) {
        const why = alone === 'category' ? 'categories belong to events, the other filters to responses' : 'a user is summed alone, not per response dimension';
        throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', `${alone}: cannot be combined with other filters or a grouping by agent, model, queryType or variant (${why})`, {
          field: alone,
        });
      }
      const report = await loadStatsReport(heavy, readLive, workspaceId, { ...range, groupBy: grouping, filters });
      // An empty answer says why when a filter names a value the workspace never saw (a typo
      // answers zeros, not silence). Checked only when nothing matched: the common case costs nothing.
      const warnings = report.events === 0 && report.responses === 0 && report.total === 0 ? await unseenFilterValues(heavy, workspaceId, filters) : [];
      if (!byScore) return { ...report, warnings };
      // Each interval kept within the values its config allows (archived configs too: their old scores count).
      const [sums, configs] = await Promise.all([scoreSums(heavy, workspaceId, range.from, range.to), listScoreConfigs(heavy, workspaceId, { archived: true })]);
      return { ...report, groupBy: 'score' as const, scores: summarizeScores(sums, new Map(configs.map((c) => [c.name, scoreRange(c)]))), warnings };
    },
  });

  r.get('/api/rag/feedback/stats', {
    // A heavy read: under the per-workspace and per-process cap (http/heavy-reads.ts).
    config: { heavyRead: true },
    schema: {
      summary: 'Phase 4.1 RAG seed: FeedbackStats over a range (default: the last 30 days)',
      description: 'satisfactionRate is the seed\'s positive / total, a fraction 0–1 (the seed\'s unit; feedloop\'s /v1 routes give percentages); 0 without ratings. total counts positive + negative ratings.',
      tags: ['compatibility'],
      querystring: z.strictObject(rangeQuery),
      response: { 200: feedbackStatsResponse },
    },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const range = rangeOf(request.query, new Date());
      const report = await loadStatsReport(heavy, readLive, workspaceId, { ...range, groupBy: null, filters: {} });
      return {
        total: report.total,
        positive: report.positive,
        negative: report.negative,
        // The seed's unit: positive / total as a fraction, from the counts themselves (not the rounded percentage).
        satisfactionRate: report.total > 0 ? report.positive / report.total : 0,
        byCategory: report.byCategory,
        byDay: report.byDay.map((d) => ({ date: d.date, positive: d.positive, negative: d.negative })),
        topIssues: report.topIssues,
        // Phase 4.1's enum has no "not enough days": its contract reads that as stable.
        trend: report.trend.direction === 'not_enough_days' ? 'stable' : report.trend.direction,
      };
    },
  });
};
