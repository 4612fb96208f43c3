import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FEEDBACK_EVENT_TYPES, type FeedbackEventType } from '../src/event-types.js';
import { classify } from '../src/signals/classify.js';
import { compositeScore } from '../src/signals/composite-score.js';
import { SIGNAL_CLASSES, type Polarity, type ScoredSignal } from '../src/signals/signal-types.js';
import { SAMPLE_PAYLOADS, T0, daysAfter, enrichedEvent, settingsWith } from './signals-fixtures.js';

const settings = settingsWith();
const MINUTE_MS = 60_000;

/** A classified signal, as the pipeline would hand it to the score. */
function signal(
  eventId: string,
  type: FeedbackEventType,
  payload: unknown,
  options: { userId?: string | null; occurredAt?: Date; editDistance?: number | null } = {},
): ScoredSignal {
  const userId = options.userId ?? null;
  const occurredAt = options.occurredAt ?? T0;
  const editDistance = options.editDistance ?? null;
  const c = classify(enrichedEvent(type, payload, { id: eventId, userId, occurredAt, editDistance }), settings);
  return { eventId, type, userId, signalClass: c.signalClass, polarity: c.polarity, value: c.value, occurredAt, editDistance };
}

const minutesAfter = (minutes: number) => new Date(T0.getTime() + minutes * MINUTE_MS);

