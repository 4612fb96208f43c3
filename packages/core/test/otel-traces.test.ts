import { describe, expect, it } from 'vitest';
import {
  OtlpShapeError,
  anyValue,
  readOtlpTraceRequest,
  spanContent,
  spanMessages,
  toTracePieces,
  traceUpdatesOf,
  type OtelSpan,
  type OtelSpanEvent,
} from '../src/index.js';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const ROOT = 'b7ad6b7169203331';
const CHILD = '00f067aa0ba902b7';

/** An OTLP/JSON attribute list from a plain object. */
const kv = (o: Record<string, unknown>) =>
  Object.entries(o).map(([key, v]) => ({
    key,
    value: typeof v === 'string' ? { stringValue: v } : typeof v === 'boolean' ? { boolValue: v } : Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v },
  }));

function span(o: Partial<OtelSpan> & { attributes?: Record<string, unknown> }): OtelSpan {
  return {
    traceId: TRACE,
    spanId: CHILD,
    name: 'span',
    events: [],
    resource: {},
    scopeName: 'test',
    ...o,
    attributes: (o.attributes ?? {}) as OtelSpan['attributes'],
  };
}

describe('readOtlpTraceRequest', () => {
  it('reads resource, scope, ids, times and attribute values', () => {
    const { spans, rejectedSpans } = readOtlpTraceRequest({
      resourceSpans: [
        {
          resource: { attributes: kv({ 'service.name': 'bot' }) },
          scopeSpans: [
            {
              scope: { name: 'openinference' },
              spans: [
                {
                  traceId: TRACE.toUpperCase(),
                  spanId: ROOT,
                  parentSpanId: '',
                  name: 'chat',
                  startTimeUnixNano: '1764230400000000000',
                  endTimeUnixNano: 1764230401000000000,
                  attributes: kv({ 'llm.model_name': 'gpt-4o', n: 3, t: 0.5, ok: true }),
                  events: [{ name: 'gen_ai.user.message', attributes: kv({ content: 'Hi' }) }],
                },
              ],
            },
          ],
        },
      ],
    });
    expect(rejectedSpans).toBe(0);
    expect(spans).toHaveLength(1);
    const s = spans[0]!;
    expect(s).toMatchObject({ traceId: TRACE, spanId: ROOT, scopeName: 'openinference', startTimeMs: 1764230400000, endTimeMs: 1764230401000 });
    expect(s.parentSpanId).toBeUndefined();
    expect(s.resource).toEqual({ 'service.name': 'bot' });
    expect(s.attributes).toEqual({ 'llm.model_name': 'gpt-4o', n: 3, t: 0.5, ok: true });
    expect(s.events[0]).toEqual({ name: 'gen_ai.user.message', attributes: { content: 'Hi' } });
  });

  it('rejects a span without valid ids alone and counts it', () => {
    const out = readOtlpTraceRequest({
      resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 'xyz', spanId: ROOT }, { traceId: TRACE, spanId: '0'.repeat(16) }, { traceId: TRACE, spanId: ROOT }] }] }],
    });
    expect(out.spans).toHaveLength(1);
    expect(out.rejectedSpans).toBe(2);
    expect(out.errors[0]).toMatch(/traceId/);
    expect(out.errors[1]).toMatch(/spanId/);
  });

  it('throws OtlpShapeError for a body that is no export request', () => {
    expect(() => readOtlpTraceRequest([1])).toThrow(OtlpShapeError);
    expect(() => readOtlpTraceRequest({ resourceSpans: 'x' })).toThrow(OtlpShapeError);
    expect(() => readOtlpTraceRequest({ resourceSpans: [{ scopeSpans: [{ spans: 3 }] }] })).toThrow(OtlpShapeError);
    expect(readOtlpTraceRequest({}).spans).toEqual([]);
  });

  it('unwraps nested AnyValues', () => {
    expect(anyValue({ arrayValue: { values: [{ intValue: '3' }, { boolValue: false }] } })).toEqual([3, false]);
    expect(anyValue({ kvlistValue: { values: [{ key: 'a', value: { stringValue: 'b' } }] } })).toEqual({ a: 'b' });
    expect(anyValue({ intValue: '9007199254740993' })).toBe('9007199254740993');
  });
});

