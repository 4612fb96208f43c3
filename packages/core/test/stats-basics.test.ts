import { describe, expect, it } from 'vitest';
import { chiSquareCdf, normalCdf, normalQuantile, studentTCdf, studentTQuantile, twoSidedTPValue } from '../src/stats/distributions.js';
import { wilsonInterval } from '../src/stats/wilson.js';

describe('distributions (textbook table values)', () => {
  it('normal and t quantiles and CDFs', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
    expect(normalCdf(1.644854)).toBeCloseTo(0.95, 5);
    expect(studentTQuantile(0.975, 10)).toBeCloseTo(2.228139, 5);
    expect(studentTCdf(2.228139, 10)).toBeCloseTo(0.975, 5);
    expect(twoSidedTPValue(2.0, 30)).toBeCloseTo(0.05462, 4);
    expect(1 - chiSquareCdf(3.841459, 1)).toBeCloseTo(0.05, 5);
    expect(1 - chiSquareCdf(10.828, 1)).toBeCloseTo(0.001, 5);
  });
});

describe('wilsonInterval', () => {
  // Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table II, method 3.
  it.each([
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
  ])('%i of %i is [%f, %f]', (successes, trials, lower, upper) => {
    const ci = wilsonInterval(successes, trials);
    expect(ci.rate).toBeCloseTo(successes / trials, 10);
    expect(ci.lower).toBeCloseTo(lower, 4);
    expect(ci.upper).toBeCloseTo(upper, 4);
  });

  it('has nothing to say without trials, and refuses impossible counts', () => {
    expect(wilsonInterval(0, 0)).toEqual({ rate: null, lower: null, upper: null, confidence: 0.95 });
    expect(() => wilsonInterval(5, 4)).toThrow(RangeError);
  });
});
