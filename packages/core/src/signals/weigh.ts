/**
 * The weigh stage: how much one classified signal counts now. Its class's weight (ADR-004, or the
 * workspace's) halves every `decayHalfLifeDays`, ADR-004's open question 2 ("what's the decay rate
 * for old feedback signals?") answered with an exponential decay a workspace can tune.
 */
import type { WorkspaceSettings } from '../workspace-settings.js';
import type { Classification } from './signal-types.js';
import { signalWeight } from './signal-weights.js';

/** Milliseconds in a day. */
const MS_PER_DAY = 86_400_000;
/** The factor per half-life. */
const HALF = 0.5;

/** A signal's weight and where it comes from. */
export interface Weighing {
  /** The class weight, before decay. */
  base: number;
  /** In (0, 1]: how much of the base weight is left at `asOf`. */
  decay: number;
  /** base × decay. */
  weight: number;
}

/**
 * The share of its weight a signal keeps after its age: 0.5^(ageDays / halfLifeDays). Exponential
 * so that the decay is smooth and the relative weight of two signals depends only on how far apart
 * they are, not on when the score is computed. An event dated after `asOf` (clock skew, a client
 * that sent a future `occurredAt`) counts fully: age is clamped at 0, so no signal weighs more
 * than its class.
 *
 * Throws a `RangeError` for a half-life that is not a positive number (settings never allow one).
 *
 * @example
 * decayFactor(new Date('2026-01-01'), new Date('2026-01-31'), 30) // 0.5
 * decayFactor(new Date('2026-02-01'), new Date('2026-01-31'), 30) // 1
 */
export function decayFactor(occurredAt: Date, asOf: Date, halfLifeDays: number): number {
  if (!(halfLifeDays > 0)) throw new RangeError(`decayFactor: half-life must be positive, got ${halfLifeDays}`);
  const ageDays = Math.max(0, asOf.getTime() - occurredAt.getTime()) / MS_PER_DAY;
  return HALF ** (ageDays / halfLifeDays);
}

/**
 * How much one signal counts at `asOf`: its class weight (see `signalWeight`: neutral signals take
 * the `explicit_neutral` weight) times its decay.
 *
 * @example
 * weigh(thumbsDownClassification, thirtyDaysAgo, now, settings) // { base: 1.5, decay: 0.5, weight: 0.75 }
 */
export function weigh(classification: Classification, occurredAt: Date, asOf: Date, settings: WorkspaceSettings): Weighing {
  const base = signalWeight(classification.signalClass, classification.polarity, settings);
  const decay = decayFactor(occurredAt, asOf, settings.decayHalfLifeDays);
  return { base, decay, weight: base * decay };
}
