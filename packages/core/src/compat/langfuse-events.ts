/**
 * Langfuse's ingestion events mapped onto feedloop (issue 26 §2, docs/compat.md): the envelope
 * `{ id, type, timestamp, body }` of `POST /api/public/ingestion`, a trace or generation as a
 * trace piece (`TraceUpdate`), a score as a feedback event. Pure: the route looks up, writes and
 * answers. The wire format is the one the Langfuse server validates
 * (`packages/shared/src/server/ingestion/types.ts` in langfuse/langfuse).
 */
import { z } from 'zod';
import { LIMITS } from '../limits.js';
import type { ErrorBody } from '../error-codes.js';
import { inputText, outputText } from './trace-text.js';
import type { TraceUpdate } from './trace-update.js';

/** The event types the ingestion endpoint takes; others are answered 400 in the 207. */
export const LANGFUSE_EVENT_TYPES = [
  'trace-create',
  'generation-create',
  'generation-update',
  'span-create',
  'span-update',
  'event-create',
  'score-create',
  'sdk-log',
] as const;

/** One of {@link LANGFUSE_EVENT_TYPES}. */
export type LangfuseEventType = (typeof LANGFUSE_EVENT_TYPES)[number];

/** The body of `POST /api/public/ingestion`; anything else is a 400. */
export const langfuseBatchSchema = z.object({ batch: z.array(z.unknown()), metadata: z.unknown().optional() });

const body = z.record(z.string(), z.unknown());

/** One event of a batch: its envelope (the id the 207 answers by) and its body. */
export const langfuseEnvelopeSchema = z.object({
  id: z.string().min(1).max(800),
  type: z.enum(LANGFUSE_EVENT_TYPES),
  timestamp: z.string().optional(),
  body,
});

/** A validated envelope. */
export type LangfuseEnvelope = z.output<typeof langfuseEnvelopeSchema>;

/**
 * Where an event goes in the batch's order: creates before updates (a batch may hold a
 * generation's update before its create), scores last, so a score finds its trace.
 *
 * @example
 * langfuseEventOrder('trace-create') < langfuseEventOrder('generation-update') // true
 */
export function langfuseEventOrder(type: LangfuseEventType): number {
  if (type === 'trace-create') return 0;
  if (type.endsWith('-create') && type !== 'score-create') return 1;
  if (type.endsWith('-update')) return 2;
  return 3;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** A metadata value as an object: Langfuse takes any JSON there, feedloop an object. */
function metadataOf(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  return { metadata: value };
}

/** Copies the fields that are given (Langfuse sends null for "not set"). */
function given<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== null)) as Partial<T>;
}

/**
 * The trace piece a trace or observation event gives, or `undefined` when it names no trace (an
 * observation without `traceId`; `observationTraces` resolves updates by their create's trace).
 * A trace gives its own fields; a generation gives the model and, fill-only, its input and output
 * (the trace's own win); a span or event only makes sure its trace exists.
 *
 * @example
 * langfuseTracePiece('trace-create', { id: 't1', input: 'Hi?', userId: 'u1', metadata: { variant: 'B' } })
 * // { id: 't1', query: 'Hi?', userId: 'u1', variant: 'B', metadata: { variant: 'B' } }
 */
export function langfuseTracePiece(type: LangfuseEventType, b: Record<string, unknown>, observationTraces: ReadonlyMap<string, string> = new Map()): TraceUpdate | undefined {
  if (type === 'trace-create') {
    const id = str(b.id);
    if (id === undefined) return undefined;
    const metadata = metadataOf(b.metadata);
    const piece = given({
      id,
      query: inputText(b.input),
      answer: outputText(b.output),
      userId: str(b.userId),
      sessionId: str(b.sessionId),
      metadata,
      experimentId: str(metadata?.experimentId),
      variant: str(metadata?.variant),
      tags: Array.isArray(b.tags) && b.tags.length > 0 ? (b.tags as string[]) : undefined,
      release: str(b.release),
      version: str(b.version),
      environment: str(b.environment),
      createdAt: str(b.timestamp),
    });
    return piece as TraceUpdate;
  }
  if (type === 'score-create' || type === 'sdk-log') return undefined;
  const traceId = str(b.traceId) ?? observationTraces.get(str(b.id) ?? '');
  if (traceId === undefined) return undefined;
  if (!type.startsWith('generation-')) return { id: traceId, fillOnly: true };
  return { id: traceId, fillOnly: true, ...given({ query: inputText(b.input), answer: outputText(b.output), model: str(b.model) }) } as TraceUpdate;
}

/** Langfuse's score data types. */
export const LANGFUSE_SCORE_TYPES = ['NUMERIC', 'CATEGORICAL', 'BOOLEAN', 'TEXT', 'CORRECTION'] as const;

