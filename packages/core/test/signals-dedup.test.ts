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

  it('is idempotent: the same event always gets the same answer', () => {
    const event = storedEvent('thumbs_down', {}, { supersededBy: 'evt-2' });
    expect(dedupStage(event)).toEqual(dedupStage(event));
    expect(event.supersededBy).toBe('evt-2');
  });
});
