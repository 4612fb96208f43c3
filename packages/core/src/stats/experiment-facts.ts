/**
 * What one response adds to its experiment variant's totals, from its current signals and score.
 * The pipeline keeps each response's facts and the per-variant sums of them, so an experiment's
 * read is a few rows whatever its size: when a response is rescored, its variant's totals move by
 * the difference between its new facts and the ones it had.
 *
 * @module
 */
import type { FeedbackEventType } from '../event-types.js';
import { RATING_TYPES } from './stats-sums.js';
import type { Polarity } from '../signals/signal-types.js';
import type { VariantTotals } from './experiment-analysis.js';

/** One response's contribution (everything but its being registered, which the store counts). */
export interface ExperimentFacts {
  /** At least one counted rating with a polarity. */
  rated: boolean;
  /** More positive than negative ratings. */
  positive: boolean;
  /** At least one counted correction. */
  corrected: boolean;
  /** Corrections and edits with an edit distance, and the distances' sum. */
  edits: number;
  editDistanceSum: number;
  /** The composite score, null when none. */
  score: number | null;
}

/** The facts of a response nothing counted on yet. */
export const NO_EXPERIMENT_FACTS: ExperimentFacts = { rated: false, positive: false, corrected: false, edits: 0, editDistanceSum: 0, score: null };

const ratingTypes: ReadonlySet<string> = new Set(RATING_TYPES);

/**
 * A response's facts from its current (counted, not replaced) signals and its composite score.
 *
 * @example
 * experimentFacts([{ type: 'thumbs_up', polarity: 'positive', editDistance: null }], 0.5)
 * // { rated: true, positive: true, corrected: false, edits: 0, editDistanceSum: 0, score: 0.5 }
 */
export function experimentFacts(
  signals: ReadonlyArray<{ type: FeedbackEventType; polarity: Polarity; editDistance: number | null }>,
  score: number | null,
): ExperimentFacts {
  let up = 0;
  let down = 0;
  let corrected = false;
  let edits = 0;
  let editDistanceSum = 0;
  for (const s of signals) {
    if (ratingTypes.has(s.type)) {
      if (s.polarity === 'positive') up += 1;
      else if (s.polarity === 'negative') down += 1;
    }
    if (s.type === 'correction') corrected = true;
    if ((s.type === 'correction' || s.type === 'edit') && s.editDistance !== null) {
      edits += 1;
      editDistanceSum += s.editDistance;
    }
  }
  return { rated: up + down > 0, positive: up > down, corrected, edits, editDistanceSum, score };
}

/** Totals without the registered-response count (kept apart: registration is not the pipeline's). */
export type FactTotals = Omit<VariantTotals, 'variant' | 'responses'>;

/**
 * Adds (`sign` 1) or takes away (`sign` −1) one response's facts to totals, in place.
 *
 * @example
 * const t = emptyFactTotals(); addFacts(t, facts, 1); addFacts(t, oldFacts, -1);
 */
export function addFacts(totals: FactTotals, facts: ExperimentFacts, sign: 1 | -1): void {
  totals.rated += facts.rated ? sign : 0;
  totals.positive += facts.positive ? sign : 0;
  totals.corrected += facts.corrected ? sign : 0;
  totals.edits += sign * facts.edits;
  totals.editDistanceSum += sign * facts.editDistanceSum;
  if (facts.score !== null) {
    totals.scored += sign;
    totals.scoreSum += sign * facts.score;
    totals.scoreSumSquares += sign * facts.score * facts.score;
  }
}

/**
 * Zero totals.
 *
 * @example
 * emptyFactTotals().rated // 0
 */
export function emptyFactTotals(): FactTotals {
  return { rated: 0, positive: 0, corrected: 0, edits: 0, editDistanceSum: 0, scored: 0, scoreSum: 0, scoreSumSquares: 0 };
}
