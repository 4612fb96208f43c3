/**
 * LangSmith feedback (`POST /langsmith/feedback`, the `feedback.<id>` parts of
 * `/runs/multipart`, a presigned token's POST) mapped onto feedloop events (issue 26 §3):
 * `key` + `score`/`value` is a `score` named by the key (§1's configs map `user_score` and the
 * like to thumbs), `comment` is that event's comment (a `comment` event when there is no score),
 * `correction` is a `correction` event, and `feedback_source.type: "model"` is a judge's.
 */
import { z } from 'zod';
import { idSchema, metadataSchema } from '../event-schema.js';
import { LIMITS } from '../limits.js';
import type { ErrorBody } from '../error-codes.js';
import { checkScoreConfig, scoreConfigInputSchema, type ScoreConfigInput } from '../scores/score-config.js';
import { langSmithOutputText } from './langsmith-text.js';

/** LangSmith's feedback config: the shape of a key's values. */
export const langSmithFeedbackConfigSchema = z.looseObject({
  type: z.enum(['continuous', 'categorical', 'freeform']),
  min: z.number().finite().nullish(),
  max: z.number().finite().nullish(),
  categories: z
    .array(z.looseObject({ value: z.number().finite(), label: z.string().max(LIMITS.labelMaxLength).nullish() }))
    .max(100)
    .nullish(),
});

/** A feedback config as a client sends it. */
export type LangSmithFeedbackConfig = z.output<typeof langSmithFeedbackConfigSchema>;

const score = z.union([z.number().finite(), z.boolean()]);
const value = z.union([z.number().finite(), z.boolean(), z.string().max(LIMITS.textMaxLength), metadataSchema]);
const correction = z.union([z.string().max(LIMITS.textMaxLength), metadataSchema]);
const source = z.looseObject({ type: z.string().max(LIMITS.labelMaxLength).nullish(), metadata: metadataSchema.nullish() });

/**
 * A feedback as the SDKs create it. The id takes at most 100 characters: the events made of it
 * add a suffix (`:r2`, `:correction`) within feedloop's 128.
 */
export const langSmithFeedbackSchema = z.looseObject({
  id: idSchema.max(100).optional(),
  run_id: idSchema.nullish(),
  trace_id: idSchema.nullish(),
  key: z.string().min(1).max(LIMITS.labelMaxLength),
  score: score.nullish(),
  value: value.nullish(),
  comment: z.string().max(LIMITS.textMaxLength).nullish(),
  correction: correction.nullish(),
  feedback_source: source.nullish(),
  feedback_config: langSmithFeedbackConfigSchema.nullish(),
  /** The JS SDK's spelling (it sends the camelCase name as is). */
  feedbackConfig: langSmithFeedbackConfigSchema.nullish(),
});

/** A feedback as a client sends it. */
export type LangSmithFeedbackInput = z.output<typeof langSmithFeedbackSchema>;

/** `PATCH /feedback/:id`: the fields that change. */
export const langSmithFeedbackUpdateSchema = z.looseObject({
  score: score.nullish(),
  value: value.nullish(),
  comment: z.string().max(LIMITS.textMaxLength).nullish(),
  correction: correction.nullish(),
  feedback_config: langSmithFeedbackConfigSchema.nullish(),
  feedbackConfig: langSmithFeedbackConfigSchema.nullish(),
});

/** A feedback update as a client sends it. */
export type LangSmithFeedbackUpdate = z.output<typeof langSmithFeedbackUpdateSchema>;

/** What a feedback holds, as stored and shown back (`GET /feedback/:id`). */
export interface LangSmithFeedbackState {
  key: string;
  score: number | boolean | null;
  value: number | boolean | string | Record<string, unknown> | null;
  comment: string | null;
  correction: string | Record<string, unknown> | null;
  feedback_source: { type: string; metadata: Record<string, unknown> };
}

/**
 * The state of a new feedback from what the client sent.
 *
 * @example
 * langSmithFeedbackState({ key: 'user_score', score: 1 }) // { key: 'user_score', score: 1, value: null, …, feedback_source: { type: 'api', metadata: {} } }
 */
export function langSmithFeedbackState(input: LangSmithFeedbackInput): LangSmithFeedbackState {
  return {
    key: input.key,
    score: input.score ?? null,
    value: input.value ?? null,
    comment: input.comment ?? null,
    correction: input.correction ?? null,
    feedback_source: { type: input.feedback_source?.type ?? 'api', metadata: input.feedback_source?.metadata ?? {} },
  };
}