describe('spanMessages', () => {
  it('reads gen_ai.input.messages with parts', () => {
    const a = { 'gen_ai.input.messages': JSON.stringify([{ role: 'system', parts: [{ type: 'text', content: 'Be brief' }] }, { role: 'user', parts: [{ type: 'text', content: 'Hi?' }] }]) };
    expect(spanMessages(a, [], 'input')).toEqual([
      { role: 'system', content: 'Be brief' },
      { role: 'user', content: 'Hi?' },
    ]);
  });

  it('reads the indexed gen_ai.prompt.N and OpenInference llm.input_messages.N in index order', () => {
    expect(spanMessages({ 'gen_ai.prompt.1.role': 'user', 'gen_ai.prompt.1.content': 'second', 'gen_ai.prompt.0.role': 'system', 'gen_ai.prompt.0.content': 'first' }, [], 'input')).toEqual([
      { role: 'system', content: 'first' },
      { role: 'user', content: 'second' },
    ]);
    expect(spanMessages({ 'llm.output_messages.0.message.role': 'assistant', 'llm.output_messages.0.message.content': 'Yes' }, [], 'output')).toEqual([{ role: 'assistant', content: 'Yes' }]);
    // OpenInference's multimodal messages: the text parts, in part order.
    const parts = {
      'llm.input_messages.0.message.role': 'user',
      'llm.input_messages.0.message.contents.1.message_content.text': 'second part',
      'llm.input_messages.0.message.contents.0.message_content.type': 'text',
      'llm.input_messages.0.message.contents.0.message_content.text': 'first part',
    };
    expect(spanMessages(parts, [], 'input')).toEqual([{ role: 'user', content: 'first part\nsecond part' }]);
  });

  it('reads gen_ai.*.message and gen_ai.choice events', () => {
    const events: OtelSpanEvent[] = [
      { name: 'gen_ai.system.message', attributes: { content: 'sys' } },
      { name: 'gen_ai.user.message', attributes: { 'gen_ai.event.content': JSON.stringify({ content: 'question' }) } },
      { name: 'gen_ai.choice', attributes: { message: JSON.stringify({ role: 'assistant', content: 'answer' }) } },
    ];
    expect(spanMessages({}, events, 'input')).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'question' },
    ]);
    expect(spanMessages({}, events, 'output')).toEqual([{ role: 'assistant', content: 'answer' }]);
  });
});

