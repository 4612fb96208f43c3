/**
 * How a stored review becomes a row of the agreement report: the one place that knows a pairwise
 * preference names a response id (which differs on every item) and must be compared as the item's
 * side, and that the first-shown response decides position bias.
 *
 * @module
 */
import type { AgreementReview } from './queue-agreement.js';

/** A review as the reviews table keeps it, with its item's responses. */
export interface StoredReviewFacts {
  itemId: string;
  reviewer: string;
  /** The verdict, or the preferred response id / `tie` (pairwise); null: no verdict given. */
  label: string | null;
  /** The review's scores by name; only finite numbers count for agreement. */
  scores: Readonly<Record<string, unknown>> | null;
  seconds: number | null;
  /** Pairwise: the response this reviewer was shown first. */
  firstResponseId: string | null;
  /** The item's response (the first of a pair). */
  responseId: string;
  /** The pair's second response; null for a single item. */
  responseBId: string | null;
}

/** The side labels of a pairwise item: its first response, its second, or a tie. */
export const PAIRWISE_SIDES = ['a', 'b', 'tie'] as const;

/**
 * The agreement row of a stored review. A pairwise preference becomes the item's side (`a`: its
 * first response, `b`: its second, `tie`), so reviewers who preferred the same response agree
 * whatever order they saw; a preference naming neither response counts as no label.
 *
 * @example
 * agreementReviewOf({ itemId: 'i1', reviewer: 'ana', label: 'r2', scores: {}, seconds: 12,
 *   firstResponseId: 'r2', responseId: 'r1', responseBId: 'r2' })
 * // { itemId: 'i1', reviewer: 'ana', label: 'b', scores: {}, seconds: 12, firstPositionWon: true }
 */
export function agreementReviewOf(facts: StoredReviewFacts): AgreementReview {
  const scores: Record<string, number> = {};
  for (const [name, value] of Object.entries(facts.scores ?? {})) {
    if (typeof value === 'number' && Number.isFinite(value)) scores[name] = value;
  }
  const base = { itemId: facts.itemId, reviewer: facts.reviewer, scores, seconds: facts.seconds };
  if (facts.responseBId === null) return { ...base, label: facts.label, firstPositionWon: null };
  const label = facts.label === 'tie' ? 'tie' : facts.label === facts.responseId ? 'a' : facts.label === facts.responseBId ? 'b' : null;
  const decided = label === 'a' || label === 'b';
  return {
    ...base,
    label,
    firstPositionWon: decided && facts.firstResponseId !== null ? facts.label === facts.firstResponseId : null,
  };
}
