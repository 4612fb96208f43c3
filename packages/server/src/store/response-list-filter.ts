/**
 * The response list's filter vocabulary (`GET /v1/responses`) in one place: its fields as a
 * schema, and their checks and conversion to a {@link ResponseListFilter}. The list route reads
 * them from the query string; review queue rules (issue 27) and bulk adds take the same fields
 * as JSON, so a filter means the same wherever it is written.
 */
import { z } from 'zod';
import { FeedloopError } from '../errors.js';
import type { ScoreFilter } from './score-reads.js';

/** Filters of the list; all optional, combined with AND. */
export interface ResponseListFilter {
  /** Composite score at least / at most (-1..1); a response without a score never matches. */
  minScore?: number;
  maxScore?: number;
  /** positive / negative: has a counted signal of that polarity; unrated: has no counted signal. */
  rating?: 'positive' | 'negative' | 'unrated';
  /** Has a counted signal with this error category. */
  category?: string;
  /** Case-insensitive substring of a comment (a vote's, a comment's, a review's, a correction's). */
  comment?: string;
  agent?: string;
  model?: string;
  experimentId?: string;
  variant?: string;
  /** Created at or after / before. */
  since?: Date;
  until?: Date;
  /** Has a current named score of this name (and value range or value): see score-reads.ts. */
  score?: ScoreFilter;
  /** true: has a counted correction of a user's (the `correction` list tag); false: has none. */
  hasCorrection?: boolean;
  /** true: its composite score found conflicting signals (`response_scores.conflicts` not empty); false: it did not, or it has no score. */
  conflicting?: boolean;
}

const text = z.string().min(1).max(256);
const score = z.coerce.number().min(-1).max(1);
// A query string says `true`/`false`; a rule's JSON may say either that or a boolean.
const flag = z.union([z.boolean(), z.enum(['true', 'false'])]).transform((v) => v === true || v === 'true');

/** The filter fields (all optional), as the list's query string and a rule's `filter` take them. */
export const responseFilterFields = {
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
  hasCorrection: flag.optional().describe("true: has a counted correction of a user's; false: has none"),
  conflicting: flag.optional().describe('true: its composite score found conflicting signals (docs/signals.md); false: it did not, or it has no score yet'),
};

/** A filter as parsed from its fields. */
export type ResponseFilterInput = z.output<z.ZodObject<typeof responseFilterFields>>;

/** The filter fields as one strict schema (a rule's `filter`). */
export const responseFilterSchema = z.strictObject(responseFilterFields);

/**
 * Checks a parsed filter's fields together and converts it; `prefix` names where the filter sits
 * (e.g. `rules[0].filter.`) in the error's field.
 *
 * @throws FeedloopError `FEEDLOOP_ERR_VALIDATION_INVALID_FIELD` naming the field.
 * @example
 * toResponseListFilter({ rating: 'negative', minScore: -1 }) // { rating: 'negative', minScore: -1 }
 */
export function toResponseListFilter(input: ResponseFilterInput, prefix = ''): ResponseListFilter {
  const { since, until, scoreName, scoreMin, scoreMax, scoreValue, ...rest } = input;
  const invalid = (field: string, message: string): FeedloopError =>
    new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', `${prefix}${field}: ${message}`, { field: `${prefix}${field}` });
  if (rest.minScore !== undefined && rest.maxScore !== undefined && rest.minScore > rest.maxScore) throw invalid('minScore', 'must not be above maxScore');
  const lone = scoreMin !== undefined ? 'scoreMin' : scoreMax !== undefined ? 'scoreMax' : scoreValue !== undefined ? 'scoreValue' : undefined;
  if (scoreName === undefined && lone !== undefined) throw invalid(lone, 'needs scoreName');
  if (scoreMin !== undefined && scoreMax !== undefined && scoreMin > scoreMax) throw invalid('scoreMin', 'must not be above scoreMax');
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
 * Parses a filter given as JSON (a rule's, a bulk add's): its fields, then their checks.
 *
 * @throws FeedloopError `FEEDLOOP_ERR_VALIDATION_INVALID_FIELD` naming `<prefix><field>`.
 * @example
 * parseResponseFilter({ rating: 'negative' }, 'rules[0].filter.')
 */
export function parseResponseFilter(value: unknown, prefix = ''): ResponseListFilter {
  const parsed = responseFilterSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = issue?.code === 'unrecognized_keys' ? (issue.keys[0] ?? '') : (issue?.path ?? []).map(String).join('.');
    const message = issue?.code === 'unrecognized_keys' ? 'not a filter of the response list' : (issue?.message ?? 'invalid');
    throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', `${prefix}${key}: ${message}`, { field: `${prefix}${key}`.replace(/\.$/, '') });
  }
  return toResponseListFilter(parsed.data, prefix);
}
