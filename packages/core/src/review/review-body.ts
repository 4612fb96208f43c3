/**
 * A review as a reviewer sends it (issue 27), checked against its queue's rubric, and the
 * feedback events it becomes. A review is feedback like any other: the pipeline weighs, scores
 * and exports it, so what it becomes is decided here, once, for every caller.
 */
import { z } from 'zod';
import { OUTPUT_ISSUES, PAYLOAD_SCHEMAS } from '../event-payloads.js';
import { LIMITS } from '../limits.js';
import type { Rubric } from './review-queue.js';

const comment = z.string().min(1).max(LIMITS.commentMaxLength);

/** The verdicts of ADR-016's output review (keys 1/2/3 in the dashboard). */
export const REVIEW_VERDICTS = ['approved', 'changes_requested', 'rejected'] as const;
/** One of {@link REVIEW_VERDICTS}. */
export type ReviewVerdict = (typeof REVIEW_VERDICTS)[number];

/** A named score in a review: a score config's name and its value or label. */
const reviewScoreSchema = z
  .strictObject({ name: z.string().min(1).max(LIMITS.labelMaxLength), value: z.number().finite().optional(), stringValue: z.string().min(1).max(LIMITS.labelMaxLength).optional() })
  .refine((s) => s.value !== undefined || s.stringValue !== undefined, { message: 'needs value or stringValue', path: ['value'] });

/** A review of a single item; every field optional, at least one given (the rubric says which may be). */
export const singleReviewSchema = z.strictObject({
  verdict: z.enum(REVIEW_VERDICTS).optional(),
  issues: z.array(z.enum(OUTPUT_ISSUES)).max(OUTPUT_ISSUES.length).optional(),
  qualityScores: PAYLOAD_SCHEMAS.quality_scores.optional(),
  correction: z
    .union([z.string().min(1).max(LIMITS.textMaxLength), z.strictObject({ corrected: z.string().min(1).max(LIMITS.textMaxLength), format: z.enum(['text', 'sql', 'code', 'json']).optional() })])
    .optional()
    .describe('The corrected answer: text, or { corrected, format }'),
  scores: z.array(reviewScoreSchema).max(20).optional(),
  comment: comment.optional(),
});
/** A single review as validated. */
export type SingleReview = z.output<typeof singleReviewSchema>;

/** A review of a pairwise item: the preferred response's id (never a position), or a tie. */
export const pairwiseReviewSchema = z.strictObject({
  preferred: z.string().min(1).max(LIMITS.idMaxLength).describe('The preferred response id, or "tie"'),
  reason: comment.optional(),
});
/** A pairwise review as validated. */
export type PairwiseReview = z.output<typeof pairwiseReviewSchema>;

/** What is wrong with a review, naming its field. */
export interface ReviewProblem {
  field: string;
  message: string;
  /** `disabled`: the rubric turns the field off; `invalid`: the value does not fit. */
  kind: 'disabled' | 'invalid';
}

const RUBRIC_FIELDS = ['verdict', 'issues', 'qualityScores', 'correction', 'comment'] as const;

/**
 * Checks a single review against its queue's rubric: a field the rubric turns off is refused
 * (naming it), a review must say something, issues need a verdict (they belong to it), and named
 * scores must be of the rubric's score configs (`scoreNames`: those configs' names).
 *
 * @example
 * checkSingleReview({ verdict: 'approved' }, rubric, new Set()) // undefined
 * checkSingleReview({ correction: 'x' }, { ...rubric, correction: false }, new Set()) // { field: 'correction', kind: 'disabled', … }
 */
