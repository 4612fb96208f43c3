import { describe, expect, it } from 'vitest';
import { recentDropOf } from '../src/stats/recent-drop.js';
import { linearTrend, mannKendall, trendOf } from '../src/stats/trend.js';

/**
 * R's `cars` data set (Ezekiel 1930), `summary(lm(dist ~ speed, data = cars))` as printed in R's
 * documentation and every R primer: slope 3.9324, std. error 0.4155, t 9.464, p 1.49e-12,
 * intercept -17.5791, 48 degrees of freedom.
 */
const SPEED = [4, 4, 7, 7, 8, 9, 10, 10, 10, 11, 11, 12, 12, 12, 12, 13, 13, 13, 13, 14, 14, 14, 14, 15, 15, 15, 16, 16, 17, 17, 17, 18, 18, 18, 18, 19, 19, 19, 20, 20, 20, 20, 20, 22, 23, 24, 24, 24, 24, 25];
const DIST = [2, 10, 4, 22, 16, 10, 18, 26, 34, 17, 28, 14, 20, 24, 28, 26, 34, 34, 46, 26, 36, 60, 80, 20, 26, 54, 32, 40, 32, 40, 50, 42, 56, 76, 84, 36, 46, 68, 32, 48, 52, 56, 64, 66, 54, 70, 92, 93, 120, 85];

/**
 * "A Mann-Kendall Example (By Hand)", J. Little, College of the Holy Cross
 * (mathcs.holycross.edu/~little/Montserrat/MannKendallByHand.txt): S = 54,
 * V = (14)(13)(33)/18 − (2)(1)(9)/18 (one pair of ties), Z = (S − 1)/√V = 2.9058, one-sided p ≈ .0018.
 */
const LITTLE = [12.9, 14.8, 13.2, 15.7, 13.8, 15.6, 12.9, 11.0, 17.3, 15.9, 19.0, 18.3, 20.1, 21.7];

describe('linearTrend', () => {
  it('matches R for lm(dist ~ speed, cars) to 3 decimals', () => {
    const fit = linearTrend(SPEED.map((x, i) => ({ x, y: DIST[i] ?? 0 })));
    expect(fit.n).toBe(50);
    expect(fit.df).toBe(48);
    expect(fit.slope).toBeCloseTo(3.9324, 3);
    expect(fit.intercept).toBeCloseTo(-17.5791, 3);
    expect(fit.slopeStdError).toBeCloseTo(0.4155, 3);
    expect(fit.t).toBeCloseTo(9.464, 3);
    expect(fit.pValue).toBeGreaterThan(1.48e-12);
    expect(fit.pValue).toBeLessThan(1.5e-12);
  });

  it('gives nulls without enough points or spread in x', () => {
    expect(linearTrend([{ x: 0, y: 1 }, { x: 1, y: 2 }]).slope).toBeNull();
    expect(linearTrend([{ x: 1, y: 1 }, { x: 1, y: 2 }, { x: 1, y: 3 }]).pValue).toBeNull();
  });

  it('treats a perfect line as certain and a flat one as no trend', () => {
    expect(linearTrend([0, 1, 2, 3].map((x) => ({ x, y: 2 * x + 1 })))).toMatchObject({ slope: 2, pValue: 0 });
    expect(linearTrend([0, 1, 2, 3].map((x) => ({ x, y: 5 })))).toMatchObject({ slope: 0, pValue: 1 });
  });
});

describe('mannKendall', () => {
  it('matches the Holy Cross worked example (with one tie) to 3 decimals', () => {
    const mk = mannKendall(LITTLE);
    expect(mk.s).toBe(54);
    expect(mk.variance).toBeCloseTo((14 * 13 * 33) / 18 - (2 * 1 * 9) / 18, 6);
    expect(mk.variance).toBeCloseTo(332.667, 3);
    expect(mk.z).toBeCloseTo(2.9058, 3);
    expect(mk.pValue / 2).toBeCloseTo(0.0018, 3);
    expect(mk.tau).toBeCloseTo(54 / 91, 6);
  });

  it('is antisymmetric: the reversed series has −S and the same p', () => {
    const mk = mannKendall([...LITTLE].reverse());
    expect(mk.s).toBe(-54);
    expect(mk.z).toBeCloseTo(-2.9058, 3);
  });

  it('gives S = 0, Z = 0, p = 1 for a constant series', () => {
    expect(mannKendall([3, 3, 3, 3])).toMatchObject({ s: 0, z: 0, variance: 0, pValue: 1 });
  });
});

describe('trendOf', () => {
  const rising = [60, 63, 61, 66, 68, 67, 71, 74, 73, 78].map((y, x) => ({ x, y }));

  it('says improving or declining only when both tests agree and are significant', () => {
    expect(trendOf(rising).direction).toBe('improving');
    expect(trendOf(rising.map((p) => ({ x: p.x, y: 100 - p.y }))).direction).toBe('declining');
    expect(trendOf([70, 72, 69, 71, 70, 72, 69, 71].map((y, x) => ({ x, y }))).direction).toBe('stable');
  });

  it('needs at least 7 days', () => {
    const six = rising.slice(0, 6);
    const result = trendOf(six);
    expect(result.regression.pValue).toBeLessThan(0.05);
    // Never "stable" on too few days: it says so, with the count.
    expect(result.direction).toBe('not_enough_days');
    expect(result.verdict).toBe('not enough days: 6 of 7');
    expect(result.requiredDays).toBe(7);
    expect(result.days).toBe(6);
    expect(trendOf([{ x: 0, y: 50 }]).verdict).toBe('not enough days: 1 of 7');
    expect(trendOf(rising).verdict).toBe('improving');
  });

  it('orders points by day before testing', () => {
    expect(trendOf([...rising].reverse())).toEqual(trendOf(rising));
  });
});

describe('recentDropOf', () => {
  const steady = (n: number, positive: number, negative: number) => Array.from({ length: n }, () => ({ positive, negative }));

  it('names a sharp drop of the last days below the 7-day line and its interval', () => {
    // 10 days at 80 % of 100 ratings, then two at 52 %: the demo's planted model regression.
    const drop = recentDropOf([...steady(10, 80, 20), ...steady(2, 52, 48)]);
    expect(drop.detected).toBe(true);
    expect(drop.days).toBe(2);
    expect(drop.rate).toBe(52);
    expect(drop.baseline.rate).toBe(80);
    expect(drop.baseline.lower).toBeGreaterThan(52);
    expect(drop.verdict).toBe('sharp drop: 52 % over the last 2 days vs 80 % (76.9–82.8 %) over the 7 days before');
  });

  it('does not name noise, a small sample or a series too short to have a baseline', () => {
    expect(recentDropOf(steady(12, 80, 20)).detected).toBe(false);
    // 78 % vs 80 %: inside the interval.
    expect(recentDropOf([...steady(10, 80, 20), ...steady(2, 78, 22)]).detected).toBe(false);
    // 2 of 5 on each recent day: too few ratings to tell.
    expect(recentDropOf([...steady(10, 80, 20), ...steady(2, 2, 3)]).detected).toBe(false);
    const short = recentDropOf(steady(3, 10, 10));
    expect(short).toMatchObject({ detected: false, verdict: null });
  });
});
