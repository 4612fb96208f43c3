/**
 * What one span says about the AI response of its trace, read from the three conventions feedloop
 * knows: OpenTelemetry's GenAI semantic conventions, OpenInference, and Langfuse's `langfuse.*`
 * attributes (their names as `@langfuse/core`'s `LangfuseOtelSpanAttributes` spells them).
 *
 * @module
 */
import type { OtelSpan, OtelValue } from './otlp-request.js';
import { jsonish, spanMessages, toMessages, type SpanMessage } from './span-messages.js';

/** A side of a call as found: messages, or a value (a string, or structured data). */
export type SpanIo = { messages: SpanMessage[] } | { value: unknown };

/** What a span holds for the response. Every field is absent when the span does not carry it. */
export interface SpanContent {
  /** The span is an LLM call (a generation). */
  isLlmCall: boolean;
  input?: SpanIo;
  output?: SpanIo;
  model?: string;
  /** Trace-level input/output set explicitly (`langfuse.trace.input`/`output`). */
  traceInput?: SpanIo;
  traceOutput?: SpanIo;
  userId?: string;
  sessionId?: string;
  metadata?: Record<string, unknown>;
  tags?: string[];
  release?: string;
  version?: string;
  environment?: string;
}

/** GenAI operations that are a call to a model producing text (not embeddings or tool runs). */
const LLM_OPERATIONS = new Set(['chat', 'text_completion', 'generate_content', 'completion']);
/** GenAI operations that are not a generation even though they name a model. */
const NON_LLM_OPERATIONS = new Set(['embeddings', 'execute_tool', 'create_agent']);
/** OpenInference span kinds that name a model without being a generation. */
const NON_LLM_KINDS = new Set(['EMBEDDING', 'RERANKER', 'RETRIEVER', 'TOOL']);

const str = (value: OtelValue | undefined): string | undefined => (typeof value === 'string' && value.length > 0 ? value : undefined);

/** A serialized input/output: messages when it is a chat list, else the value itself. */
function ioOf(value: OtelValue | undefined): SpanIo | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const parsed = jsonish(value);
  const messages = toMessages(parsed) ?? (isRecord(parsed) ? toMessages(parsed.messages) : undefined);
  return messages ? { messages } : { value: parsed };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The first of the keys that holds a non-empty string. */
function firstString(attributes: Record<string, OtelValue>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const v = str(attributes[key]);
    if (v !== undefined) return v;
  }
  return undefined;
}

/** `langfuse.trace.metadata.<key>` attributes (and a whole `langfuse.trace.metadata` object). */
function traceMetadata(attributes: Record<string, OtelValue>): Record<string, unknown> | undefined {
  const prefix = 'langfuse.trace.metadata';
  let out: Record<string, unknown> | undefined;
  const whole = jsonish(attributes[prefix]);
  if (isRecord(whole)) out = { ...whole };
  for (const [key, value] of Object.entries(attributes)) {
    if (!key.startsWith(`${prefix}.`) || key === `${prefix}.__proto__`) continue;
    (out ??= {})[key.slice(prefix.length + 1)] = jsonish(value);
  }
  return out;
}

/** Tags: Langfuse's `langfuse.trace.tags` or OpenInference's `tag.tags` (a list, or JSON of one). */
function tagsOf(attributes: Record<string, OtelValue>): string[] | undefined {
  for (const key of ['langfuse.trace.tags', 'tag.tags']) {
    const v = jsonish(attributes[key]);
    if (Array.isArray(v)) {
      const tags = v.filter((t): t is string => typeof t === 'string' && t.length > 0);
      if (tags.length > 0) return tags;
    }
  }
  return undefined;
}

/** Whether the span is a generation by any convention's own marker, or names a model. */
function isLlmCall(a: Record<string, OtelValue>, model: string | undefined): boolean {
  const operation = str(a['gen_ai.operation.name']);
  const kind = str(a['openinference.span.kind'])?.toUpperCase();
  const observation = str(a['langfuse.observation.type']);
  if ((operation && LLM_OPERATIONS.has(operation)) || kind === 'LLM' || observation === 'generation') return true;
  if ((operation && NON_LLM_OPERATIONS.has(operation)) || (kind && NON_LLM_KINDS.has(kind)) || (observation && observation !== 'generation')) return false;
  return model !== undefined;
}

/**
 * Reads one span. The input of a span is, in order: Langfuse's `langfuse.observation.input`, the
 * GenAI or OpenInference messages, then OpenInference's `input.value`; the output likewise.
 *
 * @example
 * spanContent(span).model // 'gpt-4o' for a span with gen_ai.response.model = 'gpt-4o'
 */
export function spanContent(span: OtelSpan): SpanContent {
  const a = span.attributes;
  const model = firstString(a, ['gen_ai.response.model', 'gen_ai.request.model', 'llm.model_name', 'langfuse.observation.model.name']);
  const content: SpanContent = { isLlmCall: isLlmCall(a, model) };
  const side = (s: 'input' | 'output'): SpanIo | undefined => {
    const messages = spanMessages(a, span.events, s);
    return ioOf(a[`langfuse.observation.${s}`]) ?? (messages ? { messages } : undefined) ?? ioOf(a[`${s}.value`]);
  };
  const input = side('input');
  const output = side('output');
  if (input) content.input = input;
  if (output) content.output = output;
  // An embedding or tool span's model is not the response's model.
  if (model !== undefined && content.isLlmCall) content.model = model;
  const traceInput = ioOf(a['langfuse.trace.input']);
  const traceOutput = ioOf(a['langfuse.trace.output']);
  if (traceInput) content.traceInput = traceInput;
  if (traceOutput) content.traceOutput = traceOutput;
  const userId = firstString(a, ['langfuse.user.id', 'user.id', 'enduser.id']);
  const sessionId = firstString(a, ['langfuse.session.id', 'session.id', 'gen_ai.conversation.id']);
  if (userId !== undefined) content.userId = userId;
  if (sessionId !== undefined) content.sessionId = sessionId;
  const metadata = traceMetadata(a);
  if (metadata) content.metadata = metadata;
  const tags = tagsOf(a);
  if (tags) content.tags = tags;
  const release = firstString(a, ['langfuse.release']) ?? firstString(span.resource, ['service.version']);
  const version = firstString(a, ['langfuse.version']);
  const environment = firstString(a, ['langfuse.environment']) ?? firstString(span.resource, ['deployment.environment.name', 'deployment.environment']);
  if (release !== undefined) content.release = release;
  if (version !== undefined) content.version = version;
  if (environment !== undefined) content.environment = environment;
  return content;
}

/**
 * Whether a span carries LLM content: it is a generation, or holds an input, output or trace
 * input/output under a known convention. A trace none of whose spans does is dropped.
 */
export function hasLlmContent(content: SpanContent): boolean {
  return content.isLlmCall || content.input !== undefined || content.output !== undefined || content.traceInput !== undefined || content.traceOutput !== undefined;
}
