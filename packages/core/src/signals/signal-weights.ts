/**
 * How much each class of signal counts towards a response's score: ADR-004's initial weights,
 * which a workspace may override class by class.
 */
import type { WorkspaceSettings } from '../workspace-settings.js';
import type { Polarity, SignalClass } from './signal-types.js';

/**
 * ADR-004's "initial weights (tunable)". ADR-004 lists long-term edits among its signal types but
 * gives them no weight: they get 0.5, a little under an immediate edit (0.6), because an edit days
 * later is as likely to follow changed needs as a flaw in the response. `explicit_neutral` (a skip,
 * a comment, a 3-star rating) says neither good nor bad and weighs 0.
 */
export const DEFAULT_SIGNAL_WEIGHTS: Readonly<Record<SignalClass, number>> = Object.freeze({
  explicit_positive: 1.0,
  explicit_negative: 1.5,
  explicit_neutral: 0,
  immediate_edit: 0.6,
  long_term_edit: 0.5,
  abandonment: 0.3,
  retry: 0.7,
  continued_use: 0.4,
  outcome: 0.9,
});

/** The class whose weight every neutral signal takes, whatever its own class. */
const NEUTRAL_CLASS: SignalClass = 'explicit_neutral';

/**
 * The base weight of one signal before decay and conflict discounts: the workspace's weight for
 * its class, else ADR-004's default.
 *
 * A neutral signal (a refinement edit, an outcome of exactly 0, a 3-star rating) takes the
 * `explicit_neutral` weight whatever its class, 0 by default: it says neither good nor bad, so it
 * must not drag a score towards 0 just by being counted. A workspace that wants neutral signals to
 * pull towards the middle gives `explicit_neutral` a weight.
 *
 * @example
 * signalWeight('explicit_negative', 'negative', settings) // 1.5 with default settings
 * signalWeight('immediate_edit', 'neutral', settings) // 0 with default settings
 */
export function signalWeight(signalClass: SignalClass, polarity: Polarity, settings: WorkspaceSettings): number {
  const effectiveClass = polarity === 'neutral' ? NEUTRAL_CLASS : signalClass;
  return settings.signalWeights[effectiveClass] ?? DEFAULT_SIGNAL_WEIGHTS[effectiveClass];
}
