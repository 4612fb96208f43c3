/**
 * @feedloop/core: the pure part of feedloop: event schemas and types, acceptance rules, edit
 * distance, settings, the error registry and the pipeline's stages (classify, weigh, composite
 * score, learning signals, counters, document tallies, daily metrics). No I/O and no `node:` imports, so it runs in
 * browsers too.
 */
export * from './compat/index.js';
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
export * from './signals/index.js';
export * from './stats/index.js';
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
export * from './training/index.js';
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
export { documentScore, documentSource, type DocumentCounts, type DocumentScore } from './documents/document-score.js';
export { previewAlerts, type HourlyRegistered, type PreviewedAlert } from './alerts/preview-alerts.js';
export { judgeWindowAt, judgeWindowOf, judgeWindowReplay, type TimedJudgeAnswer, type TimedLabelEvent } from './alerts/judge-window.js';
export { FIGURE_SIGNIFICANT_DIGITS, roundFigure, roundingReplacer } from './round-figures.js';
export { chunkPhrases, type TaggedToken } from './insights/phrase-chunks.js';
export { DEFAULT_PHRASE_THEME_SUPPORT, NEAR_DUPLICATE_JACCARD, SEMANTIC_THEME_COSINE, SENTIMENT_SIDE, THEME_RISE_ALPHA, commentPolarity, nearDuplicates, phraseThemes, semanticSameTheme, type PhraseComment, type PhraseTheme, type ThemeOptions } from './insights/phrase-themes.js';
export { ALERT_EVENT_TYPES, OUTBOUND_EVENT_TYPES, outboundMessageId, type AlertMessageData, type OutboundEventType, type OutboundMessage, type StreamSink } from './outbound-message.js';
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
export * from './agreement/index.js';
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
