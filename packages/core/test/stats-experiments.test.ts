/**
 * The experiment statistics against GrowthBook's own test vectors (growthbook/growthbook,
 * packages/stats/tests/...) and textbook examples, to 3 decimals or better.
 */
import { describe, expect, it } from 'vitest';
import { defaultExperimentDefinition } from '../src/experiment-definition.js';
import { bayesianEffectTest } from '../src/stats/bayesian-effect.js';
import { analyzeExperiment, emptyTotals, type VariantTotals } from '../src/stats/experiment-analysis.js';
import { experimentFacts } from '../src/stats/experiment-facts.js';
import { effectMoments, sequentialTTest, welchTTest, type EffectMoments } from '../src/stats/relative-lift.js';
import { sampleRatioMismatch } from '../src/stats/sample-ratio.js';
import { statisticVariance, type SampleStatistic } from '../src/stats/sample-statistic.js';

const mean = (n: number, sum: number, sumSquares: number): SampleStatistic => ({ kind: 'mean', n, sum, sumSquares });
const prop = (n: number, sum: number): SampleStatistic => ({ kind: 'proportion', n, sum });

function moments(a: SampleStatistic, b: SampleStatistic): EffectMoments {
  const m = effectMoments(a, b);
  if (!m) throw new Error('no moments');
  return m;
}

/** The numbers of a result by path (`ci.0`, `risk.control`), so a whole result is checked at once. */
function flatten(value: unknown, path = ''): Record<string, number> {
  if (typeof value === 'number') return { [path]: value };
  if (value === null || typeof value !== 'object') return {};
  return Object.assign({}, ...Object.entries(value).map(([k, v]) => flatten(v, path === '' ? k : `${path}.${k}`)));
}

/** Every number `expected` gives matches `actual` to 4 decimals (the vectors have 5). */
function expectNear(actual: object, expected: object): void {
  const got = flatten(actual);
  for (const [path, want] of Object.entries(flatten(expected))) expect(got[path], path).toBeCloseTo(want, 4);
}

describe('sufficient statistics (gbstats models/statistics.py)', () => {
  it('a mean metric has the unbiased sample variance, a proportion p(1 − p)', () => {
    // 10 units summing to 100 with squares 1002.25: mean 10, variance 2.25 / 9 = 0.25.
    expect(statisticVariance(mean(10, 100, 1002.25))).toBeCloseTo(0.25, 10);
    expect(statisticVariance(prop(100, 49))).toBeCloseTo(0.49 * 0.51, 10);
  });
});

describe('frequentist relative lift (gbstats frequentist/tests.py)', () => {
  // tests/frequentist/test_tests.py TestTwoSidedTTest.test_two_sided_ttest
  it('two-sided Welch test on means', () => {
    const r = welchTTest(moments(mean(3407, 1396.87, 52377.9767), mean(3461, 2422.7, 134698.29)));
    expectNear(r, { lift: 0.70732, standardError: 0.37879, ci: [-0.03526, 1.44989], pValue: 0.06191 });
  });

  // tests/frequentist/test_tests.py TestTwoSidedTTest.test_two_sided_ttest_binom
  it('two-sided Welch test on proportions', () => {
    const r = welchTTest(moments(prop(28, 14), prop(30, 16)));
    expectNear(r, { lift: 0.06667, standardError: 0.2717, ci: [-0.47767, 0.61101], pValue: 0.80707 });
  });

  // tests/frequentist/test_tests.py TestTwoSidedTTest.test_two_sided_ttest_missing_variance: n = 2
  // with these sums gives a negative variance, and GrowthBook returns its default (no result).
  it('no result without a positive variance or with a control mean of 0', () => {
    expect(effectMoments(mean(2, 1396.87, 52377.9767), mean(3461, 2422.7, 134698.29))).toBeUndefined();
    expect(effectMoments(prop(100, 0), prop(100, 10))).toBeUndefined();
  });

  // tests/frequentist/test_tests.py TestSequentialTTest.test_sequential_test_runs (tuning 1000)
  it('sequential confidence sequence, tuning 1000', () => {
    const m = moments(mean(3000, 1396.87, 52377.9767), mean(3461, 2422.7, 134698.29));
    const r = sequentialTTest(m, 6461, 1000);
    expectNear(r, { lift: 0.50336, standardError: 0.33341, ci: [-0.55844, 1.56516], pValue: 1 });
  });

  // tests/frequentist/test_tests.py TestSequentialTTest.test_sequential_test_runs_prop (default tuning 5000)
  it('sequential confidence sequence on proportions, default tuning', () => {
    const r = sequentialTTest(moments(prop(3000, 1396), prop(3461, 2422)), 6461);
    expectNear(r, { lift: 0.50386, standardError: 0.03386, ci: [0.40098, 0.60675], pValue: 0 });
  });

  // tests/frequentist/test_tests.py test_sequential_test_tuning_as_expected
  it('the sequence is tightest when tuned near the sample size', () => {
    const m = moments(mean(3000, 1396.87, 52377.9767), mean(3461, 2422.7, 134698.29));
    const width = (tuning: number): number => {
      const { ci } = sequentialTTest(m, 6461, tuning);
      return ci[1] - ci[0];
    };
    expect(width(10)).toBeGreaterThan(width(10000));
    expect(width(10000)).toBeGreaterThan(width(6461));
    expect(width(6461)).toBeGreaterThan(welchTTest(m).ci[1] - welchTTest(m).ci[0]);
  });

  // Textbook: Welch's t-test, the Welch–Satterthwaite degrees of freedom for two samples with
  // variances 0.25 and 1, 10 units each: (0.025 + 0.1)² / (0.025²/9 + 0.1²/9) = 13.235.
  it('Welch–Satterthwaite degrees of freedom', () => {
    expect(moments(mean(10, 100, 1002.25), mean(10, 105, 1111.5)).dof).toBeCloseTo(13.235, 3);
  });
});

