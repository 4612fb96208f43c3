import { describe, expect, it } from 'vitest';
import { ResponseFactsCache } from '../src/store/response-facts-cache.js';

describe('ResponseFactsCache', () => {
  it('remembers creation times per workspace and forgets them after ten minutes', () => {
    let now = 0;
    const cache = new ResponseFactsCache(() => now);
    const t = new Date('2026-01-01T00:00:00Z');
    cache.set('ws1', 'r1', t);
    expect(cache.get('ws1', 'r1')).toEqual(t);
    expect(cache.get('ws2', 'r1')).toBeUndefined();
    now = 10 * 60_000 + 1;
    expect(cache.get('ws1', 'r1')).toBeUndefined();
  });

  it('drops the oldest entry when full', () => {
    const cache = new ResponseFactsCache();
    const t = new Date();
    for (let i = 0; i <= 100_000; i++) cache.set('ws', `r${i}`, t);
    expect(cache.get('ws', 'r0')).toBeUndefined();
    expect(cache.get('ws', 'r1')).toEqual(t);
    expect(cache.get('ws', 'r100000')).toEqual(t);
  });
});
