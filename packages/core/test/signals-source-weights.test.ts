import { describe, expect, it } from 'vitest';
import type { FeedbackEventType, SignalSource } from '../src/event-types.js';
import { classify } from '../src/signals/classify.js';
import { compositeScore } from '../src/signals/composite-score.js';
import { judgeWeight, judgeWeightFactor, storedSignalWeight } from '../src/signals/judge-weight.js';
import type { ScoredSignal } from '../src/signals/signal-types.js';
import { T0, enrichedEvent, settingsWith } from './signals-fixtures.js';

const settings = settingsWith();

function signal(eventId: string, type: FeedbackEventType, payload: unknown, source?: SignalSource, userId: string | null = null): ScoredSignal {
  const c = classify(enrichedEvent(type, payload, { id: eventId, userId, occurredAt: T0, editDistance: null }), settings);
  return {
    eventId,
    type,
    userId,
    signalClass: c.signalClass,
    polarity: c.polarity,
    value: c.value,
    occurredAt: T0,
    editDistance: null,
    ...(source ? { source } : {}),
    ...(source === 'judge' ? { evaluatorId: 'ev-1' } : {}),
  };
}

describe('composite score by source', () => {
  it('weighs a review as a person: a reviewer’s thumbs down counts 1.5 as a user’s does', () => {
    const user = compositeScore([signal('u', 'thumbs_up', {}), signal('d', 'thumbs_down', {})], settings, T0);
    const review = compositeScore([signal('u', 'thumbs_up', {}), signal('d', 'thumbs_down', {}, 'review')], settings, T0);
    expect(review).toEqual(user);
    expect(review.weightSum).toBe(2.5);
    // A review verdict of its own type: rejected is -1 at the explicit negative weight 1.5.
    const verdict = compositeScore([signal('r', 'review', { verdict: 'rejected', issues: [] }, 'review')], settings, T0);
    expect(verdict).toMatchObject({ score: -1, weightSum: 1.5, signalCount: 1 });
  });

  it('weighs a judge 0 for now: its thumbs down leaves the score as the user left it, and is counted', () => {
    const alone = compositeScore([signal('u', 'thumbs_up', {})], settings, T0);
    const judged = compositeScore([signal('u', 'thumbs_up', {}), signal('j', 'thumbs_down', {}, 'judge')], settings, T0);
    expect(judged).toMatchObject({ score: alone.score, weightSum: alone.weightSum, confidence: alone.confidence, signalCount: 2 });
    expect(compositeScore([signal('j', 'thumbs_down', {}, 'judge')], settings, T0)).toMatchObject({ score: null, weightSum: 0, signalCount: 1 });
  });

  it('decides a judge’s weight in judgeWeight: 0 until its evaluator is calibrated, then 0.3 × the human weight', () => {
    const s = signal('j', 'thumbs_up', {}, 'judge');
    expect(judgeWeight(s, 1, settings)).toBe(0);
    expect(judgeWeight(s, 1.5, settings)).toBe(0);
    expect(judgeWeight({ ...s, judgeWeightFactor: judgeWeightFactor(0.6, 50) }, 1.5, settings)).toBeCloseTo(0.45, 12);
    expect(judgeWeight({ ...s, judgeWeightFactor: judgeWeightFactor(0.59, 500) }, 1.5, settings)).toBe(0);
    expect(judgeWeightFactor(0.9, 49)).toBe(0);
    expect(judgeWeightFactor(null, 500)).toBe(0);
    // In the composite: a calibrated judge's up-vote alone moves the score; an uncalibrated one's does not.
    expect(compositeScore([s], settings, T0).weightSum).toBe(0);
    expect(compositeScore([{ ...s, judgeWeightFactor: 0.3 }], settings, T0).weightSum).toBeGreaterThan(0);
  });

  it('stores a signal’s weight by the composite score’s rule: a judge’s is its factor × the human weight, 0 without a factor', () => {
    const down = signal('j', 'thumbs_down', {}, 'judge');
    const person = signal('u', 'thumbs_down', {});
    expect(storedSignalWeight(person, 1, settings)).toBe(1.5);
    expect(storedSignalWeight({ ...person, source: 'review' }, 1, settings)).toBe(1.5);
    // A sampled implicit signal stands for 1 / its rate.
    expect(storedSignalWeight(person, 4, settings)).toBe(6);
    expect(storedSignalWeight(down, 1, settings)).toBe(0);
    expect(storedSignalWeight({ ...down, judgeWeightFactor: 0 }, 1, settings)).toBe(0);
    const calibrated = { ...down, judgeWeightFactor: judgeWeightFactor(0.7, 60) };
    expect(storedSignalWeight(calibrated, 1, settings)).toBeCloseTo(0.45, 12);
    // The same number the composite score weighs it by at its own time (no decay yet), alone.
    expect(compositeScore([calibrated], settings, T0).weightSum).toBeCloseTo(storedSignalWeight(calibrated, 1, settings), 12);
    expect(compositeScore([down], settings, T0).weightSum).toBe(storedSignalWeight(down, 1, settings));
  });

  it('never lets a reviewer’s verdict discount a user’s earlier vote of the same id as a conflict', () => {
    const mixed = compositeScore([signal('u', 'thumbs_up', {}, undefined, 'ann'), { ...signal('d', 'thumbs_down', {}, 'review', 'ann'), occurredAt: new Date(T0.getTime() + 1) }], settings, T0);
    expect(mixed.conflicts).toEqual([]);
    // The user changing their mind still is one.
    const changed = compositeScore([signal('u', 'thumbs_up', {}, undefined, 'ann'), { ...signal('d', 'thumbs_down', {}, 'explicit', 'ann'), occurredAt: new Date(T0.getTime() + 1) }], settings, T0);
    expect(changed.conflicts).toHaveLength(1);
  });
});