describe('Bayesian effect test (gbstats bayesian/tests.py EffectBayesianABTest)', () => {
  // tests/bayesian/test_tests.py TestNorm.test_bayesian_gaussian_ab_test
  it('gaussian metric, improper prior', () => {
    const r = bayesianEffectTest(moments(mean(10, 100, 1002.25), mean(10, 105, 1111.5)));
    expectNear(r, { lift: 0.05, standardDeviation: 0.03572, ci: [-0.02, 0.12], chanceToWin: 0.91923, risk: { control: 0.05131, treatment: 0.00131 } });
  });

  // tests/bayesian/test_tests.py TestNorm.test_bayesian_gaussian_ab_test_informative
  it('gaussian metric, proper prior N(0.1, 0.1)', () => {
    const r = bayesianEffectTest(moments(mean(10, 100, 1002.25), mean(10, 105, 1111.5)), { prior: { mean: 0.1, variance: 0.1, proper: true } });
    expectNear(r, { lift: 0.05063, standardDeviation: 0.03549, ci: [-0.01893, 0.12019], chanceToWin: 0.92315, risk: { control: 0.05186, treatment: 0.00123 } });
  });

  // tests/bayesian/test_tests.py TestBinom.test_bayesian_binomial_ab_test
  it('proportions 49/100 against 51/100', () => {
    const r = bayesianEffectTest(moments(prop(100, 49), prop(100, 51)));
    expectNear(r, { lift: 0.04082, standardDeviation: 0.14725, ci: [-0.24779, 0.32943], chanceToWin: 0.60918, risk: { control: 0.0814, treatment: 0.04058 } });
  });

  it('an inverse metric wins when the effect is negative, and its risks swap', () => {
    const m = moments(prop(100, 49), prop(100, 51));
    const plain = bayesianEffectTest(m);
    const inverse = bayesianEffectTest(m, { inverse: true });
    expect(inverse.chanceToWin).toBeCloseTo(1 - plain.chanceToWin, 10);
    expect(inverse.risk).toEqual({ control: plain.risk.treatment, treatment: plain.risk.control });
  });
});

describe('sample-ratio mismatch (gbstats utils.py check_srm)', () => {
  // tests/test_gbstats.py test_srm: check_srm([1000, 1200], [0.5, 0.5]) == 0.000020079
  it('GrowthBook vector', () => {
    const r = sampleRatioMismatch([1000, 1200], [0.5, 0.5]);
    expect(r.pValue).toBeCloseTo(0.000020079, 8);
    expect(r.mismatch).toBe(true);
  });

  // Textbook: Mendel's dihybrid peas, 315/108/101/32 against 9:3:3:1, chi-square 0.470 on 3 df,
  // p 0.925 (e.g. Agresti, Categorical Data Analysis, 3rd ed., §1.5).
  it('Mendel against 9:3:3:1', () => {
    const r = sampleRatioMismatch([315, 108, 101, 32], [9, 3, 3, 1]);
    expect(r.chiSquare).toBeCloseTo(0.47, 3);
    expect(r.pValue).toBeCloseTo(0.925, 3);
    expect(r.mismatch).toBe(false);
  });

  it('no traffic is no mismatch; a zero weight adds nothing', () => {
    expect(sampleRatioMismatch([0, 0], [1, 1]).pValue).toBe(1);
    expect(sampleRatioMismatch([500, 500, 0], [1, 1, 0]).chiSquare).toBe(0);
    // As check_srm: the zero-weight variant still counts in the total, so its traffic shows as a mismatch.
    expect(sampleRatioMismatch([500, 500, 7], [1, 1, 0]).chiSquare).toBeGreaterThan(0);
  });
});

