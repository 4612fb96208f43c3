/**
 * The text of a traced call's input and output, the same way for every tracing drop-in
 * (docs/compat.md): a string as it is; a chat (an array of `{ role, content }` messages, or an
 * object holding one under `messages`) its last user message for an input, its last assistant
 * message for an output; anything else as compact JSON. Texts longer than feedloop keeps are cut
 * at `LIMITS.textMaxLength`.
 */
import { LIMITS } from '../limits.js';

interface Message {
  role: string;
  content: unknown;
}

function isMessage(value: unknown): value is Message {
  return typeof value === 'object' && value !== null && typeof (value as { role?: unknown }).role === 'string' && 'content' in value;
}

/** The chat a value is, if it is one: an array of messages, or `{ messages: [...] }`. */
function chatOf(value: unknown): Message[] | undefined {
  const list = Array.isArray(value) ? value : typeof value === 'object' && value !== null ? (value as { messages?: unknown }).messages : undefined;
  if (!Array.isArray(list) || list.length === 0 || !list.every(isMessage)) return undefined;
  return list;
}

/**
 * A message's content as text: a string as it is; content parts (`[{ type: 'text', text }]`)
 * their texts joined by newlines; else compact JSON.
 *
 * @example
 * contentText([{ type: 'text', text: 'a' }, { type: 'image_url' }, { type: 'text', text: 'b' }]) // 'a\nb'
 */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const texts = content.flatMap((part) =>
      typeof part === 'string' ? [part] : typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string' ? [(part as { text: string }).text] : [],
    );
    if (texts.length > 0) return texts.join('\n');
  }
  return compactJson(content);
}

/**
 * A value as compact JSON (`undefined` and functions as `null`).
 *
 * @example
 * compactJson({ a: [1, 2] }) // '{"a":[1,2]}'
 */
export function compactJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    // A cycle cannot reach here from parsed JSON; a caller's object might hold one.
    return String(value);
  }
}

const clip = (s: string): string => (s.length > LIMITS.textMaxLength ? s.slice(0, LIMITS.textMaxLength) : s);

function textOf(value: unknown, role: 'user' | 'assistant'): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return clip(value);
  const chat = chatOf(value);
  if (chat !== undefined) {
    const last = [...chat].reverse().find((m) => m.role === role);
    if (last !== undefined) return clip(contentText(last.content));
  }
  // A single assistant message, as generations often report their output.
  if (role === 'assistant' && isMessage(value)) return clip(contentText(value.content));
  return clip(compactJson(value));
}

/**
 * The query a traced input stands for: a string as it is, a chat's last user message, else
 * compact JSON; `undefined` for a missing input (null or undefined).
 *
 * @example
 * inputText([{ role: 'system', content: 'Be brief' }, { role: 'user', content: 'Hi?' }]) // 'Hi?'
 * inputText({ question: 'Hi?' }) // '{"question":"Hi?"}'
 */
export function inputText(input: unknown): string | undefined {
  return textOf(input, 'user');
}

/**
 * The answer a traced output stands for: a string as it is, a chat's last assistant message (or
 * a single `{ role, content }` message's content), else compact JSON; `undefined` for a missing
 * output.
 *
 * @example
 * outputText({ role: 'assistant', content: 'Hello' }) // 'Hello'
 */
export function outputText(output: unknown): string | undefined {
  return textOf(output, 'assistant');
}
