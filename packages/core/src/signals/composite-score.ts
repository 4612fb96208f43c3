/**
 * A response's composite quality from all its signals: the weighted, decayed mean of their values,
 * with ADR-004's open question 1 ("how to handle conflicting signals: user says good, then heavily
 * edits?") answered by letting the user's later signal win.
 */
import type { WorkspaceSettings } from '../workspace-settings.js';
import { changedPercent } from './classify.js';
import type { CompositeScore, ScoredSignal, SignalConflict } from './signal-types.js';
import { isUserSource } from '../event-types.js';
import { judgeWeight } from './judge-weight.js';
import { DEFAULT_SIGNAL_WEIGHTS, signalWeight } from './signal-weights.js';
import { decayFactor } from './weigh.js';

/** The kinds of conflict the score records. */
export const CONFLICT_KINDS = ['positive_then_heavy_edit', 'positive_then_negative', 'negative_then_positive'] as const;
/** One of {@link CONFLICT_KINDS}. */
export type ConflictKind = (typeof CONFLICT_KINDS)[number];

/** How every conflict is resolved: the user's later signal keeps its weight, the earlier one is discounted. */
export const CONFLICT_RESOLUTION = 'later_wins';

/**
 * The confidence prior: a score is as confident as its effective weight against a phantom weight
 * of one explicit positive, so one thumbs up today gives confidence 0.5 and ten give about 0.91.
 */
const CONFIDENCE_PRIOR_WEIGHT = DEFAULT_SIGNAL_WEIGHTS.explicit_positive;

/** Code-point order, the same in every locale (localeCompare is not). */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The canonical order of signals: time, then event id, then the remaining fields, so that the
 * floating-point sums, the conflicts and their order never depend on the order of the input.
 */
function compareSignals(a: ScoredSignal, b: ScoredSignal): number {
  return (
    a.occurredAt.getTime() - b.occurredAt.getTime() ||
    compareText(a.eventId, b.eventId) ||
    compareText(a.userId ?? '', b.userId ?? '') ||
    compareText(a.type, b.type) ||
    compareText(a.signalClass, b.signalClass) ||
    compareText(a.polarity, b.polarity) ||
    a.value - b.value ||
    (a.editDistance ?? -1) - (b.editDistance ?? -1)
  );
}

/** The kind of conflict between a user's earlier signal and a later one of opposite polarity. */
function conflictKind(earlier: ScoredSignal, later: ScoredSignal, heavyEditPercent: number): ConflictKind {
  if (earlier.polarity === 'negative') return 'negative_then_positive';
  const changed = changedPercent(later.type, later.editDistance);
  return changed !== null && changed >= heavyEditPercent ? 'positive_then_heavy_edit' : 'positive_then_negative';
}

/**
 * The conflicts among canonically ordered signals and the indexes of the signals they discount:
 * per voter, every pair of non-neutral signals of opposite polarity. A voter is a user id and its
 * trust: a user's verified signals are theirs, while unverified ones under the same id are only
 * someone's claim to be them, so the two never conflict and an unverified signal can never
 * discount a verified one (issue 22). Signals without a user never conflict: two anonymous votes
 * are most likely two people.
 */
function findConflicts(ordered: readonly ScoredSignal[], heavyEditPercent: number): { conflicts: SignalConflict[]; discounted: Set<number> } {
  const byVoter = new Map<string, { userId: string; indexes: number[] }>();
  ordered.forEach((signal, index) => {
    if (signal.userId === null || signal.polarity === 'neutral') return;
    // A reviewer's or a judge's verdict is not the user changing their mind: sources never conflict.
    const voter = `${signal.userId}\u0000${signal.verified === false ? 'unverified' : 'verified'}\u0000${signal.source === undefined || isUserSource(signal.source) ? 'user' : signal.source}`;
    const entry = byVoter.get(voter) ?? { userId: signal.userId, indexes: [] };
    entry.indexes.push(index);
    byVoter.set(voter, entry);
  });
  const conflicts: SignalConflict[] = [];
  const discounted = new Set<number>();
  for (const voter of [...byVoter.keys()].sort(compareText)) {
    const { userId, indexes } = byVoter.get(voter) ?? { userId: '', indexes: [] };
    indexes.forEach((earlierIndex, position) => {
      const earlier = ordered[earlierIndex];
      if (!earlier) return;
      for (const laterIndex of indexes.slice(position + 1)) {
        const later = ordered[laterIndex];
        if (!later || later.polarity === earlier.polarity) continue;
        conflicts.push({
          kind: conflictKind(earlier, later, heavyEditPercent),
          userId,
          earlierEventId: earlier.eventId,
          laterEventId: later.eventId,
          resolution: CONFLICT_RESOLUTION,
        });
        discounted.add(earlierIndex);
      }
    });
  }
  return { conflicts, discounted };
}

