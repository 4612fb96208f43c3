/**
 * The stored facts every training-data format is built from: a response (the question, the
 * answer, what produced it, its composite score) with its counted feedback events, and the
 * responses that share one normalized prompt, which is the unit contrast pairs and dedup work on.
 */
import { storedCorrectionPair } from '../corrected-pair.js';
import type { LearningSignal } from '../signals/signal-types.js';

/** A registered response as an export reads it. */
export interface ExportResponse {
  id: string;
  query: string;
  answer: string;
  contextDocumentIds: string[];
  /** The response's sources (Phase 4.1 source URLs or ids); absent where a reader does not need them. */
  sources?: string[];
  contextTokenCount: number | null;
  model: string | null;
  agent: string | null;
  queryType: string | null;
  experimentId: string | null;
  variant: string | null;
  metadata: Record<string, unknown>;
  createdAt: Date;
  /** The pipeline's composite score in [-1, 1]; null before any weighted signal. */
  score: number | null;
  /**
   * The conversation before this answer: the earlier responses of its session, oldest first (read
   * only by the exports that use it, `openai-chat`); absent or empty for a single turn.
   */
  history?: ConversationTurn[];
}

/** An earlier turn of a conversation: the user's query and the answer it got. */
export interface ConversationTurn {
  query: string;
  answer: string;
}

/** A counted feedback event (not a content duplicate, not a replaced vote) of a response. */
export interface ExportEvent {
  id: string;
  type: string;
  payload: Record<string, unknown>;
  userId: string | null;
  targetId: string | null;
  metadata: Record<string, unknown> | null;
  editDistance: number | null;
  occurredAt: Date;
  /** The pipeline's effective weight of the event; null while it is not processed yet. */
  weight: number | null;
  /** The pipeline's learning signal, expanded; null while the event is not processed yet. */
  learningSignal: LearningSignal | null;
  /**
   * A label correction's texts from the registered targets (`PUT /v1/targets/:id`): an edge's
   * fragment text (premise) and claim text (hypothesis). Absent when its target is not registered.
   */
  targetTexts?: { premise: string | null; hypothesis: string | null };
  /**
   * Whether the event is verified for its user (secret key, or a feedback token naming them);
   * absent counts as verified. Exports take verified events only unless asked (`trust=all`).
   */
  verified?: boolean;
  /**
   * The event's source (`explicit`, …, `review`, `judge`); absent counts as its type's. A judge's
   * thumbs, ratings and reviews say nothing of an answer here (a model grading a model, whatever
   * its weight in the score); its preferences do count in the preference formats.
   */
  source?: string;
}

/** One response with its events in the order they occurred. */
export interface ResponseRecord {
  response: ExportResponse;
  events: ExportEvent[];
}

/** The responses sharing one normalized prompt (see docs/exports.md), in id order. */
export interface PromptGroup {
  /** The normalized prompt's key (an md5 computed by the database). */
  key: string;
  responses: ResponseRecord[];
}

/** Stars at or above this are a positive rating; the Phase 4.1 / ADR-016 4-5 stars. */
export const POSITIVE_RATING_MIN = 4;
/** Stars at or below this are a negative rating; 3 stars is a tie and counts for neither side. */
export const NEGATIVE_RATING_MAX = 2;

/** What one event says of the answer it is on. */
export type EventVerdict = 'positive' | 'negative' | 'tie' | 'none';

/**
 * What one event says of its response's answer: thumbs, ratings (4-5 positive, 1-2 negative,
 * 3 a tie), reviews (approved positive, changes requested or rejected negative) and corrections
 * (the answer needed fixing: negative). Every other type, and any judge's event, says nothing here.
 *
 * @example
 * eventVerdict({ type: 'rating', payload: { rating: 3 } }) // 'tie'
 */