describe('analyzeExperiment', () => {
  const totals = (variant: string, responses: number, rated: number, positive: number): VariantTotals => ({
    ...emptyTotals(variant),
    responses,
    rated,
    positive,
  });

  it('a real difference reads as better, in percentages, with every test beside it', () => {
    const a = analyzeExperiment([totals('control', 1000, 1000, 600), totals('B', 1000, 1000, 700)], defaultExperimentDefinition());
    const [c] = a.comparisons;
    expect(a.verdict).toBe('treatment is better');
    // (0.7 − 0.6) / 0.6 = 16.667 %
    expect(c?.lift).toBeCloseTo(16.667, 3);
    expect(c?.sequential?.ci[0]).toBeGreaterThan(0);
    expect(c?.fixedHorizon?.pValue).toBeLessThan(0.001);
    expect(c?.bayesian?.chanceToWin).toBeGreaterThan(0.99);
    expect(a.variants[0]?.satisfaction.rate).toBeCloseTo(60, 10);
  });

  it('a lower correction rate is better', () => {
    const a = analyzeExperiment(
      [
        { ...totals('control', 2000, 0, 0), corrected: 400 },
        { ...totals('B', 2000, 0, 0), corrected: 200 },
      ],
      { ...defaultExperimentDefinition(), metric: 'correction_rate' },
    );
    expect(a.verdict).toBe('treatment is better');
    expect(a.comparisons[0]?.lift).toBeCloseTo(-50, 6);
  });

  it('too few units is not enough data; a skewed split is a mismatch whatever the metric says', () => {
    expect(analyzeExperiment([totals('control', 50, 50, 30), totals('B', 50, 50, 45)], defaultExperimentDefinition()).verdict).toBe('not enough data');
    const skewed = analyzeExperiment([totals('control', 1000, 1000, 600), totals('B', 1200, 1200, 840)], defaultExperimentDefinition());
    expect(skewed.sampleRatio.pValue).toBeCloseTo(0.000020079, 8);
    expect(skewed.verdict).toBe('sample ratio mismatch: results unreliable');
    // The same split is expected when declared 5:6.
    const declared = analyzeExperiment([totals('control', 1000, 1000, 600), totals('B', 1200, 1200, 840)], {
      ...defaultExperimentDefinition(),
      weights: { control: 5, B: 6 },
    });
    expect(declared.sampleRatio.mismatch).toBe(false);
    expect(declared.verdict).toBe('treatment is better');
  });

  it('equal rates are no detectable difference; a missing control is no comparison, and a mismatch', () => {
    expect(analyzeExperiment([totals('control', 500, 500, 300), totals('B', 500, 500, 300)], defaultExperimentDefinition()).verdict).toBe(
      'no detectable difference yet',
    );
    const noControl = analyzeExperiment([totals('A', 500, 500, 300), totals('B', 500, 500, 300)], defaultExperimentDefinition());
    expect(noControl.variants.map((v) => v.variant)).toEqual(['control', 'A', 'B']);
    expect(noControl.comparisons.every((c) => c.lift === null)).toBe(true);
    // The control was expected to take a third of the traffic and took none.
    expect(noControl.verdict).toBe('sample ratio mismatch: results unreliable');
  });
});

describe('experimentFacts', () => {
  it('a response is positive only when its positive ratings outnumber its negative ones', () => {
    const up = { type: 'thumbs_up', polarity: 'positive', editDistance: null } as const;
    const down = { type: 'rating', polarity: 'negative', editDistance: null } as const;
    expect(experimentFacts([up, down], null)).toMatchObject({ rated: true, positive: false });
    expect(experimentFacts([up, up, down], null)).toMatchObject({ rated: true, positive: true });
    // An escalation has a polarity but is no rating.
    expect(experimentFacts([{ type: 'escalation', polarity: 'negative', editDistance: null }], null)).toMatchObject({ rated: false, positive: false });
  });

  it('counts corrections and the edit distances of corrections and edits', () => {
    const facts = experimentFacts(
      [
        { type: 'correction', polarity: 'negative', editDistance: 30 },
        { type: 'edit', polarity: 'negative', editDistance: 10 },
        { type: 'correction', polarity: 'negative', editDistance: null },
      ],
      -0.4,
    );
    expect(facts).toEqual({ rated: false, positive: false, corrected: true, edits: 2, editDistanceSum: 40, score: -0.4 });
  });
});
