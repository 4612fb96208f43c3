/**
 * The response list's filter vocabulary as the dashboard holds it (in the URL and its forms), and
 * as the API takes it: the list's query string, a review queue rule's or a bulk add's `filter`
 * (the server's response-list-filter.ts reads all three the same way).
 */

/** The response list's filters (`GET /v1/responses`; a queue rule's or a bulk add's `filter` takes the same). */
export const FILTERS = ['comment', 'rating', 'category', 'agent', 'model', 'experimentId', 'variant', 'minScore', 'maxScore', 'scoreName', 'scoreMin', 'scoreMax', 'scoreValue', 'hasCorrection', 'conflicting', 'since', 'until'] as const;
export type FilterName = (typeof FILTERS)[number];
/** Filters as the URL and the form hold them (dates as YYYY-MM-DD). */
export type Filters = Partial<Record<FilterName, string>>;

/**
 * Filters as the API takes them: empty ones left out, dates as ISO times (the list's query string,
 * a queue rule's or a bulk add's `filter`).
 *
 * @example
 * apiFilter({ agent: 'sql', since: '2026-11-01' }) // { agent: 'sql', since: '2026-11-01T00:00:00.000Z' }
 */
export function apiFilter(filters: Filters): Record<string, string> {
  return Object.fromEntries(Object.entries(filters).flatMap(([k, v]) => (v ? [[k, k === 'since' || k === 'until' ? new Date(v).toISOString() : v]] : [])));
}

