/**
 * The probability distributions feedloop's statistics need: normal, Student's t and chi-square.
 * Written here rather than taken from @stdlib (which served them first): its five modules pull
 * in some 250 packages that held 20-35 MB of every server's memory at start (the embedded idle
 * RSS went from 224-249 MB to 261-266 MB), for five functions. The methods are the textbook ones,
 * each accurate to far beyond the 4 decimals the tests check (stats-basics.test.ts, and
 * GrowthBook's vectors in stats-experiments.test.ts):
 * - log-gamma by Lanczos' approximation (g = 7, 9 terms; relative error ~1e-15);
 * - regularized incomplete gamma P(a, x) by its series below a + 1, else by its continued
 *   fraction (modified Lentz), as in Numerical Recipes §6.2;
 * - regularized incomplete beta I_x(a, b) by its continued fraction (Numerical Recipes §6.4);
 * - the normal CDF as Φ(z) = P(1/2, z²/2) / 2 + 1/2 (by symmetry), and its quantile by Acklam's
 *   rational approximation refined by one Halley step;
 * - Student's t CDF through I_x(ν/2, 1/2) with x = ν / (ν + t²), and its quantile by Newton's
 *   method on the CDF from the normal quantile, guarded by bisection.
 *
 * @module
 */

const MAX_ITERATIONS = 500;
const EPSILON = 1e-15;
const TINY = 1e-300;

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
  -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/**
 * ln Γ(x) for x > 0 (Lanczos, g = 7); exported for the exact test's hypergeometric
 * probabilities (`fisher-exact.ts`).
 *
 * @example
 * logGamma(5) // ln 24
 */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let sum = LANCZOS[0] as number;
  for (let i = 1; i < LANCZOS.length; i++) sum += (LANCZOS[i] as number) / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** The regularized lower incomplete gamma function P(a, x). */
function lowerGammaRegularized(a: number, x: number): number {
  if (x <= 0) return 0;
  if (!Number.isFinite(x)) return 1;
  const logPrefix = a * Math.log(x) - x - logGamma(a);
  if (x < a + 1) {
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < MAX_ITERATIONS; n++) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * EPSILON) break;
    }
    return Math.min(1, sum * Math.exp(logPrefix));
  }
  // Q(a, x) by the continued fraction, then P = 1 - Q.
  let b = x + 1 - a;
  let c = 1 / TINY;
  let d = 1 / b;
  let h = d;
  for (let n = 1; n < MAX_ITERATIONS; n++) {
    const an = -n * (n - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < TINY) d = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPSILON) break;
  }
  return Math.max(0, 1 - Math.exp(logPrefix) * h);
}

/** The continued fraction of the incomplete beta function (modified Lentz). */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m < MAX_ITERATIONS; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPSILON) break;
  }
  return h;
}

/** The regularized incomplete beta function I_x(a, b). */
function betaRegularized(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2) ? (front * betaContinuedFraction(a, b, x)) / a : 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b;
}

/**
 * P(Z ≤ z) for the normal distribution (standard by default).
 *
 * @example
 * normalCdf(1.959964) // ≈ 0.975
 */
export function normalCdf(z: number, mean = 0, sd = 1): number {
  if (Number.isNaN(z) || !(sd > 0)) return NaN;
  const x = (z - mean) / sd;
  const half = 0.5 * lowerGammaRegularized(0.5, (x * x) / 2);
  return x >= 0 ? 0.5 + half : 0.5 - half;
}

const ACKLAM_A = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
const ACKLAM_B = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
const ACKLAM_C = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
const ACKLAM_D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
const ACKLAM_LOW = 0.02425;

/** Evaluates a polynomial with coefficients from the highest power down (Horner). */
function horner(coefficients: readonly number[], x: number): number {
  let y = 0;
  for (const c of coefficients) y = y * x + c;
  return y;
}

/**
 * The z with P(Z ≤ z) = p for the normal distribution (the probit for mean 0, sd 1).
 *
 * @example
 * normalQuantile(0.975) // ≈ 1.959964
 */
export function normalQuantile(p: number, mean = 0, sd = 1): number {
  if (Number.isNaN(p) || p < 0 || p > 1 || !(sd > 0)) return NaN;
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  let x: number;
  if (p < ACKLAM_LOW || p > 1 - ACKLAM_LOW) {
    const q = Math.sqrt(-2 * Math.log(p < ACKLAM_LOW ? p : 1 - p));
    x = horner(ACKLAM_C, q) / (horner(ACKLAM_D, q) * q + 1);
    if (p > 1 - ACKLAM_LOW) x = -x;
  } else {
    const q = p - 0.5;
    const r = q * q;
    x = (horner(ACKLAM_A, r) * q) / (horner(ACKLAM_B, r) * r + 1);
  }
  // One Halley step on the CDF takes Acklam's 1e-9 to full precision.
  const e = normalCdf(x) - p;
  const u = e * Math.sqrt(2 * Math.PI) * Math.exp((x * x) / 2);
  x -= u / (1 + (x * u) / 2);
  return mean + sd * x;
}

