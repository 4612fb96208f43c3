/** Signals: classification, weights, the composite score, learning signals and live counters of the pipeline. */
export { classify } from './classify.js';
export { compositeScore } from './composite-score.js';
export { JUDGE_WEIGHT_RULE, judgeWeight, judgeWeightFactor, storedSignalWeight } from './judge-weight.js';
export { dedupStage } from './dedup.js';
export { documentTallies, effectiveness, type DocumentTally } from './document-tally.js';
export { enrich } from './enrich.js';
export { learningSignal } from './learning-signal.js';
export {
  addCounterDeltas,
  liveCounterFields,
  liveStatsFromFields,
  mergeCounterDeltas,
  utcDay,
  type CounterDeltas,
  type LiveStats,
} from './live-counters.js';
export {
  SIGNAL_CLASSES,
  type Classification,
  type CompositeScore,
  type EnrichedEvent,
  type LearningSignal,
  type Polarity,
  type ResponseContext,
  type ScoredSignal,
  type Severity,
  type SignalClass,
  type SignalConflict,
  type StoredEvent,
} from './signal-types.js';
export { DEFAULT_SIGNAL_WEIGHTS, signalWeight } from './signal-weights.js';
export { decayFactor, weigh } from './weigh.js';
export { ratedCounterFields, ratedFromFields } from './live-counters.js';
