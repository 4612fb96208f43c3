/**
 * Exact figures for two proportions, for where the normal approximation behind GrowthBook's
 * tests fails: a variant at 0 % or 100 % (no variance), a control at 0 (no relative lift), or a
 * 2×2 table with an expected count below 5 (Cochran's rule).
 *
 * - Fisher's exact test (Fisher 1935), two-sided: conditional on the table's margins the count of
 *   the first cell is hypergeometric; the p-value sums the probabilities of every table no more
 *   likely than the observed one, with the relative tolerance 1e-7 R's `fisher.test` and
 *   scipy's `fisher_exact` use for ties. Checked against scipy in `stats-exact.test.ts`.
 * - Newcombe's hybrid score interval for the difference of two proportions (Newcombe 1998,
 *   method 10), built from the two Wilson intervals: unlike the Wald interval it exists at 0 %
 *   and 100 % and keeps its coverage on small samples.
 *
 * Written here rather than taken from a package: the few npm packages with a Fisher test are
 * unmaintained or pull in a whole statistics suite (see `distributions.ts` for why feedloop
 * keeps its statistics small); the hypergeometric sum is a dozen lines over `logGamma`.
 *
 * @module
 */
import { logGamma } from './distributions.js';
import { wilsonInterval } from './wilson.js';

/** ln C(n, k). */
function logChoose(n: number, k: number): number {
  return logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1);
}

function checkCount(name: string, x: number): void {
  if (!Number.isInteger(x) || x < 0) throw new RangeError(`${name} must be a whole number ≥ 0, got ${x}`);
}

/**
 * The two-sided p-value of Fisher's exact test on the table [[a, b], [c, d]] (rows: the two
 * groups, columns: successes and failures). An empty row or column gives 1: nothing to tell apart.
 *
 * @example
 * fisherExactTest(16, 4, 0, 20) // 1.54e-7 (80 % against 0 % with 20 each)
 * fisherExactTest(3, 1, 1, 3) // 0.4857
 */
export function fisherExactTest(a: number, b: number, c: number, d: number): number {
  for (const [name, x] of [['a', a], ['b', b], ['c', c], ['d', d]] as const) checkCount(name, x);
  const row = a + b;
  const col = a + c;
  const n = a + b + c + d;
  const lo = Math.max(0, row + col - n);
  const hi = Math.min(row, col);
  if (lo === hi) return 1;
  const logDenominator = logChoose(n, row);
  const logP = (k: number): number => logChoose(col, k) + logChoose(n - col, row - k) - logDenominator;
  const observed = logP(a);
  // A table counts as "no more likely" within a relative 1e-7, so ties that differ only by
  // rounding are summed (as R and scipy do).
  const threshold = observed + Math.log1p(1e-7);
  let p = 0;
  for (let k = lo; k <= hi; k++) {
    const lp = logP(k);
    if (lp <= threshold) p += Math.exp(lp);
  }
  return Math.min(1, p);
}

/**
 * Newcombe's hybrid score interval (method 10) for p₁ − p₂ with p₁ = s1/n1 and p₂ = s2/n2, as
 * fractions, at `confidence` (default 0.95). Both groups need at least one trial.
 *
 * @example
 * proportionDifferenceInterval(56, 70, 48, 80) // [0.0524, 0.3339] (Newcombe 1998, example (a))
 */
export function proportionDifferenceInterval(s1: number, n1: number, s2: number, n2: number, confidence = 0.95): [number, number] {
  const w1 = wilsonInterval(s1, n1, confidence);
  const w2 = wilsonInterval(s2, n2, confidence);
  if (w1.rate === null || w2.rate === null || w1.lower === null || w1.upper === null || w2.lower === null || w2.upper === null) {
    throw new RangeError('both groups need at least one trial');
  }
  const d = w1.rate - w2.rate;
  return [d - Math.sqrt((w1.rate - w1.lower) ** 2 + (w2.upper - w2.rate) ** 2), d + Math.sqrt((w1.upper - w1.rate) ** 2 + (w2.rate - w2.lower) ** 2)];
}

/**
 * Whether the normal approximation is unsafe for two proportions s1/n1 against s2/n2: an
 * expected count of the 2×2 table under "no difference" below 5 (Cochran 1954), or a group at
 * 0 % or 100 % (a zero variance, where GrowthBook's tests have nothing to say).
 *
 * @example
 * normalApproximationFails(16, 20, 0, 20) // true
 * normalApproximationFails(700, 1000, 600, 1000) // false
 */
export function normalApproximationFails(s1: number, n1: number, s2: number, n2: number): boolean {
  const n = n1 + n2;
  const successes = s1 + s2;
  if (n === 0) return true;
  const expected = [(n1 * successes) / n, (n1 * (n - successes)) / n, (n2 * successes) / n, (n2 * (n - successes)) / n];
  return expected.some((e) => e < 5) || s1 === 0 || s1 === n1 || s2 === 0 || s2 === n2;
}