/** A Langfuse score body (`score-create`, `POST /api/public/scores`), as far as feedloop reads it. */
export const langfuseScoreSchema = z.object({
  id: z.string().min(1).max(800).nullish(),
  name: z.string().min(1),
  value: z.union([z.number(), z.string(), z.boolean()]),
  dataType: z.enum(LANGFUSE_SCORE_TYPES).nullish(),
  traceId: z.string().min(1).nullish(),
  sessionId: z.string().min(1).nullish(),
  observationId: z.string().nullish(),
  datasetRunId: z.string().nullish(),
  comment: z.string().nullish(),
  metadata: z.unknown().optional(),
  source: z.enum(['API', 'EVAL', 'ANNOTATION']).nullish(),
  configId: z.string().nullish(),
  environment: z.string().nullish(),
});

/** A validated Langfuse score body. */
export type LangfuseScore = z.output<typeof langfuseScoreSchema>;

/** The prefix of the response that holds a session's scores (a score aimed at a session, not a trace). */
export const SESSION_RESPONSE_PREFIX = 'session:';

/** A score as feedloop stores it: the response it is about, and the event (without its id) to submit. */
export type MappedScore =
  | { ok: true; responseId: string; sessionTarget?: string; event: Record<string, unknown> }
  | { ok: false; status: number; error: ErrorBody };