export function eventVerdict(event: Pick<ExportEvent, 'type' | 'payload'> & { source?: string | undefined }): EventVerdict {
  // A model grading a model makes no training data, even a calibrated judge weighing in the score (judgeWeight).
  if (event.source === 'judge') return 'none';
  switch (event.type) {
    case 'thumbs_up':
      return 'positive';
    case 'thumbs_down':
    case 'correction':
      return 'negative';
    case 'rating': {
      const stars = Number(event.payload.rating);
      if (stars >= POSITIVE_RATING_MIN) return 'positive';
      return stars <= NEGATIVE_RATING_MAX ? 'negative' : 'tie';
    }
    case 'review':
      return event.payload.verdict === 'approved' ? 'positive' : 'negative';
    default:
      return 'none';
  }
}

/** What a response's events say of its answer, all together. */
export type ResponseVerdict = 'positive' | 'negative' | 'contradictory' | 'tie' | 'none';

/**
 * The verdict of a response from all its events: positive or negative when they agree,
 * contradictory when some say positive and some negative (such an answer is neither a chosen
 * nor a rejected example), tie when the only opinions are 3-star ratings.
 *
 * @example
 * responseVerdict([thumbsUp, thumbsDown]) // 'contradictory'
 */
export function responseVerdict(events: ReadonlyArray<Pick<ExportEvent, 'type' | 'payload'> & { source?: string | undefined }>): ResponseVerdict {
  let positive = false;
  let negative = false;
  let tie = false;
  for (const event of events) {
    const verdict = eventVerdict(event);
    if (verdict === 'positive') positive = true;
    else if (verdict === 'negative') negative = true;
    else if (verdict === 'tie') tie = true;
  }
  if (positive && negative) return 'contradictory';
  if (positive) return 'positive';
  if (negative) return 'negative';
  return tie ? 'tie' : 'none';
}

/** A correction's fixed text and the text it fixed (the payload's original, else the answer). */
export interface CorrectionText {
  eventId: string;
  corrected: string;
  original: string;
  occurredAt: Date;
}

/**
 * The corrections of a response, newest first: the latest correction is the user's last word.
 *
 * @example
 * corrections(facts)[0]?.corrected // the text SFT trains on
 */
export function corrections(facts: ResponseRecord): CorrectionText[] {
  return facts.events
    .flatMap((e) => {
      // The text corrected is core's one rule's (the payload's original, else the answer).
      // A judge's correction is a model's text: no training target, whatever the judge weighs in the score.
      const pair = e.type === 'correction' && e.source !== 'judge' ? storedCorrectionPair(e.payload, facts.response.answer) : undefined;
      return pair ? [{ eventId: e.id, corrected: pair.corrected, original: pair.original, occurredAt: e.occurredAt }] : [];
    })
    .sort((a, b) => b.occurredAt.getTime() - a.occurredAt.getTime() || (a.eventId < b.eventId ? -1 : 1));
}

/**
 * Whether two texts are the same answer for training: equal once trimmed. A pair of them teaches
 * nothing, so it is a tie.
 */
export function sameText(a: string, b: string): boolean {
  return a.trim() === b.trim();
}

/**
 * The group's positively and negatively judged responses, for contrast pairs; contradictory and
 * tied responses are counted in `excluded` and left out.
 *
 * @example
 * const { positives, negatives } = judgedResponses(group, tally.excluded);
 */
export function judgedResponses(
  group: PromptGroup,
  excluded: { tie: number; contradictory: number },
): { positives: ResponseRecord[]; negatives: ResponseRecord[] } {
  const positives: ResponseRecord[] = [];
  const negatives: ResponseRecord[] = [];
  for (const facts of group.responses) {
    const verdict = responseVerdict(facts.events);
    if (verdict === 'positive') positives.push(facts);
    else if (verdict === 'negative') negatives.push(facts);
    else if (verdict === 'contradictory') excluded.contradictory++;
    else if (verdict === 'tie') excluded.tie++;
  }
  return { positives, negatives };
}
