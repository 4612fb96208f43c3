import { describe, expect, it } from 'vitest';
import { classify } from '../src/signals/classify.js';
import { decayFactor, weigh } from '../src/signals/weigh.js';
import { T0, daysAfter, enrichedEvent, settingsWith } from './signals-fixtures.js';

describe('decayFactor', () => {
  it('halves a signal every half-life', () => {
    expect(decayFactor(T0, T0, 30)).toBe(1);
    expect(decayFactor(T0, daysAfter(30), 30)).toBe(0.5);
    expect(decayFactor(T0, daysAfter(60), 30)).toBe(0.25);
    expect(decayFactor(T0, daysAfter(15), 30)).toBeCloseTo(Math.SQRT1_2, 12);
    expect(decayFactor(T0, daysAfter(1), 1)).toBe(0.5);
  });

  it('counts a future event fully', () => {
    expect(decayFactor(daysAfter(5), T0, 30)).toBe(1);
  });

  it('refuses a half-life that is not positive', () => {
    expect(() => decayFactor(T0, T0, 0)).toThrow(RangeError);
    expect(() => decayFactor(T0, T0, Number.NaN)).toThrow(RangeError);
  });
});

describe('weigh', () => {
  it('multiplies the class weight by the decay', () => {
    const thumbsDown = classify(enrichedEvent('thumbs_down', {}), settingsWith());
    expect(weigh(thumbsDown, T0, daysAfter(30), settingsWith())).toEqual({ base: 1.5, decay: 0.5, weight: 0.75 });
    expect(weigh(thumbsDown, T0, daysAfter(10), settingsWith({ decayHalfLifeDays: 10 }))).toEqual({ base: 1.5, decay: 0.5, weight: 0.75 });
  });

  it("uses the workspace's weights; a neutral signal weighs 0 by default", () => {
    const retry = classify(enrichedEvent('retry', { rephrasedQuery: 'again?' }), settingsWith());
    expect(weigh(retry, T0, T0, settingsWith({ signalWeights: { retry: 2 } }))).toEqual({ base: 2, decay: 1, weight: 2 });
    const refinement = classify(enrichedEvent('edit', { edited: 'x' }, { editDistance: 5 }), settingsWith());
    expect(weigh(refinement, T0, T0, settingsWith())).toEqual({ base: 0, decay: 1, weight: 0 });
  });
});
