/**
 * The text of a LangSmith run's inputs and outputs (issue 26 §3): which key holds the question a
 * root run answered, and which the answer it gave. LangSmith runs carry whatever the traced
 * function took and returned, so the rule looks for the usual names (`question`, `input`,
 * `query`; `answer`, `output`, `text`), then for chat shapes (OpenAI messages, LangChain messages
 * serialized or not, LangChain generations, OpenAI choices), and falls back on compact JSON.
 */
import { LIMITS } from '../limits.js';
import { compactJson, contentText, inputText, outputText } from './trace-text.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Cut to what a response's text may hold (the rest of a giant input is not worth refusing the run). */
const bounded = (text: string): string => (text.length > LIMITS.textMaxLength ? text.slice(0, LIMITS.textMaxLength) : text);

/**
 * A LangChain message as `{ role, content }`, the form core's {@link inputText} reads: `{ type:
 * 'human', content }`, or LangChain's serialized `{ lc: 1, id: [..., 'HumanMessage'], kwargs: {
 * content } }`. Anything else is returned as it is.
 */
function normalMessage(m: unknown): unknown {
  if (!isObject(m)) return m;
  if (Array.isArray(m.id) && isObject(m.kwargs)) {
    const cls = String(m.id[m.id.length - 1] ?? '');
    const role = cls.startsWith('Human') ? 'user' : cls.startsWith('AI') ? 'assistant' : cls.replace(/Message(Chunk)?$/, '').toLowerCase();
    return { role, content: m.kwargs.content };
  }
  if (typeof m.role !== 'string' && typeof m.type === 'string' && 'content' in m) {
    return { role: m.type === 'human' ? 'user' : m.type === 'ai' ? 'assistant' : m.type, content: m.content };
  }
  return m;
}

/** A message list in core's form, flattening LangChain's batch form (`[[m1, m2]]`); other values as they are. */
function normalValue(value: unknown): unknown {
  if (Array.isArray(value)) {
    const flat = value.length === 1 && Array.isArray(value[0]) ? (value[0] as unknown[]) : value;
    return flat.map(normalMessage);
  }
  if (isObject(value) && Array.isArray(value.messages)) return { ...value, messages: normalValue(value.messages) };
  return normalMessage(value);
}

/** A message's text content, if the value is a (LangChain or OpenAI) message. */
function messageContent(value: unknown): string | undefined {
  const m = normalMessage(value);
  return isObject(m) && typeof m.role === 'string' && 'content' in m ? contentText(m.content) : undefined;
}

/** A value's text for the query: LangChain messages normalized, then core's {@link inputText} (a single message: its content). */
function inputValueText(value: unknown): string | undefined {
  return messageContent(value) ?? inputText(normalValue(value));
}

/** A value's text for the answer: a generation's or a choice's content, else core's {@link outputText}. */
function outputValueText(value: unknown): string | undefined {
  if (isObject(value)) {
    // LangChain LLMResult: { generations: [[{ text, message }]] }
    if (Array.isArray(value.generations)) {
      const first = Array.isArray(value.generations[0]) ? (value.generations[0] as unknown[])[0] : value.generations[0];
      if (isObject(first)) {
        if (typeof first.text === 'string' && first.text !== '') return first.text;
        const m = messageContent(first.message);
        if (m !== undefined) return m;
      }
    }
    // OpenAI chat completion: { choices: [{ message: { content } }] }
    if (Array.isArray(value.choices) && isObject(value.choices[0])) {
      const choice = value.choices[0];
      const m = messageContent(choice.message);
      if (m !== undefined) return m;
      if (typeof choice.text === 'string') return choice.text;
    }
  }
  // A message's fields without a role (an AIMessage's `{ content, ... }`): its content.
  if (isObject(value) && typeof value.content === 'string' && !('role' in value)) return value.content;
  return messageContent(value) ?? outputText(normalValue(value));
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
  if (Object.keys(inputs).length === 0) return undefined;
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
  if (Object.keys(outputs).length === 0) return undefined;
  const text = outputValueText(outputs);
  return text === undefined ? undefined : bounded(text);
}
