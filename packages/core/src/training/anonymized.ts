/**
 * ADR-016's anonymized export: what a response's feedback says, with no id and no free text, for
 * sharing patterns across tenants.
 */
import { redactPii } from '../privacy/redact.js';
import { responseVerdict, type ResponseRecord } from './training-facts.js';

/** ADR-016's `AnonymizedFeedback`; null where the response has no such fact. */
export interface AnonymizedFeedback {
  contextCategories: string[];
  tokenBudgetUtilization: number | null;
  /** positive, negative, skipped, contradictory (voted both ways), neutral (3 stars only) or none. */
  rating: string;
  errorCategories: string[];
  qualityScores: { accuracy: number | null; completeness: number | null; styleMatch: number | null } | null;
  editDistance: number | null;
}

/** A category names a kind of document, never one document: a short label of letters, digits, `_` and `-`. */
const CATEGORY = /^[A-Za-z][\w-]{0,31}$/;

/**
 * The document categories of a response: `metadata.contextCategories` when the client sent them,
 * else the prefix before `:` of each context document id (`adr:016` → `adr`). Ids without a
 * prefix are left out (an id may identify), as is every value that is not a short label.
 */
function contextCategories(facts: ResponseRecord): string[] {
  const given = facts.response.metadata.contextCategories;
  const raw = Array.isArray(given) ? given : facts.response.contextDocumentIds.filter((id) => id.includes(':')).map((id) => id.slice(0, id.indexOf(':')));
  // Labels only, and through the PII redactor as well (issue 11: always in anonymized exports).
  return [...new Set(raw.filter((c): c is string => typeof c === 'string' && CATEGORY.test(c) && redactPii(c).matches.length === 0))].sort();
}

function score(value: unknown): number | null {
  return typeof value === 'number' ? value : null;
}

const RATINGS = { positive: 'positive', negative: 'negative', contradictory: 'contradictory', tie: 'neutral' } as const;

/**
 * A response's feedback, anonymized: its verdict as `rating` (`skipped` when its only opinion is a
 * skip), the union of its error categories, its latest quality scores and edit distance, and its
 * context token count over `tokenBudget` (4 decimals). Null when the response has no feedback.
 *
 * @example
 * anonymizedFeedback(facts, 8192)
 * // { contextCategories: ['adr'], tokenBudgetUtilization: 0.5, rating: 'negative', errorCategories: ['hallucination'], … }
 */
export function anonymizedFeedback(facts: ResponseRecord, tokenBudget: number): AnonymizedFeedback | null {
  const { response, events } = facts;
  if (events.length === 0) return null;
  const verdict = responseVerdict(events);
  const latest = <T>(pick: (e: (typeof events)[number]) => T | null): T | null =>
    events.reduce<T | null>((found, e) => pick(e) ?? found, null);
  const quality = latest((e) => (e.type === 'quality_scores' ? e.payload : null));
  return {
    contextCategories: contextCategories(facts),
    tokenBudgetUtilization: response.contextTokenCount === null ? null : Math.round((response.contextTokenCount / tokenBudget) * 1e4) / 1e4,
    rating: verdict === 'none' ? (events.some((e) => e.type === 'skip') ? 'skipped' : 'none') : RATINGS[verdict],
    errorCategories: [
      ...new Set(
        events.flatMap((e) => (e.type === 'error_categories' && Array.isArray(e.payload.categories) ? (e.payload.categories as string[]) : [])).map((c) => redactPii(c).text),
      ),
    ].sort(),
    qualityScores: quality && { accuracy: score(quality.accuracy), completeness: score(quality.completeness), styleMatch: score(quality.styleMatch) },
    editDistance: latest((e) => e.editDistance),
  };
}
