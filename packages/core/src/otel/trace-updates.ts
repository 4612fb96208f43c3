/**
 * The spans of one OTLP request, grouped by trace, turned into response fields: one update per
 * trace with LLM content; the traces without any are counted and dropped.
 *
 * Spans of a trace may come in several requests, in any order, and the store keeps the last value
 * written per field. So which span a value comes from decides whether it may overwrite:
 *
 * - `fields` are authoritative: the trace-level input/output Langfuse sets
 *   (`langfuse.trace.input`/`output`), the root span's own input/output, the model of an LLM call,
 *   the user, session, metadata and tags. A later request's value replaces an earlier one.
 * - `fallback` holds what an LLM span says about the query and answer when this request has no
 *   root span of the trace: the root (the application's view of the question and the answer) may
 *   already be stored, or come later, and must win. It is written as a fill-only piece (the trace
 *   foundation's `fillOnly`): it sets a field only where the response has no value yet.
 *
 * @module
 */
import { inputText, outputText } from '../compat/trace-text.js';
import type { TraceUpdate } from '../compat/trace-update.js';
import type { OtelSpan } from './otlp-request.js';
import { hasLlmContent, spanContent, type SpanContent, type SpanIo } from './span-content.js';

/** The response fields an OTLP trace gives. */
export interface OtelTraceFields {
  query?: SpanIo;
  answer?: SpanIo;
  model?: string;
  userId?: string;
  sessionId?: string;
  metadata?: Record<string, unknown>;
  tags?: string[];
  release?: string;
  version?: string;
  environment?: string;
  /** Milliseconds since the epoch: the root span's start, else the earliest span's. */
  createdAt?: number;
}

/** The update one request makes to the response of one trace. */
export interface OtelTraceUpdate {
  /** 32 lowercase hex digits: the response's id. */
  traceId: string;
  fields: OtelTraceFields;
  /** Values to set only where the response has none (see the module's note). */
  fallback: Pick<OtelTraceFields, 'query' | 'answer'>;
}

/** The updates of one request and what it dropped. */
export interface OtelTraceBatch {
  updates: OtelTraceUpdate[];
  /** Traces of the request none of whose spans (in this request) carries LLM content. */
  droppedTraces: number;
  /** Their spans. */
  droppedSpans: number;
  /**
   * Of the dropped traces, those whose spans name a user, a session, metadata or tags: they may
   * complete a response an earlier request of the same trace made (an HTTP root span exported
   * after its LLM call), never create one. `spans` is how many spans each stands for.
   */
  context: Array<OtelTraceUpdate & { spans: number }>;
}

/** Whether an update without LLM content still says something a stored response could take. */
const hasContext = (u: OtelTraceUpdate): boolean =>
  u.fields.userId !== undefined || u.fields.sessionId !== undefined || u.fields.metadata !== undefined || u.fields.tags !== undefined;

interface ReadSpan {
  span: OtelSpan;
  content: SpanContent;
}

const byStart = (a: ReadSpan, b: ReadSpan): number => (a.span.startTimeMs ?? 0) - (b.span.startTimeMs ?? 0);
const byEnd = (a: ReadSpan, b: ReadSpan): number => (a.span.endTimeMs ?? 0) - (b.span.endTimeMs ?? 0);

/** The first span, in the given order, for which `pick` gives a value. */
function first<T>(spans: readonly ReadSpan[], pick: (s: ReadSpan) => T | undefined): T | undefined {
  for (const s of spans) {
    const v = pick(s);
    if (v !== undefined) return v;
  }
  return undefined;
}

