/** Compatibility with the ecosystem's wires: the seeds' formats, Langfuse, LangSmith and trace text. */
export { RAG_FIELD_NAMES, RAG_RATINGS, mapRagFeedbackEntry, ragFeedbackEntrySchema, type RagFeedbackEntry } from './rag-feedback-entry.js';
export {
  RLHF_DATA_SCHEMAS,
  RLHF_FEEDBACK_TYPES,
  RLHF_FIELD_NAMES,
  mapRlhfEvent,
  renameErrorField,
  rlhfEventSchema,
  type RlhfFeedbackType,
} from './rlhf-event.js';
export { TRACE_METADATA_KEYS, mergeTraceUpdates, traceUpdateSchema, validateTraceUpdate, type TraceUpdate } from './trace-update.js';
export { compactJson, contentText, inputText, outputText } from './trace-text.js';
export { langfuseConfigInput, langfuseConfigView, langfuseScoreConfigSchema } from './langfuse-configs.js';
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
} from './langfuse-events.js';
export { summarizeSession, type SessionFeedbackEvent, type SessionSummary } from './session-summary.js';
export { toQualityAlert, type QualityAlert, type QualityAlertType } from './quality-alert.js';
export { langSmithInputText, langSmithOutputText } from './langsmith-text.js';
export { langSmithRunSchema, langSmithTime, mapLangSmithRun, type LangSmithRun, type LangSmithRunMapping, type LangSmithTraceFields } from './langsmith-run.js';
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
} from './langsmith-feedback.js';
export { assembleLangSmithMultipart, type LangSmithMultipart, type MultipartPart } from './langsmith-multipart.js';
