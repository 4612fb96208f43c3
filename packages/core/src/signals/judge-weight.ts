/**
 * How much an automated evaluator's (a judge's) signal counts in a response's composite score
 * (issue 28; docs/evaluators.md, "Weight"). A judge is a model grading a model: its answers weigh
 * only while it is shown to agree with the team's humans — Cohen's kappa against the human labels
 * over the last 30 days at least 0.6 with n ≥ 50 — and then 0.3 × what the same signal weighs
 * from a person. Below that they are stored, shown and counted by source, and weigh 0.
 */
import type { WorkspaceSettings } from '../workspace-settings.js';
import type { ScoredSignal } from './signal-types.js';
import { signalWeight } from './signal-weights.js';

/** The rule's numbers, in one place. */
export const JUDGE_WEIGHT_RULE = Object.freeze({
  /** Kappa at or above which a judge counts. */
  minKappa: 0.6,
  /** Units with both labels it needs at least. */
  minN: 50,
  /** The window its kappa is measured over. */
  windowDays: 30,
  /** Its weight then, as a share of the human weight of the same signal. */
  share: 0.3,
});

/**
 * A judge's weight factor from its calibration over the window: {@link JUDGE_WEIGHT_RULE}'s
 * `share` when kappa ≥ 0.6 with n ≥ 50, else 0 (no kappa — one category only — is 0 too).
 *
 * @example
 * judgeWeightFactor(0.72, 80) // 0.3
 * judgeWeightFactor(0.72, 49) // 0
 * judgeWeightFactor(0.5, 500) // 0
 */
export function judgeWeightFactor(kappa: number | null, n: number): number {
  return kappa !== null && kappa >= JUDGE_WEIGHT_RULE.minKappa && n >= JUDGE_WEIGHT_RULE.minN ? JUDGE_WEIGHT_RULE.share : 0;
}

/**
 * The weight of one `judge` signal in the composite score: the human weight of the same signal
 * times its evaluator's current factor (`judgeWeightFactor`, kept on the evaluator and carried
 * on the signal as `judgeWeightFactor`); 0 when the signal carries none (an evaluator not
 * calibrated yet, or a judge event from outside feedloop's evaluators). It is the only place a
 * judge's weight is decided; `compositeScore` calls it for every signal whose source is `judge`.
 *
 * @param signal the judge's signal (`source: 'judge'`, `evaluatorId`, `judgeWeightFactor`).
 * @param humanWeight what the same signal would weigh from a person: its class's (or score config's) weight.
 * @example
 * judgeWeight({ ...thumbsUp, source: 'judge', evaluatorId: 'ev_1' }, 1, settings) // 0
 * judgeWeight({ ...thumbsUp, source: 'judge', evaluatorId: 'ev_1', judgeWeightFactor: 0.3 }, 1, settings) // 0.3
 */
export function judgeWeight(signal: Pick<ScoredSignal, 'judgeWeightFactor'>, humanWeight: number, settings: WorkspaceSettings): number {
  void settings;
  return humanWeight * (signal.judgeWeightFactor ?? 0);
}

/**
 * The weight kept with a processed signal (`feedback_signals.weight`: what `feedback.submitted`
 * webhooks, exports and their `minWeight` carry): its class's weight (before decay) × the number
 * of events it stands for (1 / its implicit sample rate), and for a `judge` signal that human
 * weight through {@link judgeWeight}, the composite score's rule: a calibrated judge's 0.3 × it,
 * any other judge's 0. Processing stores it with the evaluator's factor of the moment, and the
 * rescore that follows a factor change stores it again, so the two never disagree for long.
 *
 * @example
 * storedSignalWeight({ signalClass: 'explicit_negative', polarity: 'negative', source: 'judge', judgeWeightFactor: 0.3 }, 1, settings) // 0.45
 * storedSignalWeight({ signalClass: 'explicit_negative', polarity: 'negative', source: 'judge' }, 1, settings) // 0
 */
export function storedSignalWeight(
  signal: Pick<ScoredSignal, 'signalClass' | 'polarity' | 'source' | 'judgeWeightFactor'>,
  sampleWeight: number,
  settings: WorkspaceSettings,
): number {
  const human = signalWeight(signal.signalClass, signal.polarity, settings) * sampleWeight;
  return signal.source === 'judge' ? judgeWeight(signal, human, settings) : human;
}
