/**
 * Phase 4.1's training export: `TrainingExample` (query, positiveAnswer, negativeAnswer?, context,
 * rating), positive answers with their context, each with a negative answer to the same
 * normalized query as its contrast pair when there is one.
 */
import type { ExcludedCounts } from './export-formats.js';
import { eventVerdict, sameText, type ExportEvent, type PromptGroup, type ResponseRecord, type ResponseVerdict } from './training-facts.js';

/**
 * The margin a side needs to label an answer: at least this many times the other side's votes.
 * 2 (a 2:1 majority) keeps 26 up / 3 down or 2 up / 1 down as positive, while 3 up / 2 down or
 * 1 up / 1 down stay contradictory: too close to teach a model which answer is the good one.
 */
export const MAJORITY_RATIO = 2;

/**
 * What an answer's events say by majority: positive (or negative) when that side has at least
 * {@link MAJORITY_RATIO} times the other's votes, contradictory when neither side does, tie when
 * the only opinions are 3-star ratings. Phase 4.1 labels an answer by its majority, not by
 * unanimity (issue 24): one dissenting vote among 26 does not discard an answer.
 *
 * @example
 * majorityVerdict([...26 thumbs_up, ...3 thumbs_down]) // 'positive'
 * majorityVerdict([thumbsUp, thumbsDown]) // 'contradictory'
 */
export function majorityVerdict(events: readonly Pick<ExportEvent, 'type' | 'payload'>[]): ResponseVerdict {
  let positive = 0;
  let negative = 0;
  let tie = 0;
  for (const event of events) {
    const verdict = eventVerdict(event);
    if (verdict === 'positive') positive++;
    else if (verdict === 'negative') negative++;
    else if (verdict === 'tie') tie++;
  }
  if (positive === 0 && negative === 0) return tie > 0 ? 'tie' : 'none';
  if (positive >= MAJORITY_RATIO * negative) return 'positive';
  if (negative >= MAJORITY_RATIO * positive) return 'negative';
  return 'contradictory';
}

/**
 * An answer's context for Phase 4.1: its sources (the seed's `FeedbackEntry.sources`, source URLs
 * of the RAG response), then its context documents not already among them, in order.
 *
 * @example
 * exampleContext({ sources: ['https://a', 'doc-7'], contextDocumentIds: ['doc-7', 'doc-9'] }) // ['https://a', 'doc-7', 'doc-9']
 */
export function exampleContext(response: { sources?: readonly string[]; contextDocumentIds: readonly string[] }): string[] {
  return [...new Set([...(response.sources ?? []), ...response.contextDocumentIds])];
}

/** The group's answers judged by majority; contradictory and tied ones counted in `excluded`. */
function judgedByMajority(group: PromptGroup, excluded: ExcludedCounts): { positives: ResponseRecord[]; negatives: ResponseRecord[] } {
  const positives: ResponseRecord[] = [];
  const negatives: ResponseRecord[] = [];
  for (const facts of group.responses) {
    const verdict = majorityVerdict(facts.events);
    if (verdict === 'positive') positives.push(facts);
    else if (verdict === 'negative') negatives.push(facts);
    else if (verdict === 'contradictory') excluded.contradictory++;
    else if (verdict === 'tie') excluded.tie++;
  }
  return { positives, negatives };
}

/** Phase 4.1's `TrainingExample`. */
export interface TrainingExample {
  query: string;
  positiveAnswer: string;
  negativeAnswer?: string;
  /** The positive answer's context: its sources, then its context documents (see {@link exampleContext}). */
  context: string[];
  /** The positive answer's composite score in [-1, 1]; 1 when nothing has scored it yet. */
  rating: number;
}

const byScore = (direction: 1 | -1) => (a: ResponseRecord, b: ResponseRecord) =>
  direction * ((b.response.score ?? 0) - (a.response.score ?? 0)) || (a.response.id < b.response.id ? -1 : 1);

/**
 * The training examples of a prompt group: each positively judged answer (best score first), the
 * i-th paired with the i-th worst negative answer as its contrast when one differs from it.
 * Answers are labelled by majority ({@link majorityVerdict}); contradictory and 3-star-only
 * answers are counted in `excluded`.
 *
 * @example
 * trainingExamples(group, tally.excluded)
 * // [{ query: 'refund policy?', positiveAnswer: '30 days.', negativeAnswer: 'No refunds.', context: ['doc-7'], rating: 0.8 }]
 */
export function trainingExamples(group: PromptGroup, excluded: ExcludedCounts): TrainingExample[] {
  const { positives, negatives } = judgedByMajority(group, excluded);
  positives.sort(byScore(1));
  negatives.sort(byScore(-1));
  return positives.map((good, i) => {
    const bad = negatives[i];
    const example: TrainingExample = {
      query: good.response.query,
      positiveAnswer: good.response.answer,
      context: exampleContext(good.response),
      rating: good.response.score ?? 1,
    };
    if (bad && !sameText(bad.response.answer, good.response.answer)) example.negativeAnswer = bad.response.answer;
    return example;
  });
}
