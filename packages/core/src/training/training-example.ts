/**
 * Phase 4.1's training export: `TrainingExample` (query, positiveAnswer, negativeAnswer?, context,
 * rating), positive answers with their context, each with a negative answer to the same
 * normalized query as its contrast pair when there is one.
 */
import type { ExcludedCounts } from './export-formats.js';
import { judgedResponses, sameText, type PromptGroup, type ResponseRecord } from './training-facts.js';

/** Phase 4.1's `TrainingExample`. */
export interface TrainingExample {
  query: string;
  positiveAnswer: string;
  negativeAnswer?: string;
  /** The positive answer's context: its sources' document ids. */
  context: string[];
  /** The positive answer's composite score in [-1, 1]; 1 when nothing has scored it yet. */
  rating: number;
}

const byScore = (direction: 1 | -1) => (a: ResponseRecord, b: ResponseRecord) =>
  direction * ((b.response.score ?? 0) - (a.response.score ?? 0)) || (a.response.id < b.response.id ? -1 : 1);

/**
 * The training examples of a prompt group: each positively judged answer (best score first), the
 * i-th paired with the i-th worst negative answer as its contrast when one differs from it.
 * Contradictory and 3-star-only answers are counted in `excluded`.
 *
 * @example
 * trainingExamples(group, tally.excluded)
 * // [{ query: 'refund policy?', positiveAnswer: '30 days.', negativeAnswer: 'No refunds.', context: ['doc-7'], rating: 0.8 }]
 */
export function trainingExamples(group: PromptGroup, excluded: ExcludedCounts): TrainingExample[] {
  const { positives, negatives } = judgedResponses(group, excluded);
  positives.sort(byScore(1));
  negatives.sort(byScore(-1));
  return positives.map((good, i) => {
    const bad = negatives[i];
    const example: TrainingExample = {
      query: good.response.query,
      positiveAnswer: good.response.answer,
      context: good.response.contextDocumentIds,
      rating: good.response.score ?? 1,
    };
    if (bad && !sameText(bad.response.answer, good.response.answer)) example.negativeAnswer = bad.response.answer;
    return example;
  });
}
