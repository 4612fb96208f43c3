/** Feedback statistics: sums, daily metrics, satisfaction, trends and their intervals (the stats report, rollups, live counters). */
export { ROLLUP_DIMENSIONS, computeDailyMetrics, type DailyMetrics, type RollupRow } from './daily-metrics.js';
export {
  chiSquareCdf,
  normalCdf,
  normalQuantile,
  studentTCdf,
  studentTQuantile,
  twoSidedTPValue,
  twoSidedZPValue,
} from './distributions.js';
export { wilsonInterval, type ProportionInterval } from './wilson.js';
export { statisticMean, statisticVariance, type SampleStatistic } from './sample-statistic.js';
export {
  DEFAULT_ALPHA,
  DEFAULT_SEQUENTIAL_TUNING,
  effectMoments,
  sequentialTTest,
  welchTTest,
  type EffectMoments,
  type FrequentistResult,
} from './relative-lift.js';
export { fisherExactTest, normalApproximationFails, proportionDifferenceInterval } from './fisher-exact.js';
export { DEFAULT_PRIOR, bayesianEffectTest, type BayesianResult, type GaussianPrior } from './bayesian-effect.js';
export { SRM_THRESHOLD, sampleRatioMismatch, type SampleRatioResult } from './sample-ratio.js';
export {
  VERDICTS,
  analyzeExperiment,
  emptyTotals,
  metricStatistic,
  type Comparison,
  type ExperimentAnalysis,
  type PercentInterval,
  type VariantSummary,
  type VariantTotals,
  type Verdict,
} from './experiment-analysis.js';
export {
  NO_EXPERIMENT_FACTS,
  addFacts,
  emptyFactTotals,
  experimentFacts,
  type ExperimentFacts,
  type FactTotals,
} from './experiment-facts.js';
export { meanOf, percentOf, type RegisteredResponse } from './daily-metrics.js';
export { RATING_TYPES, addSums, compactSums, emptySums, expandSums, sumsOf, type StatsSums, type SummedEvent, type SummedResponse } from './stats-sums.js';
export { MAX_ISSUE_QUERY_LENGTH, computeStatsCells, issueCounts, normalizeQuery, userSums, type CellCoordinates, type StatsCell, type StatsCellKey } from './stats-cells.js';
export { DROP_BASELINE_DAYS, DROP_MIN_BASELINE_RATED, DROP_MIN_RECENT_RATED, DROP_WINDOWS, recentDropOf, type DayRatings, type RecentDrop } from './recent-drop.js';
export { TREND_ALPHA, TREND_MIN_DAYS, linearTrend, mannKendall, trendOf, type LinearTrend, type MannKendall, type Trend } from './trend.js';
export { isoWeekOf, splitIntoWeeks, type DayRange, type WeekSplit } from './week-ranges.js';
export {
  COLD_START_MIN_RATED,
  DEFAULT_BASELINE,
  ROLLING_DAYS,
  STATS_GROUP_BY,
  buildStatsReport,
  daysBetween,
  measuresOf,
  rateInterval,
  weekOf,
  type RateInterval,
  type StatsBaseline,
  type StatsGroupBy,
  type StatsInput,
  type StatsMeasures,
  type StatsReport,
  type SourceMeasures,
} from './feedback-stats.js';
export { betaQuantile, binomialUpperTail } from './distributions.js';
