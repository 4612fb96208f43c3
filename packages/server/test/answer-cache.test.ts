import { describe, expect, it } from 'vitest';
import { AnswerCache } from '../src/ingest/answer-cache.js';

describe('AnswerCache', () => {
  it('remembers answers per workspace and forgets them after ten minutes', () => {
    let now = 0;
    const cache = new AnswerCache(() => now);
    cache.set('ws1', 'r1', 'the answer');
    expect(cache.get('ws1', 'r1')).toBe('the answer');
    expect(cache.get('ws2', 'r1')).toBeUndefined();
    now = 10 * 60_000 + 1;
    expect(cache.get('ws1', 'r1')).toBeUndefined();
  });

  it('keeps at most its budget of characters, dropping the oldest answers first', () => {
    const cache = new AnswerCache(Date.now, 100);
    for (let i = 0; i < 12; i++) cache.set('ws', `r${i}`, 'x'.repeat(10));
    expect(cache.get('ws', 'r0')).toBeUndefined();
    expect(cache.get('ws', 'r1')).toBeUndefined();
    expect(cache.get('ws', 'r2')).toBe('x'.repeat(10));
    expect(cache.get('ws', 'r11')).toBe('x'.repeat(10));
    // Replacing an entry frees its old size; an answer above a tenth of the budget is not kept.
    cache.set('ws', 'r11', 'y');
    cache.set('ws', 'big', 'z'.repeat(11));
    expect(cache.get('ws', 'r11')).toBe('y');
    expect(cache.get('ws', 'big')).toBeUndefined();
    expect(cache.get('ws', 'r2')).toBe('x'.repeat(10));
  });
});