describe('spanContent', () => {
  it('prefers the response model and ignores an embedding span model', () => {
    expect(spanContent(span({ attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.response.model': 'gpt-4o-2024-08-06' } })).model).toBe('gpt-4o-2024-08-06');
    const emb = spanContent(span({ attributes: { 'gen_ai.operation.name': 'embeddings', 'gen_ai.request.model': 'text-embedding-3-small' } }));
    expect(emb.isLlmCall).toBe(false);
    expect(emb.model).toBeUndefined();
  });

  it('reads Langfuse trace attributes, user, session and metadata', () => {
    const c = spanContent(
      span({
        attributes: {
          'langfuse.trace.input': '{"question":"Q?"}',
          'langfuse.trace.output': 'A.',
          'langfuse.user.id': 'u-1',
          'session.id': 's-1',
          'langfuse.trace.metadata.variant': 'b',
          'langfuse.trace.tags': ['x', 'y'] as unknown as string,
        },
      }),
    );
    expect(c.traceInput).toEqual({ value: { question: 'Q?' } });
    expect(c.traceOutput).toEqual({ value: 'A.' });
    expect(c).toMatchObject({ userId: 'u-1', sessionId: 's-1', metadata: { variant: 'b' }, tags: ['x', 'y'] });
  });

  it('takes gen_ai.conversation.id as the session', () => {
    expect(spanContent(span({ attributes: { 'gen_ai.conversation.id': 'conv-9' } })).sessionId).toBe('conv-9');
  });
});

describe('traceUpdatesOf', () => {
  const root = span({ spanId: ROOT, name: 'handle', startTimeMs: 1_000, endTimeMs: 5_000, attributes: { 'input.value': 'What is 2+2?', 'output.value': 'Four.', 'user.id': 'u-7' } });
  const llm = span({
    parentSpanId: ROOT,
    startTimeMs: 2_000,
    endTimeMs: 3_000,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.input.messages': JSON.stringify([{ role: 'system', content: 'You compute.' }, { role: 'user', content: 'compute 2+2' }]),
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: '4' }] }]),
    },
  });

  it('lets the root span give query and answer, the LLM span the model', () => {
    const { updates, droppedTraces } = traceUpdatesOf([llm, root]);
    expect(droppedTraces).toBe(0);
    expect(updates).toHaveLength(1);
    expect(toTracePieces(updates[0]!)).toEqual([
      {
        id: TRACE,
        query: 'What is 2+2?',
        answer: 'Four.',
        model: 'gpt-4o-mini',
        userId: 'u-7',
        createdAt: new Date(1_000).toISOString(),
      },
    ]);
  });

  it('without the root in the request, gives the LLM texts as fallbacks only', () => {
    const [update] = traceUpdatesOf([llm]).updates;
    expect(update!.fields.query).toBeUndefined();
    const [piece, fill] = toTracePieces(update!);
    expect(piece).toEqual({ id: TRACE, model: 'gpt-4o-mini', createdAt: new Date(2_000).toISOString() });
    expect(fill).toEqual({ id: TRACE, query: 'compute 2+2', answer: '4', fillOnly: true });
  });

  it('with a root that has no texts, takes the first call question and the last call answer', () => {
    const bare = span({ spanId: ROOT, startTimeMs: 0, endTimeMs: 10 });
    const second = span({ spanId: 'aaaaaaaaaaaaaaaa', parentSpanId: ROOT, startTimeMs: 4_000, endTimeMs: 6_000, attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.prompt.0.role': 'user', 'gen_ai.prompt.0.content': 'tool said 4', 'gen_ai.completion.0.role': 'assistant', 'gen_ai.completion.0.content': 'It is 4.' } });
    const pieces = toTracePieces(traceUpdatesOf([second, bare, llm]).updates[0]!);
    expect(pieces).toHaveLength(1);
    expect(pieces[0]).toMatchObject({ query: 'compute 2+2', answer: 'It is 4.' });
  });

  it('lets langfuse.trace.input/output win over the root span', () => {
    const lf = span({ spanId: 'cccccccccccccccc', parentSpanId: ROOT, startTimeMs: 1_500, endTimeMs: 1_600, attributes: { 'langfuse.trace.input': 'trace question', 'langfuse.trace.output': 'trace answer' } });
    expect(toTracePieces(traceUpdatesOf([root, lf, llm]).updates[0]!)[0]).toMatchObject({ query: 'trace question', answer: 'trace answer' });
  });

  it('drops and counts traces without LLM content', () => {
    const http = span({ traceId: 'f'.repeat(32), attributes: { 'http.request.method': 'GET', 'user.id': 'u-1' } });
    const db = span({ traceId: 'f'.repeat(32), spanId: 'dddddddddddddddd', attributes: { 'db.system': 'postgresql' } });
    const batch = traceUpdatesOf([http, db, llm]);
    expect(batch.updates.map((u) => u.traceId)).toEqual([TRACE]);
    expect(batch).toMatchObject({ droppedTraces: 1, droppedSpans: 2 });
    // It names a user: it may complete a response an earlier request made, never create one.
    expect(batch.context).toHaveLength(1);
    expect(batch.context[0]).toMatchObject({ traceId: 'f'.repeat(32), spans: 2, fields: { userId: 'u-1' } });
    expect(traceUpdatesOf([db]).context).toEqual([]);
  });

  it('maps metadata experimentId and variant to the experiment fields', () => {
    const s = span({ spanId: ROOT, attributes: { 'input.value': 'q', 'langfuse.trace.metadata.experimentId': 'exp-1', 'langfuse.trace.metadata.variant': 'b' } });
    expect(toTracePieces(traceUpdatesOf([s]).updates[0]!)[0]).toMatchObject({ experimentId: 'exp-1', variant: 'b', metadata: { experimentId: 'exp-1', variant: 'b' } });
  });
});