export function checkSingleReview(review: SingleReview, rubric: Rubric, scoreNames: ReadonlySet<string>): ReviewProblem | undefined {
  for (const field of RUBRIC_FIELDS) {
    if (review[field] !== undefined && !rubric[field]) return { field, kind: 'disabled', message: `${field}: this queue's rubric does not ask for it` };
  }
  if (review.scores !== undefined && review.scores.length > 0) {
    if (scoreNames.size === 0) return { field: 'scores', kind: 'disabled', message: "scores: this queue's rubric lists no score configs" };
    const index = review.scores.findIndex((s) => !scoreNames.has(s.name));
    if (index >= 0) return { field: `scores[${index}].name`, kind: 'invalid', message: `scores[${index}].name: not one of the rubric's scores (${[...scoreNames].join(', ')})` };
    const names = review.scores.map((s) => s.name);
    if (new Set(names).size !== names.length) return { field: 'scores', kind: 'invalid', message: 'scores: a score name appears twice' };
  }
  if (review.issues !== undefined && review.issues.length > 0 && review.verdict === undefined) {
    return { field: 'verdict', kind: 'invalid', message: 'verdict: issues belong to a verdict; give one' };
  }
  const said = RUBRIC_FIELDS.some((f) => review[f] !== undefined) || (review.scores?.length ?? 0) > 0;
  if (!said) return { field: 'verdict', kind: 'invalid', message: 'verdict: the review says nothing; give at least one field of the rubric' };
  return undefined;
}

/** A feedback event a review becomes, before the envelope (id, response, voter) is added. */
export interface ReviewEventPart {
  /** Distinguishes the review's events from each other in their ids. */
  suffix: string;
  type: 'review' | 'quality_scores' | 'correction' | 'score' | 'comment' | 'preference';
  payload: Record<string, unknown>;
}

/**
 * The feedback events of a single review: the verdict with its issues and comment (`review`),
 * the quality scores, the correction, one `score` per named score, and a lone comment
 * (`comment`) when there is no verdict to carry it.
 *
 * @example
 * singleReviewEvents({ verdict: 'rejected', issues: ['hallucination'], correction: 'Paris' })
 * // [{ suffix: 'review', type: 'review', … }, { suffix: 'correction', type: 'correction', payload: { corrected: 'Paris' } }]
 */
export function singleReviewEvents(review: SingleReview): ReviewEventPart[] {
  const parts: ReviewEventPart[] = [];
  if (review.verdict !== undefined) {
    parts.push({
      suffix: 'review',
      type: 'review',
      payload: { verdict: review.verdict, issues: review.issues ?? [], ...(review.comment === undefined ? {} : { comment: review.comment }) },
    });
  } else if (review.comment !== undefined) {
    parts.push({ suffix: 'comment', type: 'comment', payload: { comment: review.comment } });
  }
  if (review.qualityScores !== undefined) parts.push({ suffix: 'quality', type: 'quality_scores', payload: { ...review.qualityScores } });
  if (review.correction !== undefined) {
    const c = typeof review.correction === 'string' ? { corrected: review.correction } : review.correction;
    parts.push({ suffix: 'correction', type: 'correction', payload: { ...c } });
  }
  (review.scores ?? []).forEach((s, i) => {
    parts.push({
      suffix: `score${i}`,
      type: 'score',
      payload: { name: s.name, ...(s.value === undefined ? {} : { value: s.value }), ...(s.stringValue === undefined ? {} : { stringValue: s.stringValue }) },
    });
  });
  return parts;
}

/**
 * The label and scores of a single review as the reviews table keeps them for the agreement
 * statistics: the verdict (or null), and `{ accuracy, completeness, styleMatch, <score name> }`.
 *
 * @example
 * singleReviewFigures({ verdict: 'approved', qualityScores: { accuracy: 90 } }) // { label: 'approved', scores: { accuracy: 90 } }
 */
export function singleReviewFigures(review: SingleReview): { label: string | null; scores: Record<string, number | string> } {
  const scores: Record<string, number | string> = {};
  for (const [k, v] of Object.entries(review.qualityScores ?? {})) if (typeof v === 'number') scores[k] = v;
  for (const s of review.scores ?? []) scores[s.name] = s.value ?? s.stringValue ?? '';
  return { label: review.verdict ?? null, scores };
}

/**
 * Checks a pairwise review: `preferred` names one of the item's two responses, or is `tie`.
 *
 * @example
 * checkPairwiseReview({ preferred: 'r3' }, ['r1', 'r2']) // { field: 'preferred', … }
 */
export function checkPairwiseReview(review: PairwiseReview, pair: readonly [string, string]): ReviewProblem | undefined {
  if (review.preferred === 'tie' || pair.includes(review.preferred)) return undefined;
  return { field: 'preferred', kind: 'invalid', message: `preferred: must be ${JSON.stringify(pair[0])}, ${JSON.stringify(pair[1])} or "tie"` };
}
