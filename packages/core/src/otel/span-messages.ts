/**
 * The chat messages a span carries, under whichever convention wrote them, as one list of
 * `{ role, content }`: GenAI's `gen_ai.input.messages`/`gen_ai.output.messages` (messages of
 * `parts`), the older indexed `gen_ai.prompt.N.*`/`gen_ai.completion.N.*` (OpenLLMetry),
 * OpenInference's `llm.input_messages.N.message.*`, and the `gen_ai.*.message`/`gen_ai.choice`
 * span events.
 *
 * @module
 */
import type { OtelAttributes, OtelSpanEvent, OtelValue } from './otlp-request.js';

/** One chat message with its text. */
export interface SpanMessage {
  role: string;
  content: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A value that may be JSON in a string (OTel attributes are flat, so conventions serialize
 * structures): the parsed value when it is a JSON object or array, else the value itself.
 *
 * @example
 * jsonish('[{"role":"user"}]') // [{ role: 'user' }]
 * jsonish('hello') // 'hello'
 */
export function jsonish(value: OtelValue | undefined): unknown {
  if (typeof value !== 'string') return value;
  const t = value.trimStart();
  if (!t.startsWith('{') && !t.startsWith('[')) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** The text of a message's content: a string, GenAI's `parts`, or OpenAI-style content blocks. */
function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content
    .map((part) => {
      if (typeof part === 'string') return part;
      if (!isRecord(part)) return undefined;
      // GenAI parts: { type: 'text', content }; OpenAI blocks: { type: 'text', text }.
      if (part.type !== undefined && part.type !== 'text') return undefined;
      return typeof part.content === 'string' ? part.content : typeof part.text === 'string' ? part.text : undefined;
    })
    .filter((t): t is string => t !== undefined);
  return texts.length > 0 ? texts.join('\n') : undefined;
}

/**
 * A list of messages in any of the shapes the conventions use (`{ role, content }`,
 * `{ role, parts }`, `{ message: { role, content } }`), or undefined when the value is no list of
 * messages.
 *
 * @example
 * toMessages([{ role: 'user', parts: [{ type: 'text', content: 'Hi' }] }]) // [{ role: 'user', content: 'Hi' }]
 */
export function toMessages(value: unknown): SpanMessage[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const out: SpanMessage[] = [];
  for (const item of value) {
    const m = isRecord(item) && isRecord(item.message) ? item.message : item;
    if (!isRecord(m) || typeof m.role !== 'string') return undefined;
    const text = contentText(m.parts ?? m.content);
    if (text !== undefined) out.push({ role: m.role, content: text });
  }
  return out.length > 0 ? out : undefined;
}

/** OpenInference's multimodal parts: `message.contents.<part>.message_content.text`. */
const CONTENT_PART = /^message\.contents\.(\d+)\.message_content\.text$/;

/**
 * Messages flattened into indexed attributes (`<prefix>.0.role`, `<prefix>.0.content`, …), in
 * index order. `infix` is what stands between the index and `role`/`content` (`message.` for
 * OpenInference, whose multimodal messages hold their text in parts instead of `content`).
 */
function indexedMessages(attributes: OtelAttributes, prefix: string, infix = ''): SpanMessage[] | undefined {
  const byIndex = new Map<number, { role?: string; content?: string; parts?: Map<number, string> }>();
  const head = `${prefix}.`;
  for (const [key, value] of Object.entries(attributes)) {
    if (!key.startsWith(head) || typeof value !== 'string') continue;
    const rest = key.slice(head.length);
    const dot = rest.indexOf('.');
    const index = Number(rest.slice(0, dot));
    if (dot < 1 || !Number.isInteger(index)) continue;
    const field = rest.slice(dot + 1);
    const entry = byIndex.get(index) ?? {};
    const part = infix === 'message.' ? CONTENT_PART.exec(field) : null;
    if (field === `${infix}role`) entry.role = value;
    else if (field === `${infix}content`) entry.content = value;
    else if (part) (entry.parts ??= new Map()).set(Number(part[1]), value);
    else continue;
    byIndex.set(index, entry);
  }
  const textOf = (m: { content?: string; parts?: Map<number, string> }): string | undefined =>
    m.content ?? (m.parts ? [...m.parts.entries()].sort(([a], [b]) => a - b).map(([, t]) => t).join('\n') : undefined);
  const out = [...byIndex.entries()]
    .sort(([a], [b]) => a - b)
    .flatMap(([, m]) => {
      const content = textOf(m);
      return content === undefined ? [] : [{ role: m.role ?? 'user', content }];
    });
  return out.length > 0 ? out : undefined;
}

/** The role of a `gen_ai.<role>.message` event. */
const EVENT_ROLE = /^gen_ai\.(system|user|assistant|tool)\.message$/;

/** An event's message body: its `content`, or GenAI's body serialized in `gen_ai.event.content`. */
function eventContent(event: OtelSpanEvent): string | undefined {
  const a = event.attributes;
  const body = jsonish(a['gen_ai.event.content']);
  if (isRecord(body)) {
    const text = contentText(body.content) ?? (isRecord(body.message) ? contentText(body.message.content) : undefined);
    if (text !== undefined) return text;
  }
  const message = jsonish(a.message);
  if (isRecord(message)) return contentText(message.content);
  const direct = a.content ?? a['message.content'];
  return typeof direct === 'string' ? direct : undefined;
}

/** The messages of a span's events: `gen_ai.<role>.message` in, `gen_ai.choice` out (or the older `gen_ai.content.*`). */
function eventMessages(events: OtelSpanEvent[], side: 'input' | 'output'): SpanMessage[] | undefined {
  const out: SpanMessage[] = [];
  for (const event of events) {
    // The older events: `gen_ai.content.prompt`/`.completion` holding the whole list as JSON.
    const whole = event.name === `gen_ai.content.${side === 'input' ? 'prompt' : 'completion'}`;
    if (whole) return toMessages(jsonish(event.attributes[side === 'input' ? 'gen_ai.prompt' : 'gen_ai.completion']));
    const role = EVENT_ROLE.exec(event.name)?.[1];
    const content = side === 'input' && role !== undefined ? eventContent(event) : side === 'output' && event.name === 'gen_ai.choice' ? eventContent(event) : undefined;
    if (content !== undefined) out.push({ role: role ?? 'assistant', content });
  }
  return out.length > 0 ? out : undefined;
}

/**
 * The messages of one side of an LLM call in a span, from the first convention that has them, or
 * undefined. Order of trust: the current GenAI attributes, OpenInference's, the older indexed
 * GenAI ones, then events.
 *
 * @example
 * spanMessages({ 'gen_ai.prompt.0.role': 'user', 'gen_ai.prompt.0.content': 'Hi' }, [], 'input')
 * // [{ role: 'user', content: 'Hi' }]
 */
export function spanMessages(attributes: OtelAttributes, events: OtelSpanEvent[], side: 'input' | 'output'): SpanMessage[] | undefined {
  return (
    toMessages(jsonish(attributes[`gen_ai.${side}.messages`])) ??
    indexedMessages(attributes, `llm.${side}_messages`, 'message.') ??
    indexedMessages(attributes, side === 'input' ? 'gen_ai.prompt' : 'gen_ai.completion') ??
    eventMessages(events, side)
  );
}
