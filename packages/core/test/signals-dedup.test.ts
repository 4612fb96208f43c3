import { describe, expect, it } from 'vitest';
import { dedupStage } from '../src/signals/dedup.js';
import { storedEvent } from './signals-fixtures.js';

describe('dedupStage', () => {
  it('keeps an event ingest did not mark', () => {
    expect(dedupStage(storedEvent('thumbs_up', {}))).toEqual({ keep: true });
  });

  it('drops content duplicates and replaced votes', () => {
    expect(dedupStage(storedEvent('thumbs_up', {}, { duplicateOf: 'evt-0' }))).toEqual({ keep: false, reason: 'duplicate' });
    expect(dedupStage(storedEvent('thumbs_up', {}, { supersededBy: 'evt-2' }))).toEqual({ keep: false, reason: 'superseded' });
  });

  it('reports a duplicate that was also superseded as a duplicate', () => {
    expect(dedupStage(storedEvent('rating', { rating: 2 }, { duplicateOf: 'evt-0', supersededBy: 'evt-2' }))).toEqual({
      keep: false,
      reason: 'duplicate',
    });
  });

  it('is idempotent: the same event always gets the same, expected answer, and is left unchanged', () => {
    const cases = [
      { marks: {}, expected: { keep: true } },
      { marks: { duplicateOf: 'evt-0' }, expected: { keep: false, reason: 'duplicate' } },
      { marks: { supersededBy: 'evt-2' }, expected: { keep: false, reason: 'superseded' } },
      { marks: { duplicateOf: 'evt-0', supersededBy: 'evt-2' }, expected: { keep: false, reason: 'duplicate' } },
    ] as const;
    for (const { marks, expected } of cases) {
      const event = storedEvent('thumbs_down', {}, marks);
      const before = structuredClone(event);
      // Each call is checked against the expected decision, not against another call: a stage
      // that answered wrongly but consistently would pass a self-comparison.
      for (let run = 0; run < 3; run++) expect(dedupStage(event), JSON.stringify(marks)).toEqual(expected);
      expect(event).toEqual(before);
    }
  });
});
