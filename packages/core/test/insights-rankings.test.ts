import { describe, expect, it } from 'vitest';
import { classifyCorrection, countCorrectionPatterns, eventSample, type CorrectionText } from '../src/insights/correction-patterns.js';

const SQL = await loadSqlGrammars();
const correctionPatterns = (cs: CorrectionText[]) => countCorrectionPatterns(cs.map((c) => classifyCorrection(c, SQL)));
import { highestEscalation, lowestSatisfaction } from '../src/insights/rankings.js';
import { loadSqlGrammars } from '../src/insights/sql-change.js';

describe('lowestSatisfaction', () => {
  it('ranks by the Wilson upper bound (percent) and leaves out small samples', () => {
    const ranking = lowestSatisfaction([
      { name: 'a', positive: 81, negative: 182 }, // Newcombe (1998) Table II: 81/263 → [25.53, 36.62]
      { name: 'b', positive: 15, negative: 133 }, // 15/148 → [6.24, 16.05]
      { name: 'c', positive: 1, negative: 20 }, // 21 rated: below 30
      { name: 'd', positive: 0, negative: 0 },
    ]);
    expect(ranking.ranked.map((r) => r.name)).toEqual(['b', 'a']);
    expect(ranking.ranked[1]!.satisfaction.rate).toBeCloseTo((100 * 81) / 263, 6);
    expect(ranking.ranked[1]!.satisfaction.lower).toBeCloseTo(25.53, 2);
    expect(ranking.ranked[1]!.satisfaction.upper).toBeCloseTo(36.62, 2);
    expect(ranking.ranked[0]!.satisfaction.upper).toBeCloseTo(16.05, 2);
    expect(ranking.belowMinimumSample).toEqual(['c']);
    expect(ranking.minSample).toBe(30);
  });

  it('puts a surely bad value before a worse-looking one with little data', () => {
    // 12/40 = 30 % (upper 45.4) against 30/100 = 30 % (upper 39.6): same rate, more certain.
    const ranking = lowestSatisfaction([
      { name: 'few', positive: 12, negative: 28 },
      { name: 'many', positive: 30, negative: 70 },
    ]);
    expect(ranking.ranked.map((r) => r.name)).toEqual(['many', 'few']);
  });
});

describe('highestEscalation', () => {
  it('ranks by the Wilson lower bound, highest first', () => {
    const ranking = highestEscalation([
      { name: 'billing', sessions: 263, escalated: 81 }, // lower 25.53
      { name: 'refunds', sessions: 40, escalated: 14 }, // 35 %, but lower 22.1
      { name: 'tiny', sessions: 5, escalated: 5 },
    ]);
    expect(ranking.ranked.map((r) => r.name)).toEqual(['billing', 'refunds']);
    expect(ranking.ranked[0]!.escalation.lower).toBeCloseTo(25.53, 2);
    expect(ranking.belowMinimumSample).toEqual(['tiny']);
  });
});

describe('classifyCorrection and countCorrectionPatterns', () => {
  it('counts kinds per format with shares, events and tables', () => {
    const patterns = correctionPatterns([
      { eventId: 'e1', original: 'SELECT * FROM sales', corrected: "SELECT * FROM sales WHERE region = 'EU'", format: 'sql' },
      { eventId: 'e2', original: 'SELECT * FROM orders', corrected: 'SELECT * FROM orders WHERE total > 0' },
      { eventId: 'e3', original: 'SELECT id FROM orders', corrected: 'SELECT id FROM orders LIMIT 10' },
      { eventId: 'e4', original: 'The total is 22.', corrected: 'The total is 8.' },
      { eventId: 'e5', original: 'SELECT 1', corrected: 'The query is wrong', format: 'text' },
    ]);
    expect(patterns[0]).toEqual({
      format: 'sql',
      kind: 'filter_added',
      parsed: true,
      count: 2,
      share: (100 * 2) / 3,
      events: { count: 2, sample: ['e1', 'e2'] },
      tables: [
        { table: 'orders', count: 1 },
        { table: 'sales', count: 1 },
      ],
    });
    expect(patterns.find((p) => p.kind === 'limit_changed')?.events.sample).toEqual(['e3']);
    expect(patterns.find((p) => p.kind === 'number_changed')).toMatchObject({ format: 'text', count: 1, share: 50, events: { sample: ['e4'] } });
  });

  it('caps the sample and keeps the count', () => {
    const ids = Array.from({ length: 25 }, (_, i) => `e${i}`);
    expect(eventSample(ids)).toEqual({ count: 25, sample: ids.slice(0, 10) });
  });
});
