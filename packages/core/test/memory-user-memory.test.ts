import { describe, expect, it } from 'vitest';
import { decayWeight, styleChanges, styleFeatures, userMemory, type MemoryEvent } from '../src/index.js';

const now = new Date('2026-06-01T12:00:00Z');
const daysAgo = (d: number) => new Date(now.getTime() - d * 86_400_000);
let n = 0;
function ev(type: string, payload: Record<string, unknown>, o: Partial<MemoryEvent> = {}): MemoryEvent {
  n += 1;
  return { id: `e${n}`, type, payload, occurredAt: daysAgo(0), answer: null, queryType: null, responseId: `r${n}`, ...o };
}

describe('style features', () => {
  it('measures hedging, emoji, lists, code blocks and casual markers', () => {
    expect(styleFeatures('Hey! I think this works 🎉')).toMatchObject({ hedges: 1, emoji: 1, casual: 2 });
    expect(styleFeatures('- a\n- b\n1. c\n```js\nx\n```')).toMatchObject({ listItems: 3, codeBlocks: 1 });
  });
  it('names the changes an edit makes and nothing else', () => {
    expect(styleChanges('- alpha one\n- beta two 😀', 'Alpha one and beta two.')).toEqual(['emoji:remove', 'lists:to_prose']);
    expect(styleChanges('I think the answer is probably 42 because of the long reasoning here', 'The answer is 42.')).toEqual(['length:shorter', 'hedging:remove']);
    expect(styleChanges('Same text here', 'Same text here')).toEqual([]);
  });
});

describe('user memory', () => {
  it('a single odd event never becomes a rule; two do', () => {
    const one = userMemory([ev('error_categories', { categories: ['hallucination'] })], now);
    expect(one.items).toEqual([]);
    expect(one.text).toBe('');
    const a = ev('error_categories', { categories: ['hallucination'] });
    const b = ev('thumbs_down', { category: 'accuracy' });
    const c = ev('error_categories', { categories: ['hallucination'] });
    const two = userMemory([a, b, c], now);
    const item = two.items.find((i) => i.key === 'category' && i.value === 'hallucination');
    expect(item).toMatchObject({ kind: 'mistake', support: 2 });
    expect(item?.eventIds.sort()).toEqual([a.id, c.id].sort());
    expect(two.items.some((i) => i.value === 'accuracy')).toBe(false);
    expect(two.text).toContain('hallucination');
  });

  it('decays with the half-life: old events lose their say', () => {
    expect(decayWeight(daysAgo(30), now, 30)).toBeCloseTo(0.5);
    const old = [ev('error_categories', { categories: ['wrong_context'] }, { occurredAt: daysAgo(60) }), ev('error_categories', { categories: ['wrong_context'] }, { occurredAt: daysAgo(60) })];
    expect(userMemory(old, now).items).toEqual([]);
    expect(userMemory(old, now, { halfLifeDays: 365 }).items).toHaveLength(1);
  });

  it('learns style from edits, net of the opposite direction', () => {
    const answer = 'Sure! 🎉 Here it is.';
    const edits = [1, 2, 3].map(() => ev('edit', { edited: 'Here it is.' }, { answer }));
    const m = userMemory(edits, now);
    expect(m.items.find((i) => i.key === 'emoji')).toMatchObject({ value: 'remove', support: 3, text: 'Do not use emoji' });
    const back = [1, 2, 3].map(() => ev('edit', { original: 'Here it is.', edited: 'Here it is 😀' }));
    expect(userMemory([...edits, ...back], now).items.find((i) => i.key === 'emoji')).toBeUndefined();
  });

  it('calibrates per query type from the share of answers corrected', () => {
    const sql = [1, 2, 3].map(() => ev('thumbs_down', {}, { queryType: 'sql' }));
    const ok = [1, 2].map(() => ev('thumbs_up', {}, { queryType: 'chat' }));
    const m = userMemory([...sql, ...ok], now);
    expect(m.items.find((i) => i.value === 'sql')).toMatchObject({ kind: 'calibration', confidenceAdjustment: -1, support: 3 });
    expect(m.items.find((i) => i.value === 'chat')).toMatchObject({ confidenceAdjustment: 1 });
  });

  it('turns words repeated in complaints into an item naming its events', () => {
    const a = ev('thumbs_down', { comment: 'Too verbose again' });
    const b = ev('rating', { rating: 1, comment: 'verbose and slow' });
    const m = userMemory([a, b], now);
    expect(m.items.find((i) => i.key === 'complaint' && i.value === 'verbose')?.eventIds.sort()).toEqual([a.id, b.id].sort());
  });
});
