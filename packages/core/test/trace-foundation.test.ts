import { describe, expect, it } from 'vitest';
import { LIMITS, compactJson, contentText, inputText, mergeTraceUpdates, outputText, traceUpdateSchema } from '../src/index.js';

describe('inputText / outputText', () => {
  it('keeps a string as it is', () => {
    expect(inputText('What is 2+2?')).toBe('What is 2+2?');
    expect(outputText('4')).toBe('4');
  });

  it("takes a chat's last user message as the input, its last assistant message as the output", () => {
    const chat = [
      { role: 'system', content: 'Be brief' },
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'one' },
      { role: 'user', content: [{ type: 'text', text: 'second' }, { type: 'image_url', image_url: { url: 'x' } }] },
      { role: 'assistant', content: 'two' },
    ];
    expect(inputText(chat)).toBe('second');
    expect(outputText(chat)).toBe('two');
    expect(inputText({ messages: chat })).toBe('second');
    expect(outputText({ role: 'assistant', content: 'Hello' })).toBe('Hello');
  });

  it('writes anything else as compact JSON, and nothing for a missing value', () => {
    expect(inputText({ question: 'Hi?', k: [1, 2] })).toBe('{"question":"Hi?","k":[1,2]}');
    expect(outputText([{ role: 'user', content: 'no assistant' }])).toBe('[{"role":"user","content":"no assistant"}]');
    expect(inputText(42)).toBe('42');
    expect(inputText(null)).toBeUndefined();
    expect(outputText(undefined)).toBeUndefined();
    expect(compactJson(undefined)).toBe('null');
    expect(contentText({ a: 1 })).toBe('{"a":1}');
  });

  it('cuts a text longer than feedloop keeps', () => {
    expect(inputText('x'.repeat(LIMITS.textMaxLength + 5))).toHaveLength(LIMITS.textMaxLength);
  });
});

describe('trace updates', () => {
  it('merge later over earlier per field, metadata key by key, the first createdAt kept', () => {
    const a = traceUpdateSchema.parse({ id: 't1', query: 'q', model: 'm1', metadata: { a: 1, b: 1 }, createdAt: '2026-01-01T00:00:00Z' });
    const b = traceUpdateSchema.parse({ id: 't1', answer: 'x', model: 'm2', query: '', metadata: { b: 2 }, createdAt: '2026-02-01T00:00:00Z' });
    expect(mergeTraceUpdates(a, b)).toEqual({ id: 't1', query: 'q', answer: 'x', model: 'm2', metadata: { a: 1, b: 2 }, createdAt: '2026-01-01T00:00:00Z' });
  });

  it('fold two fill-only pieces keeping the earlier values', () => {
    expect(mergeTraceUpdates({ id: 't', model: 'a', fillOnly: true }, { id: 't', model: 'b', answer: 'x', fillOnly: true })).toEqual({
      id: 't',
      model: 'a',
      answer: 'x',
      fillOnly: true,
    });
  });

  it('refuse a bad id or an unknown field, naming it', () => {
    const bad = traceUpdateSchema.safeParse({ id: 'has space' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['id']);
    expect(traceUpdateSchema.safeParse({ id: 't', tokens: 3 }).success).toBe(false);
  });
});