/**
 * A state with an update applied: each field sent (and not null) replaces the old one, as the
 * SDKs' `updateFeedback` means it.
 */
export function updatedLangSmithFeedback(state: LangSmithFeedbackState, update: LangSmithFeedbackUpdate): LangSmithFeedbackState {
  return {
    ...state,
    ...(update.score !== undefined && update.score !== null ? { score: update.score } : {}),
    ...(update.value !== undefined && update.value !== null ? { value: update.value } : {}),
    ...(update.comment !== undefined && update.comment !== null ? { comment: update.comment } : {}),
    ...(update.correction !== undefined && update.correction !== null ? { correction: update.correction } : {}),
  };
}

const invalid = (field: string, message: string): ErrorBody => ({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field, message: `${field}: ${message}` });

const numeric = (v: unknown): number | undefined => (typeof v === 'number' ? v : typeof v === 'boolean' ? (v ? 1 : 0) : undefined);

/**
 * Checks a feedback's score against its feedback config (LangSmith refuses a score outside a
 * continuous key's bounds or a categorical key's values); undefined when it fits.
 *
 * @example
 * checkLangSmithFeedbackConfig({ score: 7 }, { type: 'continuous', min: 0, max: 1 }) // { code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field: 'score', … }
 */
export function checkLangSmithFeedbackConfig(state: Pick<LangSmithFeedbackState, 'score' | 'value'>, config: LangSmithFeedbackConfig | null | undefined): ErrorBody | undefined {
  if (!config) return undefined;
  const n = numeric(state.score) ?? numeric(state.value);
  const field = state.score !== null && state.score !== undefined ? 'score' : 'value';
  if (config.type === 'continuous' && n !== undefined) {
    if (config.min !== null && config.min !== undefined && n < config.min) return invalid(field, `${n} is below the feedback config's min ${config.min}`);
    if (config.max !== null && config.max !== undefined && n > config.max) return invalid(field, `${n} is above the feedback config's max ${config.max}`);
  }
  if (config.type === 'categorical' && n !== undefined && config.categories && !config.categories.some((c) => c.value === n)) {
    return invalid(field, `${n} is none of the feedback config's categories (${config.categories.map((c) => c.value).join(', ')})`);
  }
  return undefined;
}

/**
 * The score config a LangSmith feedback config describes, for a key the workspace has no config
 * of (LangSmith keeps a key's config from its first feedback; feedloop keeps it as the key's score
 * config, so later scores are checked and summarized against it). `continuous` is numeric with
 * its bounds, `categorical` categorical with its values (a missing label is the value);
 * `freeform` and a config feedloop's checks refuse (bounds out of order, repeated values) give none.
 *
 * @example
 * scoreConfigOfLangSmith('correctness', { type: 'continuous', min: 0, max: 1 })
 * // { name: 'correctness', dataType: 'numeric', min: 0, max: 1, description: 'From a LangSmith feedback config' }
 */
export function scoreConfigOfLangSmith(key: string, config: LangSmithFeedbackConfig): ScoreConfigInput | undefined {
  const description = 'From a LangSmith feedback config';
  let input: unknown;
  if (config.type === 'continuous') {
    input = { name: key, dataType: 'numeric', description, ...(config.min == null ? {} : { min: config.min }), ...(config.max == null ? {} : { max: config.max }) };
  } else if (config.type === 'categorical' && config.categories && config.categories.length > 0) {
    input = { name: key, dataType: 'categorical', description, categories: config.categories.map((c) => ({ value: c.value, label: c.label ?? String(c.value) })) };
  }
  const parsed = input === undefined ? undefined : scoreConfigInputSchema.safeParse(input);
  return parsed?.success && checkScoreConfig(parsed.data) === undefined ? parsed.data : undefined;
}

/**
 * The text a correction holds: a string as is; an object's `output`, `answer` or `text`;
 * otherwise compact JSON.
 *
 * @example
 * langSmithCorrectionText({ output: 'Paris' }) // 'Paris'
 */
export function langSmithCorrectionText(c: string | Record<string, unknown>): string {
  if (typeof c === 'string') return c;
  return langSmithOutputText(c) ?? JSON.stringify(c);
}