describe('compositeScore', () => {
  it('has no score without weighted signals, but counts them', () => {
    expect(compositeScore([], settings, T0)).toEqual({ score: null, confidence: 0, weightSum: 0, signalCount: 0, conflicts: [] });
    const neutral = [signal('e1', 'comment', { comment: 'hm' }), signal('e2', 'edit', { edited: 'x' }, { editDistance: 3 })];
    expect(compositeScore(neutral, settings, T0)).toEqual({ score: null, confidence: 0, weightSum: 0, signalCount: 2, conflicts: [] });
  });

  it('gives one fresh thumbs up score 1 at confidence 0.5 (the prior is one explicit positive)', () => {
    expect(compositeScore([signal('e1', 'thumbs_up', {})], settings, T0)).toEqual({
      score: 1,
      confidence: 0.5,
      weightSum: 1,
      signalCount: 1,
      conflicts: [],
    });
  });

  it('is the weighted mean of values: a thumbs up and a thumbs down from different people', () => {
    // (1.0 × 1 + 1.5 × -1) / 2.5 = -0.2
    const result = compositeScore([signal('e1', 'thumbs_up', {}, { userId: 'ann' }), signal('e2', 'thumbs_down', {}, { userId: 'bob' })], settings, T0);
    expect(result.score).toBeCloseTo(-0.2, 12);
    expect(result.weightSum).toBe(2.5);
    expect(result.confidence).toBeCloseTo(2.5 / 3.5, 12);
    expect(result.conflicts).toEqual([]);
  });

  it('decays old signals: a 30-day-old thumbs down weighs half', () => {
    // thumbs up now (1.0) and thumbs down 30 days ago (1.5 × 0.5 = 0.75): (1 - 0.75) / 1.75
    const result = compositeScore([signal('e1', 'thumbs_up', {}, { occurredAt: daysAfter(30) }), signal('e2', 'thumbs_down', {})], settings, daysAfter(30));
    expect(result.weightSum).toBe(1.75);
    expect(result.score).toBeCloseTo(0.25 / 1.75, 12);
  });

  it('records a positive rating then a 60 % edit by the same user as positive_then_heavy_edit, and lets the edit win', () => {
    const rating = signal('e1', 'rating', { rating: 5 }, { userId: 'ann', occurredAt: T0 });
    const edit = signal('e2', 'edit', { edited: 'mostly new' }, { userId: 'ann', occurredAt: minutesAfter(5), editDistance: 60 });
    const asOf = minutesAfter(5);
    const result = compositeScore([edit, rating], settings, asOf);
    expect(result.conflicts).toEqual([
      { kind: 'positive_then_heavy_edit', userId: 'ann', earlierEventId: 'e1', laterEventId: 'e2', resolution: 'later_wins' },
    ]);
    // rating 1.0 × decay(5 min) × 0.5 at +1, edit 0.6 at -0.6
    const ratingWeight = 0.5 ** (5 / (30 * 24 * 60)) * 0.5;
    expect(result.weightSum).toBeCloseTo(ratingWeight + 0.6, 12);
    expect(result.score).toBeCloseTo((ratingWeight - 0.36) / (ratingWeight + 0.6), 12);
    expect(result.score).toBeCloseTo(0.1272, 4);
    const undiscounted = compositeScore([edit, rating], settingsWith({ conflictDiscount: 1 }), asOf);
    expect(undiscounted.score).toBeCloseTo(0.4, 4);
    expect(result.score ?? 1).toBeLessThan(undiscounted.score ?? 0);
  });

  it('gives exact numbers with simultaneous signals ordered by event id', () => {
    const rating = signal('e1', 'rating', { rating: 5 }, { userId: 'ann' });
    const edit = signal('e2', 'edit', { edited: 'mostly new' }, { userId: 'ann', editDistance: 60 });
    const result = compositeScore([edit, rating], settings, T0);
    // (0.5 × 1 + 0.6 × -0.6) / (0.5 + 0.6) = 0.14 / 1.1
    expect(result.weightSum).toBeCloseTo(1.1, 12);
    expect(result.score).toBeCloseTo(0.14 / 1.1, 12);
    expect(result.confidence).toBeCloseTo(1.1 / 2.1, 12);
    expect(result.conflicts[0]?.kind).toBe('positive_then_heavy_edit');
  });

  it('names the other conflict kinds', () => {
    const kinds = (...signals: ScoredSignal[]) => compositeScore(signals, settings, T0).conflicts.map((c) => c.kind);
    const up = (id: string, minute: number) => signal(id, 'thumbs_up', {}, { userId: 'ann', occurredAt: minutesAfter(minute) });
    expect(kinds(up('e1', 0), signal('e2', 'thumbs_down', {}, { userId: 'ann', occurredAt: minutesAfter(1) }))).toEqual(['positive_then_negative']);
    expect(kinds(signal('e1', 'retry', { rephrasedQuery: 'q' }, { userId: 'ann' }), up('e2', 1))).toEqual(['negative_then_positive']);
    // A 20 % edit is negative but not heavy; a correction without a distance counts as a full rewrite.
    expect(kinds(up('e1', 0), signal('e2', 'edit', { edited: 'x' }, { userId: 'ann', occurredAt: minutesAfter(1), editDistance: 20 }))).toEqual([
      'positive_then_negative',
    ]);
    expect(kinds(up('e1', 0), signal('e2', 'correction', { corrected: 'x' }, { userId: 'ann', occurredAt: minutesAfter(1) }))).toEqual([
      'positive_then_heavy_edit',
    ]);
  });

  it('finds no conflict between different users, anonymous signals or neutral ones', () => {
    const result = compositeScore(
      [
        signal('e1', 'thumbs_up', {}, { userId: 'ann' }),
        signal('e2', 'thumbs_down', {}, { userId: 'bob', occurredAt: minutesAfter(1) }),
        signal('e3', 'thumbs_up', {}, { occurredAt: minutesAfter(2) }),
        signal('e4', 'thumbs_down', {}, { occurredAt: minutesAfter(3) }),
        signal('e5', 'comment', { comment: 'hmm' }, { userId: 'ann', occurredAt: minutesAfter(4) }),
      ],
      settings,
      T0,
    );
    expect(result.conflicts).toEqual([]);
    expect(result.signalCount).toBe(5);
  });

  it('discounts an earlier signal once however many later signals contradict it', () => {
    const signals = [
      signal('e1', 'thumbs_up', {}, { userId: 'ann' }),
      signal('e2', 'thumbs_down', {}, { userId: 'ann', occurredAt: minutesAfter(1) }),
      signal('e3', 'escalation', {}, { userId: 'ann', occurredAt: minutesAfter(2) }),
    ];
    const result = compositeScore(signals, settings, minutesAfter(2));
    expect(result.conflicts.map((c) => [c.earlierEventId, c.laterEventId])).toEqual([
      ['e1', 'e2'],
      ['e1', 'e3'],
    ]);
    const decay = (minutes: number) => 0.5 ** (minutes / (30 * 24 * 60));
    const weights = [decay(2) * 0.5, 1.5 * decay(1), 1.5];
    expect(result.weightSum).toBeCloseTo(weights.reduce((a, b) => a + b, 0), 12);
  });

  it('orders conflicts by user, then by the signals, whatever the input order', () => {
    const signals = [
      signal('b1', 'thumbs_down', {}, { userId: 'bob' }),
      signal('b2', 'thumbs_up', {}, { userId: 'bob', occurredAt: minutesAfter(1) }),
      signal('a1', 'thumbs_up', {}, { userId: 'ann' }),
      signal('a2', 'thumbs_down', {}, { userId: 'ann', occurredAt: minutesAfter(1) }),
      signal('a3', 'continue', {}, { userId: 'ann', occurredAt: minutesAfter(2) }),
    ];
    const expected = [
      ['ann', 'a1', 'a2'],
      ['ann', 'a2', 'a3'],
      ['bob', 'b1', 'b2'],
    ];
    for (const order of [signals, [...signals].reverse()]) {
      expect(compositeScore(order, settings, T0).conflicts.map((c) => [c.userId, c.earlierEventId, c.laterEventId])).toEqual(expected);
    }
  });
});

