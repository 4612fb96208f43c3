/**
 * The text of a LangSmith run's inputs and outputs (issue 26 §3): which key holds the question a
 * root run answered, and which the answer it gave. LangSmith runs carry whatever the traced
 * function took and returned, so the rule looks for the usual names (`question`, `input`,
 * `query`; `answer`, `output`, `text`), then for chat shapes (OpenAI messages, LangChain messages
 * serialized or not, LangChain generations, OpenAI choices), and falls back on compact JSON.
 */
import { LIMITS } from '../limits.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Cut to what a response's text may hold (the rest of a giant input is not worth refusing the run). */
const bounded = (text: string): string => (text.length > LIMITS.textMaxLength ? text.slice(0, LIMITS.textMaxLength) : text);

/** A message's content as text: a string, or the text parts of a content list. */
function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const parts = content.flatMap((p) => (typeof p === 'string' ? [p] : isObject(p) && typeof p.text === 'string' ? [p.text] : []));
    return parts.length > 0 ? parts.join('\n') : undefined;
  }
  return undefined;
}

/**
 * A message's role and content, whatever its form: `{ role, content }` (OpenAI), `{ type:
 * 'human', content }` (LangChain), or LangChain's serialized `{ lc: 1, id: [..., 'HumanMessage'],
 * kwargs: { content } }`.
 */
function readMessage(m: unknown): { role: string; content: string | undefined } | undefined {
  if (!isObject(m)) return undefined;
  if (Array.isArray(m.id) && isObject(m.kwargs)) {
    const cls = String(m.id[m.id.length - 1] ?? '');
    const role = cls.startsWith('Human') ? 'user' : cls.startsWith('AI') ? 'assistant' : cls.replace(/Message(Chunk)?$/, '').toLowerCase();
    return { role, content: contentText(m.kwargs.content) };
  }
  const role = typeof m.role === 'string' ? m.role : typeof m.type === 'string' ? m.type : undefined;
  if (role === undefined || !('content' in m)) return undefined;
  return { role: role === 'human' ? 'user' : role === 'ai' ? 'assistant' : role, content: contentText(m.content) };
}

/** The messages of a list, flattening LangChain's batch form (`[[m1, m2]]`); undefined when it is no message list. */
function messagesOf(value: unknown): { role: string; content: string | undefined }[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const flat = value.length === 1 && Array.isArray(value[0]) ? (value[0] as unknown[]) : value;
  const read = flat.map(readMessage);
  return read.every((m) => m !== undefined) ? (read as { role: string; content: string | undefined }[]) : undefined;
}

/** The last message of `role` with text content. */
function lastOf(messages: { role: string; content: string | undefined }[], role: string): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m && m.role === role && m.content !== undefined && m.content !== '') return m.content;
  }
  return undefined;
}

/** Compact JSON of what no rule read, or undefined for nothing at all. */
function compactJson(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (isObject(value) && Object.keys(value).length === 0) return undefined;
  return JSON.stringify(value);
}

/** A value's text for the query: a string, a message list's last user message, a message, or JSON. */
function inputValueText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  const messages = messagesOf(value);
  if (messages) return lastOf(messages, 'user') ?? compactJson(value);
  const message = readMessage(value);
  if (message?.content !== undefined) return message.content;
  return compactJson(value);
}

/** A value's text for the answer: a string, a generation's or message's content, the last assistant message, or JSON. */
function outputValueText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (isObject(value)) {
    // LangChain LLMResult: { generations: [[{ text, message }]] }
    if (Array.isArray(value.generations)) {
      const first = Array.isArray(value.generations[0]) ? (value.generations[0] as unknown[])[0] : value.generations[0];
      if (isObject(first)) {
        if (typeof first.text === 'string' && first.text !== '') return first.text;
        const m = readMessage(first.message);
        if (m?.content !== undefined) return m.content;
      }
    }
    // OpenAI chat completion: { choices: [{ message: { content } }] }
    if (Array.isArray(value.choices) && isObject(value.choices[0])) {
      const choice = value.choices[0];
      const m = isObject(choice.message) ? contentText(choice.message.content) : undefined;
      if (m !== undefined) return m;
      if (typeof choice.text === 'string') return choice.text;
    }
    const message = readMessage(value);
    if (message?.content !== undefined) return message.content;
    if (typeof value.content === 'string') return value.content;
  }
  const messages = messagesOf(value);
  if (messages) return lastOf(messages, 'assistant') ?? compactJson(value);
  return compactJson(value);
}

const INPUT_KEYS = ['question', 'input', 'query'] as const;
/** `outputs` too: `traceable` wraps a function's non-object return value as `{ outputs: value }`. */
const OUTPUT_KEYS = ['answer', 'output', 'text', 'outputs'] as const;

/**
 * The query of a run's inputs: `question`, `input` or `query` (the first present), else a
 * `messages` list's last user message, else compact JSON. Undefined for no inputs.
 *
 * @example
 * langSmithInputText({ question: 'What is feedloop?' }) // 'What is feedloop?'
 * langSmithInputText({ messages: [{ role: 'system', content: 'Be brief' }, { role: 'user', content: 'Hi' }] }) // 'Hi'
 * langSmithInputText({ a: 1 }) // '{"a":1}'
 */
export function langSmithInputText(inputs: unknown): string | undefined {
  if (!isObject(inputs)) return inputs === undefined || inputs === null ? undefined : bounded(inputValueText(inputs) ?? '');
  for (const key of INPUT_KEYS) {
    if (inputs[key] !== undefined && inputs[key] !== null) {
      const text = inputValueText(inputs[key]);
      if (text !== undefined) return bounded(text);
    }
  }
  const text = inputs.messages !== undefined ? inputValueText(inputs.messages) : compactJson(inputs);
  return text === undefined ? undefined : bounded(text);
}

/**
 * The answer of a run's outputs: `answer`, `output`, `text` or `outputs` (the first present), else a
 * generation's or message's content, else compact JSON. Undefined for no outputs.
 *
 * @example
 * langSmithOutputText({ output: 'feedloop is a feedback loop.' }) // 'feedloop is a feedback loop.'
 * langSmithOutputText({ generations: [[{ text: 'Hello' }]] }) // 'Hello'
 * langSmithOutputText({ choices: [{ message: { role: 'assistant', content: 'Hi' } }] }) // 'Hi'
 */
export function langSmithOutputText(outputs: unknown): string | undefined {
  if (!isObject(outputs)) return outputs === undefined || outputs === null ? undefined : bounded(outputValueText(outputs) ?? '');
  for (const key of OUTPUT_KEYS) {
    if (outputs[key] !== undefined && outputs[key] !== null) {
      const text = outputValueText(outputs[key]);
      if (text !== undefined) return bounded(text);
    }
  }
  const text = outputValueText(outputs);
  return text === undefined ? undefined : bounded(text);
}
