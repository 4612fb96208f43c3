import { describe, expect, it } from 'vitest';
import { addSumsInto, compactSums, emptySums, expandSums, sumsOf, type SummedEvent } from '../src/stats/stats-sums.js';

const T = new Date('2026-03-01T10:00:00Z');
const thumbs = (up: boolean, categories: string[] = []): SummedEvent => ({
  type: up ? 'thumbs_up' : 'thumbs_down',
  payload: {},
  polarity: up ? 'positive' : 'negative',
  categories,
  value: up ? 1 : -1,
  firstPass: null,
  editDistance: null,
  occurredAt: T,
  responseId: 'r1',
  responseCreatedAt: T,
  source: 'explicit',
});

describe('compacted sums (a per-user row as stored)', () => {
  it('drops zero counts and empty records, and expands back to the same sums', () => {
    const sums = sumsOf([thumbs(true), thumbs(false, ['wrong_sql'])], [{ responseId: 'r1', sessionId: null, corrected: false, escalated: false }]);
    const compact = compactSums(sums);
    expect(compact).toEqual({
      events: 2,
      positiveRatings: 1,
      negativeRatings: 1,
      responses: 1,
      sessions: 1,
      negativeCategoryCounts: { wrong_sql: 1 },
      sourceEvents: { explicit: 2 },
      sourcePositive: { explicit: 1 },
      sourceNegative: { explicit: 1 },
      responseTimeCount: 2,
      // +1 and -1: a sum of zero is dropped, its count kept.
      valueCount: 2,
    });
    expect(expandSums(JSON.parse(JSON.stringify(compact)) as typeof compact)).toEqual(sums);
    expect(expandSums({})).toEqual(emptySums());
  });

  it('adds into totals as whole sums do', () => {
    const a = sumsOf([thumbs(true)], []);
    const b = sumsOf([thumbs(false, ['slow'])], []);
    expect(addSumsInto(addSumsInto(emptySums(), compactSums(a) as typeof a), compactSums(b) as typeof b)).toEqual(addSumsInto(addSumsInto(emptySums(), a), b));
  });
});
