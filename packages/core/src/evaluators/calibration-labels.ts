/**
 * The labels a judge is calibrated on (issue 28; docs/evaluators.md, "Calibration"): what the
 * judge said and what the humans said of the same unit, as the same categories. Pure; the
 * calibration route reads the events and hands them here, then to `judgeCalibration`.
 *
 * - Pointwise units (responses): `positive` / `negative`. The human label is the majority verdict
 *   of the response's reviews (approved is positive; changes requested and rejected negative; no
 *   majority: left out); without reviews, the net of its users' explicit votes (thumbs; a rating
 *   ≥ 4 is positive, ≤ 2 negative; a net of 0: left out). A rating evaluator is compared on the
 *   1-5 scale instead, with the median of the users' ratings (rounded), where there are any.
 * - Pairwise units (review items): `first` / `second` / `tie`, in the item's order; the human label
 *   is the majority of its reviewers' verdicts (`tie` is a label; no majority: left out).
 *
 * @module
 */
import { majorityLabel, median } from '../agreement/majority.js';
import type { CalibrationKind, CalibrationPair } from '../agreement/judge-calibration.js';
import type { EvaluatorKind, EvaluatorOutput } from './evaluator-definition.js';

/** An event as calibration reads it. */
export interface LabelEvent {
  type: string;
  payload: Record<string, unknown>;
}

/** The rating at or above which a rating counts as positive, and at or below which negative. */
const POSITIVE_RATING = 4;
const NEGATIVE_RATING = 2;
/** A judge's score at or above this is positive (scores are read as 0-1 unless a config maps them to a vote). */
const POSITIVE_SCORE = 0.5;

/** A vote's polarity: +1, −1, or 0 (a middling rating, or no vote). */
function polarity(e: LabelEvent): number {
  if (e.type === 'thumbs_up') return 1;
  if (e.type === 'thumbs_down') return -1;
  if (e.type === 'rating' && typeof e.payload['rating'] === 'number') {
    const r = e.payload['rating'];
    return r >= POSITIVE_RATING ? 1 : r <= NEGATIVE_RATING ? -1 : 0;
  }
  return 0;
}

const labelOfSign = (sign: number): string | null => (sign > 0 ? 'positive' : sign < 0 ? 'negative' : null);

/**
 * The human label of a response from its human events (reviews, and users' explicit votes),
 * on the binary scale.
 *
 * @example
 * humanResponseLabel([{ type: 'thumbs_up', payload: {} }, { type: 'rating', payload: { rating: 2 } }, { type: 'thumbs_up', payload: {} }]) // 'positive'
 * humanResponseLabel([{ type: 'review', payload: { verdict: 'rejected' } }, { type: 'thumbs_up', payload: {} }]) // 'negative'
 */
export function humanResponseLabel(reviews: readonly LabelEvent[], votes: readonly LabelEvent[]): string | null {
  const verdicts = reviews.flatMap((e) => (e.type === 'review' && typeof e.payload['verdict'] === 'string' ? [e.payload['verdict']] : []));
  if (verdicts.length > 0) {
    const verdict = majorityLabel(verdicts);
    return verdict === null ? null : verdict === 'approved' ? 'positive' : 'negative';
  }
  return labelOfSign(votes.reduce((sum, e) => sum + polarity(e), 0));
}

/**
 * The humans' rating of a response: the median of its users' ratings, rounded half up; null without one.
 *
 * @example
 * humanRating([{ type: 'rating', payload: { rating: 4 } }, { type: 'rating', payload: { rating: 5 } }]) // 5
 */
export function humanRating(votes: readonly LabelEvent[]): number | null {
  const m = median(votes.flatMap((e) => (e.type === 'rating' && typeof e.payload['rating'] === 'number' ? [e.payload['rating']] : [])));
  return m === null ? null : Math.round(m);
}

/** A preference's position in its pair: first, second or tie; null when it names neither. */
function position(payload: Record<string, unknown>, pair: readonly [string, string]): string | null {
  const p = payload['preferred'];
  if (p === 'tie') return 'tie';
  if (p === pair[0]) return 'first';
  if (p === pair[1]) return 'second';
  return null;
}

/**
 * The human label of a pairwise item: the majority of its reviewers' preferences, positioned in the item's order.
 *
 * @example
 * humanPairLabel([{ type: 'preference', payload: { preferred: 'b' } }, { type: 'preference', payload: { preferred: 'b' } }], ['a', 'b']) // 'second'
 */
export function humanPairLabel(preferences: readonly LabelEvent[], pair: readonly [string, string]): string | null {
  return majorityLabel(preferences.flatMap((e) => (e.type === 'preference' ? [position(e.payload, pair)] : [])).filter((p): p is string => p !== null));
}

/**
 * A judge's label of its own event: first/second/tie for a preference; for pointwise, positive or
 * negative (a rating of 3 is neither: null), or the rating itself on the rating scale.
 *
 * @example
 * judgeLabel({ type: 'rating', payload: { rating: 5 } }, 'binary') // 'positive'
 * judgeLabel({ type: 'rating', payload: { rating: 5 } }, 'rating') // 5
 */
export function judgeLabel(event: LabelEvent, kind: CalibrationKind, pair?: readonly [string, string]): string | number | null {
  if (kind === 'nominal') return pair && event.type === 'preference' ? position(event.payload, pair) : null;
  if (kind === 'rating') return event.type === 'rating' && typeof event.payload['rating'] === 'number' ? event.payload['rating'] : null;
  if (event.type === 'score' && typeof event.payload['value'] === 'number') return event.payload['value'] >= POSITIVE_SCORE ? 'positive' : 'negative';
  return labelOfSign(polarity(event));
}

/** The calibration kind of an evaluator: nominal for pairwise, rating for a rating judge, else binary. */
export function calibrationKindOf(kind: EvaluatorKind, output: EvaluatorOutput): CalibrationKind {
  return kind === 'pairwise' ? 'nominal' : output === 'rating' ? 'rating' : 'binary';
}

/** One judged unit with what the humans said of it. */
export interface JudgedUnit {
  unitId: string;
  /** The response the disagreement links to (a pairwise item's first). */
  responseId: string;
  week: string;
  judge: LabelEvent;
  pair?: readonly [string, string];
  reviews: readonly LabelEvent[];
  votes: readonly LabelEvent[];
  preferences: readonly LabelEvent[];
}

/**
 * The calibration pairs of judged units: those with both a judge label and a human label.
 *
 * @example
 * calibrationPairs([{ unitId: 'r1', responseId: 'r1', week: '2026-11-23', judge: { type: 'thumbs_up', payload: {} }, reviews: [], votes: [{ type: 'thumbs_down', payload: {} }], preferences: [] }], 'binary')
 * // [{ unitId: 'r1', judge: 'positive', human: 'negative', week: '2026-11-23', kind: 'binary' }]
 */
export function calibrationPairs(units: readonly JudgedUnit[], kind: CalibrationKind): CalibrationPair[] {
  return units.flatMap((u) => {
    const judge = judgeLabel(u.judge, kind, u.pair);
    const human = kind === 'nominal' ? (u.pair ? humanPairLabel(u.preferences, u.pair) : null) : kind === 'rating' ? humanRating(u.votes) : humanResponseLabel(u.reviews, u.votes);
    return judge === null || human === null ? [] : [{ unitId: u.unitId, judge, human, week: u.week, kind }];
  });
}
