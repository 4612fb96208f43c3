/**
 * The expected output of a dataset item (issue 27): what a model should have answered. One rule,
 * here: a correction when the response has one (a reviewer's first, then the newest), else the
 * answer itself when its newest review approved it, else none.
 */
import { storedCorrectionPair } from '../corrected-pair.js';

/** Where an item's expected output came from; `null`: the item has none. */
export const EXPECTED_SOURCES = ['correction', 'approved'] as const;
/** One of {@link EXPECTED_SOURCES}. */
export type ExpectedSource = (typeof EXPECTED_SOURCES)[number];

/** A counted, verified `correction` or `review` event of the response, as the rule reads it. */
export interface ExpectedCandidate {
  id: string;
  type: string;
  /** The event's signal source (`review`: a reviewer's, issue 27). */
  source: string;
  payload: Readonly<Record<string, unknown>>;
  occurredAt: Date;
}

/** The expected output and the event it came from. */
export interface ExpectedOutput {
  expectedOutput: string | null;
  expectedSource: ExpectedSource | null;
  /**
   * The event that decided it: the correction, the approving review, or (no expected output) the
   * newest review that did not approve, which a dataset keeps so its exports still see the answer
   * judged negative (a contrast pair's rejected side). Null when no event decided anything.
   */
  eventId: string | null;
}

/** Newest first; equal instants by id, so the choice never depends on read order. */
function newestFirst(a: ExpectedCandidate, b: ExpectedCandidate): number {
  return b.occurredAt.getTime() - a.occurredAt.getTime() || (a.id < b.id ? 1 : -1);
}

/**
 * The expected output of a response from its counted, verified corrections and reviews: the
 * corrected text of its correction (one of source `review` before any other, then the newest);
 * else its answer when its newest review says `approved`; else none. A correction that changes
 * nothing still counts: the reviewer confirmed the text.
 *
 * @example
 * expectedOutputOf('SELECT * FROM sales', [{ id: 'e1', type: 'review', source: 'review', payload: { verdict: 'approved' }, occurredAt }])
 * // { expectedOutput: 'SELECT * FROM sales', expectedSource: 'approved', eventId: 'e1' }
 */
export function expectedOutputOf(answer: string, events: readonly ExpectedCandidate[]): ExpectedOutput {
  const ordered = [...events].sort(newestFirst);
  const fixes = ordered.filter((e) => e.type === 'correction');
  for (const e of [...fixes.filter((c) => c.source === 'review'), ...fixes.filter((c) => c.source !== 'review')]) {
    const pair = storedCorrectionPair(e.payload, answer);
    if (pair) return { expectedOutput: pair.corrected, expectedSource: 'correction', eventId: e.id };
  }
  const review = ordered.find((e) => e.type === 'review');
  if (review && review.payload.verdict === 'approved') return { expectedOutput: answer, expectedSource: 'approved', eventId: review.id };
  return { expectedOutput: null, expectedSource: null, eventId: review?.id ?? null };
}