/**
 * A response's composite score at `asOf`: Σ wᵢvᵢ / Σ wᵢ over the signals with effective weight
 * wᵢ > 0, where wᵢ = class weight × decay × conflict factor, and null when no signal carries
 * weight. `confidence` is Σw / (Σw + 1): the prior is worth one explicit positive, so a single
 * fresh thumbs up gives 0.5 and confidence approaches 1 as weight piles up. `signalCount` counts
 * every signal given, weighted or not.
 *
 * Conflicts (ADR-004 open question 1): within each user's signals in time order (ties by event
 * id), whenever a later non-neutral signal has the opposite polarity of an earlier one, the
 * conflict is recorded and the earlier signal's weight is multiplied by `conflictDiscount` (once,
 * however many later signals contradict it). The later signal wins because behaviour after a
 * statement shows what the user ended up doing: a thumbs up followed by rewriting half the answer
 * says the answer looked right but was not. A positive signal contradicted by an edit or
 * correction changing at least `heavyEditPercent` of the characters is a
 * `positive_then_heavy_edit` conflict, ADR-004's own example.
 *
 * Conflicts come out ordered by user id, then by the earlier and the later signal's time and id,
 * whatever the order of the input.
 *
 * @example
 * compositeScore([thumbsUpByAnn, sixtyPercentEditByAnn], settings, now)
 * // thumbs up 1.0 × 0.5 (discounted) at +1, edit 0.6 at -0.6: score 0.14 / 1.1 ≈ 0.127 (0.4 without the discount)
 * // { score: 0.1273, confidence: 0.5238, weightSum: 1.1, signalCount: 2,
 * //   conflicts: [{ kind: 'positive_then_heavy_edit', userId: 'ann', ..., resolution: 'later_wins' }] }
 */
export function compositeScore(signals: readonly ScoredSignal[], settings: WorkspaceSettings, asOf: Date): CompositeScore {
  const ordered = [...signals].sort(compareSignals);
  const { conflicts, discounted } = findConflicts(ordered, settings.heavyEditPercent);
  let weightSum = 0;
  let weightedValues = 0;
  ordered.forEach((signal, index) => {
    const conflictFactor = discounted.has(index) ? settings.conflictDiscount : 1;
    const humanWeight = signal.scoreWeight ?? signalWeight(signal.signalClass, signal.polarity, settings);
    // A reviewer's signal weighs as a person's; a judge's as judgeWeight decides (issue 28).
    const sourceWeight = signal.source === 'judge' ? judgeWeight(signal, humanWeight, settings) : humanWeight;
    const weight = sourceWeight * decayFactor(signal.occurredAt, asOf, settings.decayHalfLifeDays) * conflictFactor;
    if (!(weight > 0)) return;
    weightSum += weight;
    weightedValues += weight * signal.value;
  });
  // A weighted mean of values in [-1, 1] stays in it; the clamp only absorbs rounding.
  const score = weightSum > 0 ? Math.min(1, Math.max(-1, weightedValues / weightSum)) : null;
  return {
    score,
    confidence: weightSum / (weightSum + CONFIDENCE_PRIOR_WEIGHT),
    weightSum,
    signalCount: signals.length,
    conflicts,
  };
}