const bad = (message: string, field: string): MappedScore => ({ ok: false, status: 400, error: { code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', message: `${field}: ${message}`, field } });

/**
 * Maps a Langfuse score onto a feedloop feedback event: BOOLEAN, NUMERIC and CATEGORICAL become a
 * `score` (its config of that name validates and maps it, `mapsTo`), TEXT a `comment`, CORRECTION
 * a `correction` of the response's answer. `traceId` names the response; a `sessionId` alone
 * aims at the session (`session:<id>`, a bare response of that session); `datasetRunId` is not
 * supported (422). Its `source` sets the event's (EVAL a `judge`, ANNOTATION a `review`:
 * {@link langfuseScoreSource}) and stays in the metadata with `observationId`, `environment` and
 * the score `id`; the data type, when absent, is read from the value (a number NUMERIC, a string
 * CATEGORICAL).
 *
 * @example
 * mapLangfuseScore({ name: 'helpfulness', value: 0.8, traceId: 't1' })
 * // { ok: true, responseId: 't1', event: { type: 'score', responseId: 't1', payload: { name: 'helpfulness', value: 0.8 }, metadata: { source: 'API' } } }
 */
export function mapLangfuseScore(s: LangfuseScore): MappedScore {
  if (s.datasetRunId) {
    return { ok: false, status: 422, error: { code: 'FEEDLOOP_ERR_COMPAT_UNSUPPORTED', message: 'datasetRunId: scores on dataset runs are not supported; score the run\'s traces', field: 'datasetRunId' } };
  }
  const sessionTarget = s.traceId ? undefined : (s.sessionId ?? undefined);
  const responseId = s.traceId ?? (sessionTarget === undefined ? undefined : `${SESSION_RESPONSE_PREFIX}${sessionTarget}`);
  if (responseId === undefined) return bad('a score needs a traceId or a sessionId', 'traceId');
  const dataType = s.dataType ?? (typeof s.value === 'string' ? 'CATEGORICAL' : 'NUMERIC');
  const value = typeof s.value === 'boolean' ? (s.value ? 1 : 0) : s.value;
  const comment = s.comment ?? undefined;
  let typed: Record<string, unknown>;
  if (dataType === 'TEXT' || dataType === 'CORRECTION' || dataType === 'CATEGORICAL') {
    if (typeof value !== 'string') return bad(`a ${dataType} score's value is a string`, 'value');
    if (dataType === 'TEXT') typed = { type: 'comment', payload: { comment: value } };
    else if (dataType === 'CORRECTION') typed = { type: 'correction', payload: given({ corrected: value, comment }) };
    else typed = { type: 'score', payload: given({ name: s.name, stringValue: value, configId: s.configId, comment }) };
  } else {
    if (typeof value !== 'number') return bad(`a ${dataType} score's value is a number`, 'value');
    if (dataType === 'BOOLEAN' && value !== 0 && value !== 1) return bad('a BOOLEAN score\'s value is 0 or 1', 'value');
    typed = { type: 'score', payload: given({ name: s.name, value, configId: s.configId, comment }) };
  }
  const metadata = {
    ...metadataOf(s.metadata),
    ...given({ source: s.source ?? 'API', dataType, observationId: s.observationId, environment: s.environment, scoreId: s.id }),
    // A TEXT score's comment field has nowhere else to go; a score name says what the text is about.
    ...(dataType === 'TEXT' ? given({ scoreName: s.name, scoreComment: comment }) : {}),
  };
  const event = { ...typed, responseId, ...(sessionTarget === undefined ? {} : { sessionId: sessionTarget }), ...langfuseScoreSource(s, metadata), metadata };
  return { ok: true, responseId, ...(sessionTarget === undefined ? {} : { sessionTarget }), event };
}

/**
 * Who gave a Langfuse score, as feedloop's source: `EVAL` (an evaluator: LLM-as-judge) is a
 * `judge`, which names its evaluator in `metadata.evaluatorId` (the score's own metadata's
 * `evaluatorId` when it sends one, else `langfuse:<score name>`); `ANNOTATION` (a person in
 * Langfuse's annotation UI or queues) is a `review`; `API` or none keeps the type's source.
 * Fills `metadata.evaluatorId` in place for a judge.
 *
 * @example
 * langfuseScoreSource({ name: 'hallucination', value: 0, source: 'EVAL' }, metadata) // { source: 'judge' }, metadata.evaluatorId 'langfuse:hallucination'
 */
export function langfuseScoreSource(s: Pick<LangfuseScore, 'name' | 'source'>, metadata: Record<string, unknown>): { source?: 'judge' | 'review' } {
  if (s.source === 'ANNOTATION') return { source: 'review' };
  if (s.source !== 'EVAL') return {};
  const named = metadata['evaluatorId'];
  if (typeof named !== 'string' || named === '') metadata['evaluatorId'] = `langfuse:${s.name}`.slice(0, LIMITS.labelMaxLength);
  return { source: 'judge' };
}

/** The metadata keys the mapping adds to a score's event (left out of the metadata a GET shows). */
const SCORE_METADATA_KEYS = new Set(['source', 'dataType', 'observationId', 'environment', 'scoreId', 'scoreName', 'scoreComment', 'compatVersion']);

/** A stored score's event, as `langfuseScoreView` reads it. */
export interface ScoreEventView {
  responseId: string;
  type: string;
  payload: Record<string, unknown>;
  metadata: Record<string, unknown>;
  occurredAt: string;
  updatedAt: string;
}

/**
 * A stored score as Langfuse's `GET /api/public/scores/:id` shows one, read back from its event
 * (after `mapsTo`, a thumbs vote or a rating carries the score it was made from).
 *
 * @example
 * langfuseScoreView('s1', { responseId: 't1', type: 'comment', payload: { comment: 'ok' }, metadata: { dataType: 'TEXT', scoreName: 'note', source: 'API' }, occurredAt, updatedAt })
 * // { id: 's1', traceId: 't1', name: 'note', value: null, stringValue: 'ok', dataType: 'TEXT', source: 'API', ... }
 */
export function langfuseScoreView(scoreId: string, e: ScoreEventView): Record<string, unknown> {
  const p = e.payload;
  const m = e.metadata;
  const mapped = typeof p.score === 'object' && p.score !== null ? (p.score as Record<string, unknown>) : undefined;
  let value: unknown;
  if (e.type === 'comment') value = p.comment;
  else if (e.type === 'correction') value = p.corrected;
  else if (e.type === 'thumbs_up' || e.type === 'thumbs_down') value = mapped?.value ?? (e.type === 'thumbs_up' ? 1 : 0);
  else if (e.type === 'rating') value = mapped?.value ?? p.rating;
  else value = p.value ?? p.stringValue;
  const dataType = str(m.dataType) ?? (typeof value === 'string' ? 'CATEGORICAL' : 'NUMERIC');
  const numeric = typeof value === 'number' ? value : typeof value === 'boolean' ? (value ? 1 : 0) : null;
  const session = e.responseId.startsWith(SESSION_RESPONSE_PREFIX) ? e.responseId.slice(SESSION_RESPONSE_PREFIX.length) : undefined;
  const metadata = Object.fromEntries(Object.entries(m).filter(([k]) => !SCORE_METADATA_KEYS.has(k)));
  return {
    id: scoreId,
    traceId: session === undefined ? e.responseId : null,
    sessionId: session ?? null,
    observationId: str(m.observationId) ?? null,
    name: str(p.name) ?? str(mapped?.name) ?? str(m.scoreName) ?? null,
    value: numeric,
    stringValue: typeof value === 'string' ? value : dataType === 'BOOLEAN' ? (numeric === 1 ? 'True' : 'False') : null,
    dataType,
    source: str(m.source) ?? 'API',
    comment: str(p.comment === value ? undefined : p.comment) ?? str(m.scoreComment) ?? null,
    configId: str(p.configId) ?? str(mapped?.configId) ?? null,
    environment: str(m.environment) ?? 'default',
    metadata,
    timestamp: e.occurredAt,
    createdAt: e.occurredAt,
    updatedAt: e.updatedAt,
  };
}