/** One trace's spans (of one request) as its update. */
function traceUpdate(traceId: string, spans: ReadSpan[]): OtelTraceUpdate {
  const started = [...spans].sort(byStart);
  const endedLast = [...spans].sort(byEnd).reverse();
  const root = started.find((s) => s.span.parentSpanId === undefined);
  const calls = spans.filter((s) => s.content.isLlmCall);
  const callsStarted = [...calls].sort(byStart);
  const callsEndedLast = [...calls].sort(byEnd).reverse();
  const fields: OtelTraceFields = {};
  const fallback: OtelTraceUpdate['fallback'] = {};
  // The question is what the first LLM call was asked; the answer what the last one said.
  const query = first(endedLast, (s) => s.content.traceInput) ?? root?.content.input;
  const answer = first(endedLast, (s) => s.content.traceOutput) ?? root?.content.output;
  const callQuery = first(callsStarted, (s) => s.content.input) ?? first(started, (s) => s.content.input);
  const callAnswer = first(callsEndedLast, (s) => s.content.output) ?? first(endedLast, (s) => s.content.output);
  // With the root in this request, its lack of a value is known: the calls' value is the value.
  const target = root ? fields : fallback;
  if (query) fields.query = query;
  else if (callQuery) target.query = callQuery;
  if (answer) fields.answer = answer;
  else if (callAnswer) target.answer = callAnswer;
  const model = first(callsEndedLast, (s) => s.content.model);
  if (model !== undefined) fields.model = model;
  const ordered = root ? [root, ...started.filter((s) => s !== root)] : started;
  const scalar = <K extends 'userId' | 'sessionId' | 'release' | 'version' | 'environment'>(key: K): void => {
    const v = first(ordered, (s) => s.content[key]);
    if (v !== undefined) fields[key] = v;
  };
  scalar('userId');
  scalar('sessionId');
  scalar('release');
  scalar('version');
  scalar('environment');
  // Metadata merges over the spans, the root's keys last so they win.
  for (const s of [...ordered].reverse()) if (s.content.metadata) fields.metadata = { ...fields.metadata, ...s.content.metadata };
  const tags = new Set(spans.flatMap((s) => s.content.tags ?? []));
  if (tags.size > 0) fields.tags = [...tags];
  // Only a piece that creates the response dates it, so the earliest span known will do.
  const createdAt = root?.span.startTimeMs ?? started[0]?.span.startTimeMs;
  if (createdAt !== undefined) fields.createdAt = createdAt;
  return { traceId, fields, fallback };
}

/**
 * Groups a request's spans by trace and reads each trace with LLM content into an update.
 *
 * @example
 * const { updates, droppedTraces } = traceUpdatesOf(readOtlpTraceRequest(body).spans);
 */
export function traceUpdatesOf(spans: readonly OtelSpan[]): OtelTraceBatch {
  const traces = new Map<string, ReadSpan[]>();
  for (const span of spans) {
    const list = traces.get(span.traceId) ?? [];
    list.push({ span, content: spanContent(span) });
    traces.set(span.traceId, list);
  }
  const batch: OtelTraceBatch = { updates: [], droppedTraces: 0, droppedSpans: 0, context: [] };
  for (const [traceId, list] of traces) {
    const update = traceUpdate(traceId, list);
    if (list.some((s) => hasLlmContent(s.content))) {
      batch.updates.push(update);
    } else {
      batch.droppedTraces += 1;
      batch.droppedSpans += list.length;
      if (hasContext(update)) batch.context.push({ ...update, spans: list.length });
    }
  }
  return batch;
}

const ioValue = (io: SpanIo): unknown => ('messages' in io ? io.messages : io.value);

const stringOf = (value: unknown): string | undefined => (typeof value === 'string' && value.length > 0 ? value : undefined);

/**
 * An OTLP trace's update as the trace foundation's pieces (`TraceUpdate`s, still to be
 * validated): the authoritative fields as a normal piece, the fallback texts as a `fillOnly` one
 * (it fills only what the response has no value for, whatever came first). Texts by core's
 * `inputText`/`outputText`; `experimentId`/`variant` taken from the metadata, as Langfuse's
 * mapping does.
 *
 * @example
 * toTracePieces(update) // [{ id, model: 'gpt-4o', … }, { id, query: 'Hi?', answer: 'Hello', fillOnly: true }]
 */
export function toTracePieces(update: OtelTraceUpdate): TraceUpdate[] {
  const { fields, fallback } = update;
  const piece: TraceUpdate = { id: update.traceId };
  const queryText = fields.query ? inputText(ioValue(fields.query)) : undefined;
  const answerText = fields.answer ? outputText(ioValue(fields.answer)) : undefined;
  if (queryText) piece.query = queryText;
  if (answerText) piece.answer = answerText;
  for (const key of ['model', 'userId', 'sessionId', 'release', 'version', 'environment'] as const) {
    const v = fields[key];
    if (v !== undefined) piece[key] = v;
  }
  if (fields.tags) piece.tags = fields.tags;
  if (fields.metadata) {
    piece.metadata = fields.metadata;
    const experimentId = stringOf(fields.metadata.experimentId);
    const variant = stringOf(fields.metadata.variant);
    if (experimentId !== undefined) piece.experimentId = experimentId;
    if (variant !== undefined) piece.variant = variant;
  }
  if (fields.createdAt !== undefined) piece.createdAt = new Date(fields.createdAt).toISOString();
  const fill: TraceUpdate = { id: update.traceId, fillOnly: true };
  const fillQuery = fallback.query ? inputText(ioValue(fallback.query)) : undefined;
  const fillAnswer = fallback.answer ? outputText(ioValue(fallback.answer)) : undefined;
  if (fillQuery) fill.query = fillQuery;
  if (fillAnswer) fill.answer = fillAnswer;
  return fill.query === undefined && fill.answer === undefined ? [piece] : [piece, fill];
}
