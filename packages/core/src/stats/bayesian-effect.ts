/**
 * Chance to win and risk as GrowthBook's current Bayesian engine computes them: a gaussian model
 * of the relative effect with a gaussian prior, improper (flat) by default. Sources,
 * growthbook/growthbook packages/stats:
 *
 * - gbstats/bayesian/tests.py `EffectBayesianABTest.compute_result`: the posterior of the effect
 *   from the delta-method moments and the prior (`GaussianPrior(mean=0, variance=1, proper=False)`);
 *   chance to win = P(effect > 0) (`norm.sf(0, mean, sd)`); credible interval at alpha 0.05;
 * - `EffectBayesianABTest.get_risk` with gbstats/utils.py `truncated_normal_mean`: the expected loss
 *   of choosing control, P(effect > 0)·E[effect | effect > 0], and of choosing treatment,
 *   −P(effect < 0)·E[effect | effect < 0]; for an inverse metric (lower is better) the chance to win
 *   is P(effect < 0) and the two risks swap.
 *
 * Figures are relative to the control's mean, as fractions (GrowthBook's `risk_type` "relative").
 *
 * @module
 */
import { normalCdf, normalQuantile } from './distributions.js';
import type { EffectMoments } from './relative-lift.js';
import { DEFAULT_ALPHA } from './relative-lift.js';

/** A gaussian prior on the relative effect; GrowthBook's default is improper (no prior). */
export interface GaussianPrior {
  mean: number;
  variance: number;
  proper: boolean;
}

/** GrowthBook's `GaussianPrior()` defaults. */
export const DEFAULT_PRIOR: GaussianPrior = { mean: 0, variance: 1, proper: false };

/** The Bayesian comparison. */
export interface BayesianResult {
  /** Posterior mean of the relative effect. */
  lift: number;
  /** Posterior standard deviation. */
  standardDeviation: number;
  /** Credible interval (alpha / 2 and 1 − alpha / 2 quantiles). */
  ci: [number, number];
  /** P(treatment beats control), 0–1. */
  chanceToWin: number;
  /** Expected relative loss of keeping control and of shipping treatment. */
  risk: { control: number; treatment: number };
}

/** Standard normal density (closed form; the distributions file has only the cdf and quantile). */
function density(z: number): number {
  return Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);
}

/**
 * E[X | X < 0] and E[X | X > 0] for X ~ N(mu, sigma²): the means of the two truncated normals
 * (mu ∓ sigma·φ(β)/Φ(∓β) with β = −mu/sigma), as scipy's truncnorm gives them to gbstats.
 */
function truncatedMeans(mu: number, sigma: number): { below: number; above: number } {
  const beta = -mu / sigma;
  return {
    below: mu - (sigma * density(beta)) / normalCdf(beta),
    above: mu + (sigma * density(beta)) / (1 - normalCdf(beta)),
  };
}

/**
 * The posterior of the relative effect and its decision figures.
 *
 * @param inverse the metric is better when lower (e.g. correction rate).
 * @example
 * bayesianEffectTest({ lift: 0.05, standardError: 0.035716, dof: 17 }).chanceToWin // ≈ 0.919
 */
export function bayesianEffectTest(moments: EffectMoments, options: { prior?: GaussianPrior; inverse?: boolean; alpha?: number } = {}): BayesianResult {
  const prior = options.prior ?? DEFAULT_PRIOR;
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  const dataVariance = moments.standardError ** 2;
  const priorPrecision = prior.proper ? 1 / prior.variance : 0;
  const posteriorPrecision = 1 / dataVariance + priorPrecision;
  const mean = prior.proper ? (moments.lift / dataVariance + prior.mean / prior.variance) / posteriorPrecision : moments.lift;
  const sd = Math.sqrt(1 / posteriorPrecision);
  const pBelow = normalCdf(0, mean, sd);
  const { below, above } = truncatedMeans(mean, sd);
  const riskControl = (1 - pBelow) * above;
  const riskTreatment = -pBelow * below;
  const inverse = options.inverse ?? false;
  return {
    lift: mean,
    standardDeviation: sd,
    ci: [normalQuantile(alpha / 2, mean, sd), normalQuantile(1 - alpha / 2, mean, sd)],
    chanceToWin: inverse ? pBelow : 1 - pBelow,
    risk: inverse ? { control: riskTreatment, treatment: riskControl } : { control: riskControl, treatment: riskTreatment },
  };
}
