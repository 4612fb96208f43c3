/**
 * @feedloop/core: the pure part of feedloop: event schemas and types, acceptance rules, edit
 * distance, settings, the error registry and the pipeline's stages (classify, weigh, composite
 * score, learning signals, counters, document tallies, daily metrics). No I/O and no `node:` imports, so it runs in
 * browsers too.
 */
export { RAG_FIELD_NAMES, RAG_RATINGS, mapRagFeedbackEntry, ragFeedbackEntrySchema, type RagFeedbackEntry } from './compat/rag-feedback-entry.js';
export {
  RLHF_DATA_SCHEMAS,
  RLHF_FEEDBACK_TYPES,
  RLHF_FIELD_NAMES,
  mapRlhfEvent,
  renameErrorField,
  rlhfEventSchema,
  type RlhfFeedbackType,
} from './compat/rlhf-event.js';
export { TRACE_METADATA_KEYS, mergeTraceUpdates, traceUpdateSchema, validateTraceUpdate, type TraceUpdate } from './compat/trace-update.js';
export { compactJson, contentText, inputText, outputText } from './compat/trace-text.js';
export { langfuseConfigInput, langfuseConfigView, langfuseScoreConfigSchema } from './compat/langfuse-configs.js';
export {
  LANGFUSE_EVENT_TYPES,
  LANGFUSE_SCORE_TYPES,
  SESSION_RESPONSE_PREFIX,
  langfuseBatchSchema,
  langfuseEnvelopeSchema,
  langfuseEventOrder,
  langfuseScoreSchema,
  langfuseScoreView,
  langfuseTracePiece,
  langfuseScoreSource,
  mapLangfuseScore,
  type LangfuseEnvelope,
  type LangfuseEventType,
  type LangfuseScore,
  type MappedScore,
  type ScoreEventView,
} from './compat/langfuse-events.js';
export { summarizeSession, type SessionFeedbackEvent, type SessionSummary } from './compat/session-summary.js';
export { contentFingerprint, judgeFeedback, stableStringify, voteSlot, voterOf, type Judgement, type ResponseFacts } from './acceptance.js';
export { DAY_MS } from './time.js';
export { correctedPair, revisionOf, storedCorrectionPair, type CorrectedPair, type RevisingEvent } from './corrected-pair.js';
export { editDistancePercent, lcsLength } from './edit-distance.js';
export { ERROR_CODES, statusOf, type ErrorBody, type ErrorCode } from './error-codes.js';
export {
  ERROR_CATEGORIES,
  OUTPUT_ISSUES,
  PAYLOAD_SCHEMAS,
  PREFERENCE_TIE,
  RAG_CATEGORIES,
  preferencePayloadSchema,
  type FeedbackPayload,
} from './event-payloads.js';
export {
  EVENT_SCHEMAS,
  feedbackEventSchema,
  idSchema,
  metadataSchema,
  timestampSchema,
  type FeedbackEvent,
  type FeedbackEventInput,
} from './event-schema.js';
export {
  ATTRIBUTABLE_TYPES,
  ATTRIBUTED_SOURCES,
  EVENT_TYPE_SOURCES,
  FEEDBACK_EVENT_TYPES,
  LABEL_ACTION_TYPES,
  SIGNAL_SOURCES,
  THUMBS_TYPES,
  allowedSources,
  isFeedbackEventType,
  isUserSource,
  sourceOfEvent,
  sourceOfType,
  type AttributedSource,
  type FeedbackEventType,
  type SignalSource,
  type TypeSource,
} from './event-types.js';
export { SOURCE_CLAIMANTS, sourceClaimError } from './source-claims.js';
export { classifyIpAddress, type IpAddressClass } from './ip-address.js';
export { ID_PATTERN, LIMITS } from './limits.js';
export { classify } from './signals/classify.js';
export { compositeScore } from './signals/composite-score.js';
export { JUDGE_WEIGHT_RULE, judgeWeight, judgeWeightFactor } from './signals/judge-weight.js';
export { ROLLUP_DIMENSIONS, computeDailyMetrics, type DailyMetrics, type RollupRow } from './stats/daily-metrics.js';
export { dedupStage } from './signals/dedup.js';
export { documentTallies, effectiveness, type DocumentTally } from './signals/document-tally.js';
export { enrich } from './signals/enrich.js';
export { learningSignal } from './signals/learning-signal.js';
export {
  addCounterDeltas,
  liveCounterFields,
  liveStatsFromFields,
  mergeCounterDeltas,
  utcDay,
  type CounterDeltas,
  type LiveStats,
} from './signals/live-counters.js';
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
} from './signals/signal-types.js';
export { DEFAULT_SIGNAL_WEIGHTS, signalWeight } from './signals/signal-weights.js';
export { decayFactor, weigh } from './signals/weigh.js';
export { responseSchema, type ResponseInput, type ResponseRegistration } from './response-schema.js';
export { escapeUnstorable, findUnstorable, unstorableReason, type Unstorable } from './storable-text.js';
export { checkJsonShape, ITEM_SHAPE_LIMITS, markUnfaithfulNumbers, UNFAITHFUL_NUMBER_MARK, type JsonShapeLimits } from './json-limits.js';
export { checkStorable, fieldPath, firstIssue, validateFeedbackEvent, validateResponse, type Validated } from './validate.js';
export {
  resolveWorkspaceSettings,
  workspaceSettingsPatchSchema,
  workspaceSettingsSchema,
  type WorkspaceSettings,
  type WorkspaceSettingsInput,
} from './workspace-settings.js';
export {
  chiSquareCdf,
  normalCdf,
  normalQuantile,
  studentTCdf,
  studentTQuantile,
  twoSidedTPValue,
  twoSidedZPValue,
} from './stats/distributions.js';
export { wilsonInterval, type ProportionInterval } from './stats/wilson.js';
export {
  ALERT_RULE_KINDS,
  ALERT_SEVERITIES,
  MAX_ALERT_RULES,
  MAX_BASELINE_DAYS,
  MAX_WINDOW_HOURS,
  SCORE_METRIC_PREFIX,
  JUDGE_AGREEMENT_METRIC_PREFIX,
  JUDGE_AGREEMENT_STATISTICS,
  DEFAULT_JUDGE_WINDOW_DAYS,
  DEFAULT_JUDGE_MIN_SAMPLE,
  MAX_JUDGE_WINDOW_DAYS,
  alertRuleSchema,
  alertRuleSetSchema,
  defaultAlertRules,
  judgeRuleEvaluatorId,
  type JudgeAgreementStatistic,
  type AlertRule,
  type AlertRuleInput,
  type AlertRuleKind,
  type AlertSeverity,
} from './alerts/alert-rules.js';
export { alertFingerprint } from './alerts/alert-fingerprint.js';
export { HOUR_MS, baselineStart, expectedInWindow, sumWindow, windowStart, type HourlyCounts, type WindowCounts } from './alerts/alert-window.js';
export {
  evaluateAlerts,
  observe,
  scoreWindowKey,
  judgeWindowKey,
  type JudgeWindow,
  type AlertChange,
  type AlertInput,
  type Observation,
  type OpenAlert,
  type RegisteredCounts,
} from './alerts/evaluate-alerts.js';
export { toQualityAlert, type QualityAlert, type QualityAlertType } from './compat/quality-alert.js';
export {
  EVENT_SAMPLE_SIZE,
  classifyCorrection,
  countCorrectionPatterns,
  eventSample,
  isSqlCorrection,
  sqlCorrectionsBy,
  type ClassifiedCorrection,
  type CorrectionPattern,
  type CorrectionText,
  type EventSample,
  type SqlCorrectionGroup,
} from './insights/correction-patterns.js';
export {
  RANKING_MIN_SAMPLE,
  highestEscalation,
  lowestSatisfaction,
  type EscalationRank,
  type EscalationTotals,
  type RateWithInterval,
  type Ranking,
  type RatingTotals,
  type SatisfactionRank,
} from './insights/rankings.js';
export { SQL_CHANGE_KINDS, loadSqlGrammars, looksLikeSql, sqlChanges, sqlTables, type SqlChange, type SqlChangeKind, type SqlGrammars } from './insights/sql-change.js';
export { TEXT_EDIT_KINDS, textEditKinds, wordLcsLength, words, type TextEditKind } from './insights/text-edit.js';
export { STOP_WORDS } from './insights/stop-words.js';
export {
  DEFAULT_MIN_THEME_SUPPORT,
  MAX_PHRASE_WORDS,
  commentPhrases,
  risingThemes,
  type CommentText,
  type RisingTheme,
} from './insights/themes.js';
export {
  DEFAULT_CONTROL,
  DEFAULT_EXPERIMENT_METRIC,
  DEFAULT_EXPERIMENT_MIN_SAMPLE,
  EXPERIMENT_METRICS,
  defaultExperimentDefinition,
  experimentDefinitionSchema,
  type ExperimentDefinition,
  type ExperimentMetric,
} from './experiment-definition.js';
export { statisticMean, statisticVariance, type SampleStatistic } from './stats/sample-statistic.js';
export {
  DEFAULT_ALPHA,
  DEFAULT_SEQUENTIAL_TUNING,
  effectMoments,
  sequentialTTest,
  welchTTest,
  type EffectMoments,
  type FrequentistResult,
} from './stats/relative-lift.js';
export { fisherExactTest, normalApproximationFails, proportionDifferenceInterval } from './stats/fisher-exact.js';
export { DEFAULT_PRIOR, bayesianEffectTest, type BayesianResult, type GaussianPrior } from './stats/bayesian-effect.js';
export { SRM_THRESHOLD, sampleRatioMismatch, type SampleRatioResult } from './stats/sample-ratio.js';
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
} from './stats/experiment-analysis.js';
export {
  NO_EXPERIMENT_FACTS,
  addFacts,
  emptyFactTotals,
  experimentFacts,
  type ExperimentFacts,
  type FactTotals,
} from './stats/experiment-facts.js';
export { meanOf, percentOf, type RegisteredResponse } from './stats/daily-metrics.js';
export { RATING_TYPES, addSums, emptySums, sumsOf, type StatsSums, type SummedEvent, type SummedResponse } from './stats/stats-sums.js';
export { MAX_ISSUE_QUERY_LENGTH, computeStatsCells, issueCounts, normalizeQuery, userSums, type CellCoordinates, type StatsCell, type StatsCellKey } from './stats/stats-cells.js';
export { ratedCounterFields, ratedFromFields } from './signals/live-counters.js';
export { DROP_BASELINE_DAYS, DROP_MIN_BASELINE_RATED, DROP_MIN_RECENT_RATED, DROP_WINDOWS, recentDropOf, type DayRatings, type RecentDrop } from './stats/recent-drop.js';
export { TREND_ALPHA, TREND_MIN_DAYS, linearTrend, mannKendall, trendOf, type LinearTrend, type MannKendall, type Trend } from './stats/trend.js';
export { isoWeekOf, splitIntoWeeks, type DayRange, type WeekSplit } from './stats/week-ranges.js';
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
} from './stats/feedback-stats.js';
export { anonymizedFeedback, type AnonymizedFeedback } from './training/anonymized.js';
export { KTO_DEDUP_KEY, buildRows, groupProvenance, keepRows, type RowProvenance } from './training/build-rows.js';
// Datasets (issue 27): versioned sets of responses with their expected outputs.
export {
  DATASET_CHANGE_VIAS,
  MAX_DATASET_DESCRIPTION_LENGTH,
  MAX_DATASET_FILTER_ITEMS,
  MAX_DATASET_ITEM_IDS,
  MAX_DATASET_NAME_LENGTH,
  datasetInputSchema,
  datasetItemsInputSchema,
  datasetResponseIdSchema,
  type DatasetChangeVia,
  type DatasetInput,
  type DatasetItemsInput,
} from './datasets/dataset-schema.js';
export { EXPECTED_SOURCES, expectedOutputOf, type ExpectedCandidate, type ExpectedOutput, type ExpectedSource } from './datasets/expected-output.js';
export { datasetKtoRows, datasetRows } from './datasets/dataset-rows.js';
export {
  DEFAULT_EXPORT_OPTIONS,
  DEFAULT_MAX_EXAMPLE_TOKENS,
  DEFAULT_TOKEN_BUDGET,
  EXPORT_FORMATS,
  SIGNAL_KINDS,
  TRL_STYLES,
  emptyTally,
  isExportFormat,
  type ExcludedCounts,
  type ExportFormat,
  type ExportOptions,
  type ExportTally,
} from './training/export-formats.js';
export { ktoRows, type KtoRow } from './training/kto.js';
export { DEDUP_REASONS, LEFT_OUT_REASONS, exclusionReasons, type ReasonCounts } from './training/left-out.js';
export { DEFAULT_NLI_WEIGHT, nliSamples, type NliSample } from './training/nli.js';
export { openaiPreferenceRow, preferencePairs, trlDpoRow, type OpenAiPreferenceRow, type PairSource, type PreferencePair } from './training/preference.js';
export { tallyPreferences, votedPairs, type PreferenceTally, type VotedPair } from './training/preference-votes.js';
export { eventSignals, responseSignal, rewardPairRow, type RewardPairRow } from './training/reward.js';
export { openaiChatRow, promptMessages, sftExamples, trlSftRow, type ChatMessage, type SftExample } from './training/sft.js';
export { MAJORITY_RATIO, exampleContext, majorityVerdict, trainingExamples, type TrainingExample } from './training/training-example.js';
export {
  NEGATIVE_RATING_MAX,
  POSITIVE_RATING_MIN,
  corrections,
  eventVerdict,
  judgedResponses,
  responseVerdict,
  sameText,
  type ConversationTurn,
  type CorrectionText as TrainingCorrectionText,
  type EventVerdict,
  type ExportEvent,
  type ExportResponse,
  type PromptGroup,
  type ResponseRecord,
  type ResponseVerdict,
} from './training/training-facts.js';
export { checkRow, emptyReport, estimateTokens, rowIssues, type ValidationReport } from './training/validate-rows.js';
// Privacy (issue 11): consent, PII redaction, sampling, k-anonymity.
export { NO_CONSENT, consentDecision, consentInputSchema, mergeConsent, type Consent, type ConsentDecision, type ConsentInput } from './privacy/consent.js';
export { findPii, ibanValid, luhnValid, redactPii, redactValue, type PiiKind, type PiiMatch, type PatternMatcher, type Redaction, type RedactionPattern } from './privacy/redact.js';
export { sampleDecision, unitHash } from './privacy/sampling.js';
export { suppressBaselineParts, suppressSmallGroups, type BaselinePart, type BaselineTotals, type Suppressed } from './privacy/k-anonymity.js';
export { SHORTENED_RATIO, STYLE_INSTRUCTIONS, styleChanges, styleFeatures, type StyleChange, type StyleFeatures } from './memory/style-features.js';
export { COMPLAINT_EXAMPLE_LENGTH, MEMORY_FACTS_VERSION, memoryFacts, type MemoryEvent, type MemoryFacts } from './memory/memory-facts.js';
export { MEMORY_DEFAULTS, contextText, decayWeight, memoryFromFacts, userMemory, type MemoryItem, type MemoryOptions, type UserMemory } from './memory/user-memory.js';
export { TARGET_KINDS, registeredTargetSchema, type TargetKind, type TargetRegistration } from './targets/registered-target.js';
export {
  DEFAULT_CORRECTED_CONFIDENCE,
  DEFAULT_MODEL_CONFIDENCE,
  HUMAN_EDGE_WEIGHT,
  MODEL_EDGE_WEIGHT,
  claimConfidence,
  claimEdge,
  relationPolarity,
  type ClaimConfidence,
  type ClaimEdge,
} from './targets/claim-confidence.js';
export { TARGET_CAP_PER_VOTER, targetState, type TargetDecision, type TargetEvent, type TargetHistoryEntry, type TargetState } from './targets/target-state.js';
export { betaQuantile, binomialUpperTail } from './stats/distributions.js';
export { documentScore, documentSource, type DocumentCounts, type DocumentScore } from './documents/document-score.js';
export { MAX_TRAINING_BATCH_THRESHOLD, TRAINING_BATCH_KIND_NAMES, isTrainingBatchKind, type TrainingBatchKindName } from './training/batch-kinds.js';
export { TRAINING_BATCH_FORMATS, trainingBatchRows, type TrainingBatchFormat } from './training/batch-rows.js';
export { previewAlerts, type HourlyRegistered, type PreviewedAlert } from './alerts/preview-alerts.js';
export { judgeWindowAt, judgeWindowOf, judgeWindowReplay, type TimedJudgeAnswer, type TimedLabelEvent } from './alerts/judge-window.js';
export { FIGURE_SIGNIFICANT_DIGITS, roundFigure, roundingReplacer } from './round-figures.js';
export { chunkPhrases, type TaggedToken } from './insights/phrase-chunks.js';
export { DEFAULT_PHRASE_THEME_SUPPORT, NEAR_DUPLICATE_JACCARD, SEMANTIC_THEME_COSINE, SENTIMENT_SIDE, THEME_RISE_ALPHA, commentPolarity, nearDuplicates, phraseThemes, semanticSameTheme, type PhraseComment, type PhraseTheme, type ThemeOptions } from './insights/phrase-themes.js';
export { ALERT_EVENT_TYPES, OUTBOUND_EVENT_TYPES, outboundMessageId, type AlertMessageData, type OutboundEventType, type OutboundMessage, type StreamSink } from './outbound-message.js';
export { langSmithInputText, langSmithOutputText } from './compat/langsmith-text.js';
export { langSmithRunSchema, langSmithTime, mapLangSmithRun, type LangSmithRun, type LangSmithRunMapping, type LangSmithTraceFields } from './compat/langsmith-run.js';
export {
  checkLangSmithFeedbackConfig,
  isLangSmithJudge,
  langSmithEvaluatorId,
  langSmithCorrectionText,
  langSmithFeedbackConfigSchema,
  langSmithFeedbackEvents,
  langSmithFeedbackSchema,
  langSmithFeedbackState,
  langSmithFeedbackUpdateSchema,
  scoreConfigOfLangSmith,
  updatedLangSmithFeedback,
  type LangSmithFeedbackConfig,
  type LangSmithFeedbackInput,
  type LangSmithFeedbackState,
  type LangSmithFeedbackTarget,
  type LangSmithFeedbackUpdate,
} from './compat/langsmith-feedback.js';
export { assembleLangSmithMultipart, type LangSmithMultipart, type MultipartPart } from './compat/langsmith-multipart.js';
export { OtlpShapeError, anyValue, readOtlpTraceRequest, type OtelAttributes, type OtelRequestSpans, type OtelSpan, type OtelSpanEvent, type OtelValue } from './otel/otlp-request.js';
export { hasLlmContent, spanContent, type SpanContent, type SpanIo } from './otel/span-content.js';
export { jsonish, spanMessages, toMessages, type SpanMessage } from './otel/span-messages.js';
export { toTracePieces, traceUpdatesOf, type OtelTraceBatch, type OtelTraceFields, type OtelTraceUpdate } from './otel/trace-updates.js';
export {
  DEFAULT_SCORE_CONFIGS,
  SCORE_DATA_TYPES,
  SCORE_MAPPINGS,
  checkScoreConfig,
  scoreConfigInputSchema,
  scoreConfigPatchSchema,
  scoreNameSchema,
  type ScoreConfig,
  type ScoreConfigInput,
  type ScoreConfigPatch,
  type ScoreConfigProblem,
  type ScoreDataType,
  type ScoreMapping,
} from './scores/score-config.js';
export { mapScore, scoreOf, storedScoreOf, validateScore, type ScoreCheck, type ScoreEvent, type ScorePayload } from './scores/score-check.js';
export { meanInterval, scoreRange, scoreReward, summarizeScores, type RewardConfig, type ScoreRange, type ScoreSums, type ScoreSummary } from './scores/score-summary.js';
// Agreement and calibration statistics (issues 27 and 28): pure, each bootstrappable.
export { DEFAULT_RESAMPLES, MIN_RESAMPLES, bootstrapEstimate, bootstrapEstimates, percentile, resamplesWithin, type BootstrapOptions, type Estimate } from './agreement/bootstrap.js';
export { categoriesOf, compareCategories, type Category, type MaybeCategory } from './agreement/categories.js';
export { cohenKappa, cohenKappaStatistic, kappaOfTable, type RatingPair } from './agreement/cohen-kappa.js';
export { confusionMatrix, type ConfusionMatrix } from './agreement/confusion-matrix.js';
export { fleissKappa, fleissKappaStatistic } from './agreement/fleiss-kappa.js';
export {
  judgeCalibration,
  type CalibrationDisagreement,
  type CalibrationFigures,
  type CalibrationKind,
  type CalibrationOptions,
  type CalibrationPair,
  type JudgeCalibration,
} from './agreement/judge-calibration.js';
export { krippendorffAlpha, krippendorffAlphaStatistic, type AlphaLevel } from './agreement/krippendorff-alpha.js';
export { majorityLabel, median } from './agreement/majority.js';
export { percentAgreement, percentAgreementStatistic } from './agreement/percent-agreement.js';
export { positionBias, type PositionBias } from './agreement/position-bias.js';
export {
  queueAgreement,
  type AgreementReview,
  type PairKappa,
  type Proportion,
  type QueueAgreement,
  type ReviewerAgreement,
  type ScoreAlpha,
} from './agreement/queue-agreement.js';
export { DEFAULT_SEED, seededIndexDraw } from './agreement/seeded-random.js';
export { PAIRWISE_SIDES, agreementReviewOf, type StoredReviewFacts } from './agreement/stored-review.js';
export { spearmanRho, spearmanStatistic } from './agreement/spearman.js';
export { evaluate, summedStatistic, type SummedStatistic, type UnitRow } from './agreement/summed-statistic.js';
export { weightedKappa, weightedKappaStatistic, type KappaWeights } from './agreement/weighted-kappa.js';
export {
  DEFAULT_RESERVATION_SECONDS,
  MAX_INSTRUCTIONS_LENGTH,
  MAX_QUEUE_MEMBERS,
  MAX_QUEUE_RULES,
  MAX_RESERVATION_SECONDS,
  MAX_REVIEWERS_PER_ITEM,
  REVIEW_QUEUE_KINDS,
  pairOrder,
  queueRuleSchema,
  reviewQueueInputSchema,
  reviewQueuePatchSchema,
  rubricSchema,
  sampleKeeps,
  type QueueRule,
  type ReviewQueueInput,
  type ReviewQueueKind,
  type ReviewQueuePatch,
  type Rubric,
} from './review/review-queue.js';
export {
  REVIEW_VERDICTS,
  checkPairwiseReview,
  checkSingleReview,
  pairwiseReviewSchema,
  singleReviewEvents,
  singleReviewFigures,
  singleReviewSchema,
  type PairwiseReview,
  type ReviewEventPart,
  type ReviewProblem,
  type ReviewVerdict,
  type SingleReview,
} from './review/review-body.js';
export {
  EVALUATOR_DEFAULTS,
  EVALUATOR_KINDS,
  EVALUATOR_LIMITS,
  EVALUATOR_OUTPUTS,
  versionChanges,
  type EvaluatorAnswerSettings,
  type EvaluatorKind,
  type EvaluatorOutput,
} from './evaluators/evaluator-definition.js';
export { judgeEventId, readJudgeAnswer, type AnswerContext, type JudgeEventPart, type ReadAnswer } from './evaluators/judge-answer.js';
export {
  calibrationKindOf,
  calibrationPairs,
  humanPairLabel,
  humanRating,
  humanResponseLabel,
  judgeLabel,
  type JudgedUnit,
  type LabelEvent,
} from './evaluators/calibration-labels.js';
