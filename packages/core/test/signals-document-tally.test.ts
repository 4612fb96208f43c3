import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { documentTallies, effectiveness, type DocumentSignal } from '../src/signals/document-tally.js';

describe('documentTallies', () => {
  it('folds signals into one tally per document, sorted by id', () => {
    const tallies = documentTallies([
      { documentIds: ['d2', 'd1', 'd1'], polarity: 'negative', value: -1, weight: 0.5, categories: ['wrong_context', 'hallucination'] },
      { documentIds: ['d1'], polarity: 'positive', value: 1, weight: 1, categories: [] },
      { documentIds: ['d3', 'd1'], polarity: 'neutral', value: 0, weight: 0, categories: ['style_mismatch'] },
    ]);
    expect(tallies).toEqual([
      { documentId: 'd1', positive: 1, negative: 1, neutral: 1, weightedValue: 0.5, weight: 1.5, errorCategoryCounts: { hallucination: 1, wrong_context: 1 } },
      { documentId: 'd2', positive: 0, negative: 1, neutral: 0, weightedValue: -0.5, weight: 0.5, errorCategoryCounts: { hallucination: 1, wrong_context: 1 } },
      // Categories of a signal that is not negative are not counted.
      { documentId: 'd3', positive: 0, negative: 0, neutral: 1, weightedValue: 0, weight: 0, errorCategoryCounts: {} },
    ]);
  });

  it('counts a repeated document or category within one signal once', () => {
    const [tally] = documentTallies([{ documentIds: ['d', 'd', 'd'], polarity: 'negative', value: -0.5, weight: 2, categories: ['other', 'other'] }]);
    expect(tally).toEqual({ documentId: 'd', positive: 0, negative: 1, neutral: 0, weightedValue: -1, weight: 2, errorCategoryCounts: { other: 1 } });
  });

  it('sorts in code-unit order, not locale order', () => {
    const ids = documentTallies([{ documentIds: ['b', 'B', 'a', 'ä', 'A'], polarity: 'positive', value: 1, weight: 1, categories: [] }]).map((t) => t.documentId);
    expect(ids).toEqual(['A', 'B', 'a', 'b', 'ä']);
  });

  it('gives nothing for no signals or signals without documents', () => {
    expect(documentTallies([])).toEqual([]);
    expect(documentTallies([{ documentIds: [], polarity: 'negative', value: -1, weight: 1, categories: ['other'] }])).toEqual([]);
  });

  const signal: fc.Arbitrary<DocumentSignal> = fc.record({
    documentIds: fc.array(fc.constantFrom('d1', 'd2', 'd3', 'd4'), { maxLength: 5 }),
    polarity: fc.constantFrom('positive', 'negative', 'neutral'),
    // Quarters keep every sum exact, so totals can be compared with toBe.
    value: fc.integer({ min: -4, max: 4 }).map((n) => n / 4),
    weight: fc.integer({ min: 0, max: 8 }).map((n) => n / 4),
    categories: fc.array(fc.constantFrom('missing_context', 'hallucination', 'other'), { maxLength: 3 }),
  });

  it('conserves counts and weight, and stays sorted and unique', () => {
    fc.assert(
      fc.property(fc.array(signal, { maxLength: 25 }), (signals) => {
        const tallies = documentTallies(signals);
        const ids = tallies.map((t) => t.documentId);
        expect(ids).toEqual([...new Set(ids)].sort());
        const distinctDocs = (s: DocumentSignal) => new Set(s.documentIds).size;
        const counted = tallies.reduce((n, t) => n + t.positive + t.negative + t.neutral, 0);
        expect(counted).toBe(signals.reduce((n, s) => n + distinctDocs(s), 0));
        expect(tallies.reduce((n, t) => n + t.weight, 0)).toBe(signals.reduce((n, s) => n + distinctDocs(s) * s.weight, 0));
        expect(tallies.reduce((n, t) => n + t.weightedValue, 0)).toBe(signals.reduce((n, s) => n + distinctDocs(s) * s.weight * s.value, 0));
        for (const t of tallies) {
          const e = effectiveness(t);
          if (e === null) expect(t.weight).toBe(0);
          else {
            expect(e).toBeGreaterThanOrEqual(-1);
            expect(e).toBeLessThanOrEqual(1);
          }
          for (const n of Object.values(t.errorCategoryCounts)) expect(n).toBeLessThanOrEqual(t.negative);
        }
      }),
    );
  });

  it('does not depend on the order of the batch', () => {
    fc.assert(
      fc.property(fc.array(signal, { maxLength: 15 }), (signals) => {
        expect(documentTallies([...signals].reverse())).toEqual(documentTallies(signals));
      }),
    );
  });
});

describe('effectiveness', () => {
  it('is the weighted mean value, or null without weight', () => {
    expect(effectiveness({ weightedValue: 0.5, weight: 2 })).toBe(0.25);
    expect(effectiveness({ weightedValue: -3, weight: 3 })).toBe(-1);
    expect(effectiveness({ weightedValue: 0, weight: 0 })).toBeNull();
  });
});