/** Arbitrary signals with consistent polarity and value, unique event ids and a few users. */
const polarityOf = (value: number): Polarity => (value > 0 ? 'positive' : value < 0 ? 'negative' : 'neutral');
const arbitrarySignal = fc
  .record({
    type: fc.constantFrom(...FEEDBACK_EVENT_TYPES),
    userId: fc.constantFrom(null, 'ann', 'bob'),
    signalClass: fc.constantFrom(...SIGNAL_CLASSES),
    value: fc.double({ min: -1, max: 1, noNaN: true }),
    minutes: fc.integer({ min: 0, max: 60 * 24 * 90 }),
    editDistance: fc.option(fc.integer({ min: 0, max: 100 })),
  })
  .map(({ minutes, ...rest }) => ({ ...rest, polarity: polarityOf(rest.value), occurredAt: minutesAfter(minutes) }));
const arbitrarySignals = fc
  .array(arbitrarySignal, { maxLength: 25 })
  .map((list): ScoredSignal[] => list.map((s, i) => ({ ...s, eventId: `e${i}` })));
const AS_OF = minutesAfter(60 * 24 * 90);

describe('compositeScore properties', () => {
  it('keeps the score in [-1, 1] and the confidence in [0, 1)', () => {
    fc.assert(
      fc.property(arbitrarySignals, (signals) => {
        const result = compositeScore(signals, settings, AS_OF);
        if (result.score !== null) expect(Math.abs(result.score)).toBeLessThanOrEqual(1);
        expect(result.confidence).toBeGreaterThanOrEqual(0);
        expect(result.confidence).toBeLessThan(1);
        expect(result.signalCount).toBe(signals.length);
      }),
    );
  });

  it('does not depend on the order of the input', () => {
    fc.assert(
      fc.property(arbitrarySignals, fc.array(fc.nat()), (signals, keys) => {
        const shuffled = signals
          .map((s, i) => ({ s, key: keys[i] ?? i }))
          .sort((a, b) => a.key - b.key)
          .map(({ s }) => s);
        expect(compositeScore(shuffled, settings, AS_OF)).toEqual(compositeScore(signals, settings, AS_OF));
      }),
    );
  });

  it('never lowers the score by adding a full positive signal that conflicts with nothing', () => {
    fc.assert(
      fc.property(arbitrarySignals, fc.integer({ min: 0, max: 60 * 24 * 90 }), (signals, minutes) => {
        const before = compositeScore(signals, settings, AS_OF).score;
        const thumbsUp: ScoredSignal = {
          eventId: 'added',
          type: 'thumbs_up',
          userId: null,
          signalClass: 'explicit_positive',
          polarity: 'positive',
          value: 1,
          occurredAt: minutesAfter(minutes),
          editDistance: null,
        };
        const after = compositeScore([...signals, thumbsUp], settings, AS_OF);
        expect(after.conflicts).toEqual(compositeScore(signals, settings, AS_OF).conflicts);
        expect(after.score ?? 0).toBeGreaterThanOrEqual((before ?? -1) - 1e-12);
      }),
    );
  });

  it('classifies every sample into a score in [-1, 1]', () => {
    const signals = FEEDBACK_EVENT_TYPES.map((type, i) =>
      signal(`e${i}`, type, SAMPLE_PAYLOADS[type], { userId: 'ann', occurredAt: minutesAfter(i), editDistance: 60 }),
    );
    const result = compositeScore(signals, settings, minutesAfter(FEEDBACK_EVENT_TYPES.length));
    expect(result.signalCount).toBe(FEEDBACK_EVENT_TYPES.length);
    expect(result.score).not.toBeNull();
    expect(Math.abs(result.score ?? 2)).toBeLessThanOrEqual(1);
  });
});
