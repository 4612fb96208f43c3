import { describe, expect, it } from 'vitest';
import { defaultExperimentDefinition } from '../src/experiment-definition.js';
import { fisherExactTest, proportionDifferenceInterval } from '../src/stats/fisher-exact.js';
import { analyzeExperiment, emptyTotals, type VariantTotals } from '../src/stats/experiment-analysis.js';

// Reference p-values from scipy.stats.fisher_exact (two-sided), the same rule R's fisher.test uses.
describe('fisherExactTest', () => {
  it.each([
    [[16, 4, 0, 20], 1.5417145561750679e-7],
    [[3, 1, 1, 3], 0.48571428571428565],
    [[7, 13, 2, 18], 0.12738612738612737],
    [[60, 40, 75, 25], 0.03414380231476882],
    [[1, 9, 11, 3], 0.0027594561852200836],
    [[6000, 4000, 6100, 3900], 0.1521408063506679],
    [[10, 0, 10, 0], 1],
  ])('%j gives p = %f', (cells, expected) => {
    const [a, b, c, d] = cells as [number, number, number, number];
    const p = fisherExactTest(a, b, c, d);
    expect(Math.abs(p - expected) / expected).toBeLessThan(1e-6);
  });

  it('refuses counts that are not whole and non-negative', () => {
    expect(() => fisherExactTest(-1, 2, 3, 4)).toThrow(RangeError);
    expect(() => fisherExactTest(1.5, 2, 3, 4)).toThrow(RangeError);
  });
});

describe('proportionDifferenceInterval', () => {
  it("Newcombe's hybrid score interval (Newcombe 1998, table II, example (a): 56/70 − 48/80)", () => {
    const ci = proportionDifferenceInterval(56, 70, 48, 80);
    expect(ci[0]).toBeCloseTo(0.0524, 4);
    expect(ci[1]).toBeCloseTo(0.3339, 4);
  });
});

describe('verdicts where the normal approximation fails (issue 24)', () => {
  const totals = (variant: string, rated: number, positive: number): VariantTotals => ({ ...emptyTotals(variant), responses: rated, rated, positive });
  const small = { ...defaultExperimentDefinition(), minSample: 20 };

  it('0 % against 80 % with 20 each is a verdict, with the absolute difference and an exact p-value', () => {
    const a = analyzeExperiment([totals('control', 20, 0), totals('B', 20, 16)], small);
    const [c] = a.comparisons;
    expect(c?.lift).toBeNull(); // relative to a control of 0: undefined
    expect(c?.difference).toBeCloseTo(80, 10);
    expect(c?.differenceCi?.[0]).toBeGreaterThan(0);
    expect(c?.exact?.test).toBe('fisher');
    expect(c?.exact?.pValue).toBeCloseTo(1.5417e-7, 10);
    expect(c?.decidedBy).toBe('fisher_exact');
    expect(c?.preliminary).toBe(false);
    expect(a.verdict).toBe('treatment is better');
  });

  it('80 % against 0 % is worse; a correction rate of 0 against one of 40 % is better', () => {
    expect(analyzeExperiment([totals('control', 20, 16), totals('B', 20, 0)], small).verdict).toBe('treatment is worse');
    const corr = analyzeExperiment(
      [
        { ...totals('control', 0, 0), responses: 30, corrected: 12 },
        { ...totals('B', 0, 0), responses: 30, corrected: 0 },
      ],
      { ...small, metric: 'correction_rate' },
    );
    expect(corr.comparisons[0]?.difference).toBeCloseTo(-40, 10);
    expect(corr.verdict).toBe('treatment is better');
  });

  it('both at 100 % is no difference, decided by the exact test', () => {
    const a = analyzeExperiment([totals('control', 30, 30), totals('B', 30, 30)], small);
    expect(a.comparisons[0]?.exact?.pValue).toBe(1);
    expect(a.verdict).toBe('no detectable difference yet');
  });

  it('large samples keep GrowthBook figures and its sequential verdict', () => {
    const a = analyzeExperiment([totals('control', 1000, 600), totals('B', 1000, 700)], defaultExperimentDefinition());
    const [c] = a.comparisons;
    expect(c?.decidedBy).toBe('sequential');
    expect(c?.exact).toBeNull();
    expect(c?.lift).toBeCloseTo(16.667, 3);
    expect(c?.difference).toBeCloseTo(10, 10);
    expect(a.verdict).toBe('treatment is better');
  });

  it('below minSample the figures are shown, marked preliminary, and the verdict waits', () => {
    const a = analyzeExperiment([totals('control', 50, 30), totals('B', 50, 45)], defaultExperimentDefinition());
    const [c] = a.comparisons;
    expect(a.verdict).toBe('not enough data');
    expect(c?.preliminary).toBe(true);
    expect(c?.lift).toBeCloseTo(50, 6);
    expect(c?.difference).toBeCloseTo(30, 10);
    expect(c?.fixedHorizon?.pValue).toBeLessThan(0.01);
    expect(c?.sequential).not.toBeNull();
  });

  it('a composite score whose control has no spread gets an absolute difference and a Welch verdict', () => {
    // Control: every score −1 (shifted mean 0, no variance); B: half the scores 1, half 0 (mean 0.5).
    const control: VariantTotals = { ...emptyTotals('control'), responses: 30, scored: 30, scoreSum: -30, scoreSumSquares: 30 };
    const b: VariantTotals = { ...emptyTotals('B'), responses: 30, scored: 30, scoreSum: 15, scoreSumSquares: 15 };
    const a = analyzeExperiment([control, b], { ...small, metric: 'composite_score' });
    const [c] = a.comparisons;
    expect(c?.lift).toBeNull();
    expect(c?.difference).toBeCloseTo(1.5, 10);
    expect(c?.decidedBy).toBe('welch_difference');
    expect(a.verdict).toBe('treatment is better');
  });
});