/** Where a feedback's events go and what they are named. */
export interface LangSmithFeedbackTarget {
  /** The response (the run's trace). */
  responseId: string;
  /** The run the feedback names (kept on the events). */
  runId: string;
  /** The LangSmith feedback id. */
  feedbackId: string;
  /** The event id of this revision (the feedback id, then `<id>:r2`, … after each PATCH). */
  eventId: string;
}

/**
 * The feedloop events one LangSmith feedback makes: a `score` (with the comment) when it has a
 * score or value, a `comment` when it has only a comment, and a `correction` when it has one;
 * none for a bare key (the caller refuses it). Unvalidated objects: the caller validates each as
 * any event.
 *
 * @example
 * langSmithFeedbackEvents({ key: 'user_score', score: 1, comment: 'good', … }, { responseId: 'r1', runId: 'r1', feedbackId: 'f1', eventId: 'f1' })
 * // [{ id: 'f1', responseId: 'r1', type: 'score', payload: { name: 'user_score', value: 1, comment: 'good' }, metadata: {…} }]
 */
export function langSmithFeedbackEvents(state: LangSmithFeedbackState, target: LangSmithFeedbackTarget): Record<string, unknown>[] {
  const langsmith: Record<string, unknown> = { feedbackId: target.feedbackId, runId: target.runId, key: state.key, source: state.feedback_source.type };
  if (state.value !== null && typeof state.value === 'object') langsmith.value = state.value;
  // A model's feedback (LangSmith's evaluators, `feedback_source.type: "model"`) is a judge's,
  // naming its evaluator; any other source keeps the type's. LangSmith's own source type stays in
  // the metadata, which a GET answers with.
  const judged = isLangSmithJudge(state);
  const base = {
    responseId: target.responseId,
    ...(judged ? { source: 'judge' } : {}),
    metadata: { source: judged ? 'judge' : state.feedback_source.type, ...(judged ? { evaluatorId: langSmithEvaluatorId(state) } : {}), langsmith },
  };
  const events: Record<string, unknown>[] = [];
  const n = numeric(state.score) ?? numeric(state.value);
  const text = typeof state.value === 'string' ? state.value : undefined;
  const comment = state.comment !== null && state.comment !== '' ? state.comment : undefined;
  const scored = n !== undefined || text !== undefined;
  if (scored) {
    const payload: Record<string, unknown> = { name: state.key };
    if (n !== undefined) payload.value = n;
    if (text !== undefined) payload.stringValue = text;
    if (comment !== undefined) payload.comment = comment;
    events.push({ ...base, id: target.eventId, type: 'score', payload });
  } else if (comment !== undefined) {
    events.push({ ...base, id: target.eventId, type: 'comment', payload: { comment } });
  }
  if (state.correction !== null) {
    events.push({ ...base, id: events.length > 0 ? `${target.eventId}:correction` : target.eventId, type: 'correction', payload: { corrected: langSmithCorrectionText(state.correction) } });
  }
  return events;
}

/**
 * The evaluator a model's feedback names: `feedback_source.metadata.evaluatorId` when the caller
 * put one in its `sourceInfo`, else the evaluator's run (`__run.run_id`, what the SDK's
 * `logEvaluationFeedback` sends), else `langsmith:<key>`.
 *
 * @example
 * langSmithEvaluatorId({ key: 'correctness', feedback_source: { type: 'model', metadata: {} } }) // 'langsmith:correctness'
 */
export function langSmithEvaluatorId(state: Pick<LangSmithFeedbackState, 'key' | 'feedback_source'>): string {
  const m = state.feedback_source.metadata;
  const named = m['evaluatorId'];
  if (typeof named === 'string' && named !== '') return named.slice(0, LIMITS.labelMaxLength);
  const run = m['__run'];
  const runId = typeof run === 'object' && run !== null ? (run as Record<string, unknown>)['run_id'] : undefined;
  if (typeof runId === 'string' && runId !== '') return `langsmith:run:${runId}`.slice(0, LIMITS.labelMaxLength);
  return `langsmith:${state.key}`.slice(0, LIMITS.labelMaxLength);
}

/** Whether a feedback source is a model's (LangSmith's evaluators): feedloop's `judge`. */
export function isLangSmithJudge(state: Pick<LangSmithFeedbackState, 'feedback_source'>): boolean {
  return state.feedback_source.type === 'model';
}