/**
 * P(T ≤ t) for Student's t distribution with `df` degrees of freedom (`df` may be fractional, as
 * Welch's test gives).
 *
 * @example
 * studentTCdf(2.228139, 10) // ≈ 0.975
 */
export function studentTCdf(t: number, df: number): number {
  if (Number.isNaN(t) || !(df > 0)) return NaN;
  if (!Number.isFinite(t)) return t > 0 ? 1 : 0;
  const tail = 0.5 * betaRegularized(df / (df + t * t), df / 2, 0.5);
  return t > 0 ? 1 - tail : tail;
}

/** The density of Student's t distribution. */
function studentTDensity(t: number, df: number): number {
  return Math.exp(logGamma((df + 1) / 2) - logGamma(df / 2) - 0.5 * Math.log(df * Math.PI) - ((df + 1) / 2) * Math.log(1 + (t * t) / df));
}

/**
 * The t with P(T ≤ t) = p for Student's t distribution with `df` degrees of freedom.
 *
 * @example
 * studentTQuantile(0.975, 10) // ≈ 2.228139
 */
export function studentTQuantile(p: number, df: number): number {
  if (Number.isNaN(p) || p < 0 || p > 1 || !(df > 0)) return NaN;
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  if (p === 0.5) return 0;
  // Newton from the normal quantile, kept inside a bracket that bisection narrows when a step
  // would leave it (heavy tails at small df).
  let lo = -1;
  let hi = 1;
  while (studentTCdf(lo, df) > p) lo *= 2;
  while (studentTCdf(hi, df) < p) hi *= 2;
  let t = Math.min(hi, Math.max(lo, normalQuantile(p)));
  for (let i = 0; i < MAX_ITERATIONS; i++) {
    const f = studentTCdf(t, df) - p;
    if (Math.abs(f) < 1e-15) break;
    if (f > 0) hi = t;
    else lo = t;
    const step = f / studentTDensity(t, df);
    let next = t - step;
    if (!(next > lo && next < hi)) next = (lo + hi) / 2;
    if (Math.abs(next - t) < 1e-14 * Math.max(1, Math.abs(t))) {
      t = next;
      break;
    }
    t = next;
  }
  return t;
}

/**
 * P(X ≤ x) for the chi-square distribution with `df` degrees of freedom.
 *
 * @example
 * 1 - chiSquareCdf(3.841459, 1) // ≈ 0.05
 */
export function chiSquareCdf(x: number, df: number): number {
  if (Number.isNaN(x) || !(df > 0)) return NaN;
  return lowerGammaRegularized(df / 2, Math.max(0, x) / 2);
}

/**
 * Two-sided p-value of a t statistic: P(|T| ≥ |t|).
 *
 * @example
 * twoSidedTPValue(2.228139, 10) // ≈ 0.05
 */
export function twoSidedTPValue(t: number, df: number): number {
  return 2 * (1 - studentTCdf(Math.abs(t), df));
}

/**
 * Two-sided p-value of a z statistic: P(|Z| ≥ |z|).
 *
 * @example
 * twoSidedZPValue(1.959964) // ≈ 0.05
 */
export function twoSidedZPValue(z: number): number {
  return 2 * (1 - normalCdf(Math.abs(z)));
}

/**
 * The `p` quantile of the Beta(a, b) distribution, by bisection on its CDF (the regularized
 * incomplete beta): 60 halvings put it within 1e-18 of the answer, plenty for an interval.
 *
 * @example
 * betaQuantile(0.5, 1, 1) // 0.5
 */
export function betaQuantile(p: number, a: number, b: number): number {
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (betaRegularized(mid, a, b) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * P(X ≥ k) for X ~ Binomial(n, p): the upper tail, exactly, as the regularized incomplete beta
 * I_p(k, n − k + 1) (Abramowitz & Stegun 26.5.24). The one-sided test of "more than expected".
 *
 * @example
 * binomialUpperTail(3, 3, 0.5) // 0.125
 */
export function binomialUpperTail(k: number, n: number, p: number): number {
  if (k <= 0) return 1;
  if (k > n) return 0;
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  return betaRegularized(p, k, n - k + 1);
}
