/**
 * Validation that turns a zod failure into one clear error naming the field, the form the API
 * answers with. Pure: usable in the server, the SDK and the browser.
 */
import { checkJsonShape, ITEM_SHAPE_LIMITS } from './json-limits.js';
import type { z } from 'zod';
import type { ErrorBody } from './error-codes.js';
import { feedbackEventSchema, type FeedbackEvent } from './event-schema.js';
import { allowedSources, isFeedbackEventType, sourceOfType } from './event-types.js';
import { LIMITS } from './limits.js';
import { responseSchema, type ResponseRegistration } from './response-schema.js';
import { findUnstorable } from './storable-text.js';

/** The result of validating untrusted input. */
export type Validated<T> = { ok: true; value: T } | { ok: false; error: ErrorBody };

/**
 * Renders a zod issue path as a field name: `payload.rating`, `sources[2]`.
 *
 * @example
 * fieldPath(['events', 3, 'payload', 'rating']) // 'events[3].payload.rating'
 */
export function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

/**
 * The first issue of a zod error as a wire error body.
 *
 * @example
 * firstIssue(schema.safeParse(x).error!, 'events[0]') // { code, message: 'events[0].payload.rating: ...', field }
 */
export function firstIssue(error: z.ZodError, prefix?: string): ErrorBody {
  const issue = error.issues[0];
  const path = [...(prefix ? [prefix] : []), ...(issue?.path ?? [])];
  let field = fieldPath(path);
  let message = issue?.message ?? 'invalid';
  if (issue?.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    field = field ? `${field}.${key}` : key;
    message = `unknown field (expected none named ${JSON.stringify(key)})`;
  }
  return { code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', message: field ? `${field}: ${message}` : message, ...(field ? { field } : {}) };
}

/**
 * Refuses a value holding a string or key the database cannot store (a NUL character, a lone
 * surrogate; see `storable-text.ts`): `FEEDLOOP_ERR_VALIDATION_UNSTORABLE` naming the field.
 * Every write route runs it, so such input is a 400 for its sender instead of a failed shared
 * transaction for everyone.
 *
 * @param prefix the value's own path, e.g. `events[3]`.
 * @example
 * checkStorable({ metadata: { note: 'a\u0000' } }) // { code: 'FEEDLOOP_ERR_VALIDATION_UNSTORABLE', field: 'metadata.note', ... }
 * checkStorable({ metadata: { note: 'ok' } }) // undefined
 */
export function checkStorable(value: unknown, prefix?: string): ErrorBody | undefined {
  const found = findUnstorable(value);
  if (!found) return undefined;
  const field = fieldPath([...(prefix ? [prefix] : []), ...found.path]);
  return { code: 'FEEDLOOP_ERR_VALIDATION_UNSTORABLE', message: field ? `${field}: ${found.reason}` : found.reason, ...(field ? { field } : {}) };
}

/**
 * Validates one feedback event: known type, payload of that type, source agreeing with the type.
 * Time rules (feedback window, future timestamps) need the response and the clock, and live in
 * `judgeFeedback`.
 *
 * @example
 * validateFeedbackEvent({ responseId: 'r1', type: 'rating', payload: { rating: 4 } })
 * // { ok: true, value: { responseId: 'r1', type: 'rating', payload: { rating: 4 } } }
 */
export function validateFeedbackEvent(input: unknown): Validated<FeedbackEvent> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { ok: false, error: { code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', message: 'an event must be a JSON object' } };
  }
  const type = (input as { type?: unknown }).type;
  if (type === undefined) {
    return { ok: false, error: { code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', message: 'type: required', field: 'type' } };
  }
  if (!isFeedbackEventType(type)) {
    return {
      ok: false,
      error: { code: 'FEEDLOOP_ERR_VALIDATION_UNKNOWN_TYPE', message: `type: unknown feedback type ${JSON.stringify(type)}`, field: 'type' },
    };
  }
  // Depth, string length and finite numbers before the schema: an item is judged by these alone.
  const shape = checkJsonShape(input, ITEM_SHAPE_LIMITS);
  if (shape) return { ok: false, error: shape };
  const parsed = feedbackEventSchema.safeParse(input);
  if (!parsed.success) return { ok: false, error: firstIssue(parsed.error) };
  const unstorable = checkStorable(parsed.data);
  if (unstorable) return { ok: false, error: unstorable };
  const event = parsed.data as FeedbackEvent;
  const source = checkSource(event);
  if (source) return { ok: false, error: source };
  if (event.type === 'preference' && !event.payload.pair.includes(event.responseId)) {
    return {
      ok: false,
      error: {
        code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD',
        message: `responseId: a preference is about one of its pair (${event.payload.pair.map((id) => JSON.stringify(id)).join(', ')})`,
        field: 'responseId',
      },
    };
  }
  const judge = checkEvaluator(event);
  if (judge) return { ok: false, error: judge };
  return { ok: true, value: event };
}

/**
 * The stated source against the type: its own source always; `review` or `judge` only on the
 * explicit-judgement types (`ATTRIBUTABLE_TYPES`). Who may claim them is the key's business
 * (`sourceClaimError`), not the event's.
 */
function checkSource(event: FeedbackEvent): ErrorBody | undefined {
  if (event.source === undefined) return undefined;
  const allowed = allowedSources(event.type);
  if (allowed.includes(event.source)) return undefined;
  const own = sourceOfType(event.type);
  const why =
    event.source === 'review' || event.source === 'judge'
      ? `only explicit judgements (thumbs, rating, score, review, quality_scores, correction, comment, error_categories, preference) may come from a ${event.source === 'review' ? 'reviewer' : 'judge'}`
      : `it is an ${own} signal`;
  return {
    code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD',
    message: `source: ${event.type} may not have source ${JSON.stringify(event.source)} (${why}); allowed: ${allowed.join(', ')}`,
    field: 'source',
  };
}

/**
 * A judge event names its evaluator in `metadata.evaluatorId` (a non-empty string), so its
 * answers can be told apart, calibrated and weighed per evaluator (issue 28).
 */
function checkEvaluator(event: FeedbackEvent): ErrorBody | undefined {
  if (event.source !== 'judge') return undefined;
  const id = event.metadata?.['evaluatorId'];
  if (typeof id === 'string' && id.length > 0 && id.length <= LIMITS.labelMaxLength) return undefined;
  return {
    code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD',
    message: `metadata.evaluatorId: a judge event names its evaluator (a string of 1-${LIMITS.labelMaxLength} characters)`,
    field: 'metadata.evaluatorId',
  };
}

/**
 * Validates one response registration, its strings and metadata keys storable.
 *
 * @example
 * validateResponse({ query: 'q', answer: 'a' }).ok // true
 */
export function validateResponse(input: unknown): Validated<ResponseRegistration> {
  const shape = checkJsonShape(input, ITEM_SHAPE_LIMITS);
  if (shape) return { ok: false, error: shape };
  const parsed = responseSchema.safeParse(input);
  if (!parsed.success) return { ok: false, error: firstIssue(parsed.error) };
  const unstorable = checkStorable(parsed.data);
  return unstorable ? { ok: false, error: unstorable } : { ok: true, value: parsed.data };
}
