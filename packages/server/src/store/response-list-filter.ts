/**
 * The response list's filter vocabulary (`GET /v1/responses`), parsed and checked in one place:
 * the list route takes it as a query string, and the routes that act on "every response matching
 * a filter" (datasets, review queues) take the same fields as a JSON object (issue 27).
 */
import { firstIssue } from '@feedloop/core';
import { z } from 'zod';
import { FeedloopError } from '../errors.js';
import type { ResponseListFilter } from './response-list.js';

const text = z.string().min(1).max(256);
const score = z.coerce.number().min(-1).max(1);

/** The filter fields, as the list's query string names them (numbers may come as strings). */
export const responseListFilterFields = {
  minScore: score.optional().describe('Composite score at least (-1..1)'),
  maxScore: score.optional().describe('Composite score at most (-1..1)'),
  rating: z.enum(['positive', 'negative', 'unrated']).optional().describe('Has a positive / negative counted signal, or none'),
  category: text.optional().describe('Has feedback with this error category'),
  // Three characters at least: a shorter text has no three-letter piece in the comment index
  // (migration 0020) and walks the whole workspace (13 s at 10 M events when nothing matches).
  comment: z.string().min(3, 'must be at least 3 characters').max(256).optional().describe('Case-insensitive text (3 characters or more) in a comment, reason or note'),
  agent: text.optional(),
  model: text.optional(),
  experimentId: text.optional(),
  variant: text.optional(),
  since: z.iso.datetime({ offset: true }).optional().describe('Created at or after (ISO 8601)'),
  until: z.iso.datetime({ offset: true }).optional().describe('Created before (ISO 8601)'),
  scoreName: text.optional().describe('Has a current named score of this name (docs/scores.md)'),
  scoreMin: z.coerce.number().finite().optional().describe("With scoreName: the score's value at least"),
  scoreMax: z.coerce.number().finite().optional().describe("With scoreName: the score's value at most"),
  scoreValue: text.optional().describe("With scoreName: the score's label (stringValue), or its value when a number"),
};

/** The filter as an object of its own (a body's `filter`): unknown fields are refused. */
export const responseListFilterSchema = z.strictObject(responseListFilterFields);
/** The filter fields as parsed. */
export type ResponseListFilterInput = z.output<typeof responseListFilterSchema>;

/**
 * The store's filter from parsed fields, checking what the fields say together (a range upside
 * down, a score bound without its name). `prefix` goes before the field a refusal names
 * (`filter.` in a body).
 *
 * @throws FeedloopError `FEEDLOOP_ERR_VALIDATION_INVALID_FIELD` naming the field.
 * @example
 * toResponseListFilter({ rating: 'negative', agent: 'sql' }) // { rating: 'negative', agent: 'sql' }
 */
export function toResponseListFilter(input: ResponseListFilterInput, prefix = ''): ResponseListFilter {
  const refuse = (field: string, message: string): FeedloopError =>
    new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', `${prefix}${field}: ${message}`, { field: `${prefix}${field}` });
  const { since, until, scoreName, scoreMin, scoreMax, scoreValue, ...rest } = input;
  if (rest.minScore !== undefined && rest.maxScore !== undefined && rest.minScore > rest.maxScore) throw refuse('minScore', 'must not be above maxScore');
  const lone = scoreMin !== undefined ? 'scoreMin' : scoreMax !== undefined ? 'scoreMax' : scoreValue !== undefined ? 'scoreValue' : undefined;
  if (scoreName === undefined && lone !== undefined) throw refuse(lone, 'needs scoreName');
  if (scoreMin !== undefined && scoreMax !== undefined && scoreMin > scoreMax) throw refuse('scoreMin', 'must not be above scoreMax');
  const filter: ResponseListFilter = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
  if (scoreName !== undefined) {
    filter.score = {
      name: scoreName,
      ...(scoreMin !== undefined ? { min: scoreMin } : {}),
      ...(scoreMax !== undefined ? { max: scoreMax } : {}),
      ...(scoreValue !== undefined ? { value: scoreValue } : {}),
    };
  }
  if (since !== undefined) filter.since = new Date(since);
  if (until !== undefined) filter.until = new Date(until);
  return filter;
}

/**
 * Parses an untrusted filter object (a body's `filter`) into the store's filter.
 *
 * @throws FeedloopError `FEEDLOOP_ERR_VALIDATION_INVALID_FIELD` naming the field, e.g. `filter.rating`.
 * @example
 * parseResponseListFilter({ rating: 'negative', minScore: -0.5 }) // { rating: 'negative', minScore: -0.5 }
 */
export function parseResponseListFilter(input: unknown, prefix = 'filter.'): ResponseListFilter {
  const parsed = responseListFilterSchema.safeParse(input);
  if (!parsed.success) throw FeedloopError.from(firstIssue(parsed.error, prefix.replace(/\.$/, '') || undefined));
  return toResponseListFilter(parsed.data, prefix);
}
