/**
 * What one event says for a user's memory (ADR-004), extracted once: whether it judged its answer
 * (and which way), the categories, issues and complaint words it names, and the style changes of
 * its rewrite. This is the expensive, per-event half of user memory (regular expressions over the
 * answer and the edit, the comment's phrases); the other half, {@link memoryFromFacts}, only adds
 * decayed weights. Splitting them lets the store keep each event's facts (a per-user snapshot,
 * docs/memory.md) instead of re-deriving them from the event's payload and answer on every read.
 * A plain JSON value: no dates, no maps.
 *
 * @module
 */
import { commentPhrases } from '../insights/themes.js';
import { storedCorrectionPair } from '../corrected-pair.js';
import { styleChanges, type StyleChange } from './style-features.js';

/** One of the user's events with what memory needs of its response. */
export interface MemoryEvent {
  id: string;
  type: string;
  payload: Record<string, unknown>;
  occurredAt: Date;
  /** The response's answer (what an edit or correction started from, unless the payload says). */
  answer: string | null;
  queryType: string | null;
  responseId: string;
}

/** The characters of a comment a complaint item quotes (`e.g. "…"`). */
export const COMPLAINT_EXAMPLE_LENGTH = 120;

/** What one event contributes to memory. */
export interface MemoryFacts {
  id: string;
  /** When the event occurred, in milliseconds since the epoch (its decay is computed on read). */
  at: number;
  responseId: string;
  queryType: string | null;
  /** `true`: the event says the answer was bad; `false`: good; `null`: neither. */
  verdict: boolean | null;
  /** Categories a negative event names (distinct, `other` left out). */
  categories: string[];
  /** Issues of a review that was not approved (distinct). */
  issues: string[];
  /** The phrases of a negative event's comment (distinct): an NLP phraser's when given, else its single words. */
  complaints: string[];
  /** The start of that comment, when it has complaint words: what a complaint item quotes. */
  example: string | null;
  /** What the event's edit or correction changed in the answer's style. */
  style: StyleChange[];
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** Whether an event says the answer was bad, and what it names. */
function negativeFacts(e: MemoryEvent): { negative: boolean; categories: string[]; issues: string[]; comment: string | null } {
  const p = e.payload;
  switch (e.type) {
    case 'thumbs_down':
      return { negative: true, categories: strings([p.category]).filter((c) => c !== 'other'), issues: [], comment: str(p.comment) };
    case 'rating':
    case 'rate_usefulness':
      return { negative: typeof p.rating === 'number' && p.rating <= 2, categories: [], issues: [], comment: str(p.comment) };
    case 'error_categories':
      return { negative: true, categories: strings(p.categories).filter((c) => c !== 'other'), issues: [], comment: str(p.comment) ?? str(p.missingContext) };
    case 'review':
      return { negative: p.verdict !== 'approved', categories: [], issues: strings(p.issues), comment: str(p.comment) };
    case 'correction':
      return { negative: true, categories: [], issues: [], comment: str(p.comment) };
    case 'implicit_reject':
      return { negative: true, categories: [], issues: [], comment: str(p.reason) };
    case 'escalation':
      return { negative: true, categories: [], issues: [], comment: str(p.reason) };
    default:
      return { negative: false, categories: [], issues: [], comment: null };
  }
}

/** Whether an event says the answer was good. */
function isPositive(e: MemoryEvent): boolean {
  const p = e.payload;
  if (e.type === 'thumbs_up' || e.type === 'implicit_accept' || e.type === 'continue') return true;
  if (e.type === 'rating' || e.type === 'rate_usefulness') return typeof p.rating === 'number' && p.rating >= 4;
  if (e.type === 'review') return p.verdict === 'approved';
  return false;
}

/**
 * The text an edit or correction started from and ended at, when the event is one: core's one
 * rule (`storedCorrectionPair`: the event's own original, else the answer). An empty revision
 * says nothing about style.
 */
function rewrite(e: MemoryEvent): { original: string; edited: string } | null {
  const p = e.payload;
  const edited = e.type === 'edit' ? str(p.edited) : e.type === 'correction' ? str(p.corrected) : null;
  if (edited === null) return null;
  const pair = storedCorrectionPair({ corrected: edited, original: p.original }, e.answer);
  return pair === undefined ? null : { original: pair.original, edited };
}

/**
 * Extracts what one event contributes to its user's memory.
 *
 * @example
 * memoryFacts({ id: 'e1', type: 'error_categories', payload: { categories: ['hallucination'], comment: 'made up numbers' },
 *   occurredAt: new Date(0), answer: 'x', queryType: 'sql', responseId: 'r1' })
 * // { id: 'e1', at: 0, verdict: true, categories: ['hallucination'], complaints: ['made', 'up', 'numbers'], example: 'made up numbers', ... }
 */
export function memoryFacts(e: MemoryEvent, phrasesOf?: (text: string) => string[]): MemoryFacts {
  const facts = negativeFacts(e);
  // With a phraser (the server's wink-nlp, issue 23) a comment is its phrases ("cite outdated
  // policy"), not three unrelated words; without, its single words as before.
  const complaints =
    facts.negative && facts.comment !== null ? (typeof phrasesOf === 'function' ? [...new Set(phrasesOf(facts.comment))] : commentPhrases(facts.comment).filter((p) => !p.includes(' '))) : [];
  const r = rewrite(e);
  return {
    id: e.id,
    at: e.occurredAt.getTime(),
    responseId: e.responseId,
    queryType: e.queryType,
    verdict: facts.negative ? true : isPositive(e) ? false : null,
    categories: facts.negative ? [...new Set(facts.categories)] : [],
    issues: facts.negative ? [...new Set(facts.issues)] : [],
    complaints,
    example: complaints.length > 0 && facts.comment !== null ? facts.comment.slice(0, COMPLAINT_EXAMPLE_LENGTH) : null,
    style: r === null ? [] : styleChanges(r.original, r.edited),
  };
}

/**
 * The version of what {@link memoryFacts} extracts. Facts kept by an older version (a snapshot)
 * are re-derived from the events: bump it whenever memoryFacts would answer differently for the
 * same event. 2: complaints are the comment's phrases (issue 23). 3: an empty `original` is the
 * text corrected, as everywhere else (core's one corrected-pair rule, issue 25).
 */
export const MEMORY_FACTS_VERSION = 3;
