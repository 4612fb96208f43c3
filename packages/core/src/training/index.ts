/** Training data: the export formats (SFT, preference pairs, KTO, reward signals) and training batches. */
export { anonymizedFeedback, type AnonymizedFeedback } from './anonymized.js';
export { KTO_DEDUP_KEY, buildRows, groupProvenance, keepRows, type RowProvenance } from './build-rows.js';
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
} from './export-formats.js';
export { ktoRows, type KtoRow } from './kto.js';
export { DEDUP_REASONS, LEFT_OUT_REASONS, exclusionReasons, type ReasonCounts } from './left-out.js';
export { DEFAULT_NLI_WEIGHT, nliSamples, type NliSample } from './nli.js';
export { openaiPreferenceRow, preferencePairs, trlDpoRow, type OpenAiPreferenceRow, type PairSource, type PreferencePair } from './preference.js';
export { tallyPreferences, votedPairs, type PreferenceTally, type VotedPair } from './preference-votes.js';
export { eventSignals, responseSignal, rewardPairRow, type RewardPairRow } from './reward.js';
export { openaiChatRow, promptMessages, sftExamples, trlSftRow, type ChatMessage, type SftExample } from './sft.js';
export { MAJORITY_RATIO, exampleContext, majorityVerdict, trainingExamples, type TrainingExample } from './training-example.js';
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
} from './training-facts.js';
export { checkRow, emptyReport, estimateTokens, rowIssues, type ValidationReport } from './validate-rows.js';
export { MAX_TRAINING_BATCH_THRESHOLD, TRAINING_BATCH_KIND_NAMES, isTrainingBatchKind, type TrainingBatchKindName } from './batch-kinds.js';
export { TRAINING_BATCH_FORMATS, trainingBatchRows, type TrainingBatchFormat } from './batch-rows.js';
