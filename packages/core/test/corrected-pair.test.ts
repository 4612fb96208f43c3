import { describe, expect, it } from 'vitest';
import { correctedPair, revisionOf, storedCorrectionPair } from '../src/corrected-pair.js';

describe('the corrected pair (one rule: the event’s original, else the response’s answer)', () => {
  it('takes the correction’s own original over the answer', () => {
    expect(correctedPair({ type: 'correction', payload: { original: 'SELECT 1', corrected: 'SELECT 2' } }, 'the answer')).toEqual({ original: 'SELECT 1', corrected: 'SELECT 2' });
  });

  it('falls back to the answer for a correction or an edit that names no original', () => {
    expect(correctedPair({ type: 'correction', payload: { corrected: 'SELECT 2' } }, 'SELECT 1')).toEqual({ original: 'SELECT 1', corrected: 'SELECT 2' });
    expect(correctedPair({ type: 'edit', payload: { edited: 'Hi there', phase: 'immediate' } }, 'Hello')).toEqual({ original: 'Hello', corrected: 'Hi there' });
  });

  it('keeps an empty original (it is named, not missing)', () => {
    expect(correctedPair({ type: 'edit', payload: { original: '', edited: 'x', phase: 'immediate' } }, 'answer')).toEqual({ original: '', corrected: 'x' });
  });

  it('has no pair for other types, nor when neither text is known', () => {
    expect(correctedPair({ type: 'thumbs_up', payload: {} }, 'answer')).toBeUndefined();
    expect(correctedPair({ type: 'correction', payload: { corrected: 'x' } }, undefined)).toBeUndefined();
    expect(correctedPair({ type: 'correction', payload: { corrected: 'x' } }, null)).toBeUndefined();
    expect(revisionOf({ type: 'correction', payload: { corrected: 'x' } })).toEqual({ original: undefined, revised: 'x' });
    expect(revisionOf({ type: 'comment', payload: { comment: 'c' } })).toBeUndefined();
  });

  it('reads a stored correction’s payload by the same rule, and none without a corrected text', () => {
    expect(storedCorrectionPair({ original: 'SELECT 1', corrected: 'SELECT 2' }, 'the answer')).toEqual({ original: 'SELECT 1', corrected: 'SELECT 2' });
    expect(storedCorrectionPair({ corrected: 'SELECT 2', original: null }, 'SELECT 1')).toEqual({ original: 'SELECT 1', corrected: 'SELECT 2' });
    expect(storedCorrectionPair({ corrected: null, original: 'SELECT 1' }, 'SELECT 1')).toBeUndefined();
    expect(storedCorrectionPair({ corrected: 'x' }, null)).toBeUndefined();
  });
});
