/**
 * The feedback event envelope and the discriminated union over all types: the single definition
 * that gives validation, the TypeScript types and the OpenAPI document.
 */
import { z } from 'zod';
import { PAYLOAD_SCHEMAS } from './event-payloads.js';
import { FEEDBACK_EVENT_TYPES, LABEL_ACTION_TYPES, SIGNAL_SOURCES, type FeedbackEventType } from './event-types.js';
import { ID_PATTERN, LIMITS } from './limits.js';

/** A client-made id: 1-128 characters of letters, digits and `_ - . : @ /`. */
export const idSchema = z.string().min(1).max(LIMITS.idMaxLength).regex(ID_PATTERN, 'may hold only letters, digits and _ - . : @ /');

/** An ISO 8601 timestamp with a zone offset, e.g. `2026-11-22T10:05:00Z`. */
export const timestampSchema = z.iso.datetime({ offset: true });

/** Free-form metadata: a JSON object. */
export const metadataSchema = z.record(z.string(), z.unknown());

const envelope = {
  id: idSchema.optional().describe('Client event id for idempotency; the server makes a UUIDv7 when absent'),
  responseId: idSchema.describe('The response this feedback is about'),
  userId: idSchema.optional(),
  sessionId: idSchema.optional(),
  targetId: idSchema.optional().describe('A part of the response: a source, fragment, edge or page'),
  occurredAt: timestampSchema.optional().describe('When the user gave the feedback; defaults to receipt'),
  source: z.enum(SIGNAL_SOURCES).optional().describe('Derived from the type when absent; must agree with it'),
  metadata: metadataSchema.optional(),
};

const labelActions: ReadonlySet<string> = new Set(LABEL_ACTION_TYPES);

function variant<T extends FeedbackEventType>(type: T) {
  return z.strictObject({
    ...envelope,
    ...(labelActions.has(type) ? { targetId: idSchema.describe('The labelled part: fragment, edge, page or node id') } : {}),
    type: z.literal(type),
    payload: PAYLOAD_SCHEMAS[type],
  });
}

/** One schema per event type, keyed by type. */
export const EVENT_SCHEMAS = Object.fromEntries(FEEDBACK_EVENT_TYPES.map((t) => [t, variant(t)])) as {
  [T in FeedbackEventType]: ReturnType<typeof variant<T>>;
};

/** Any feedback event, discriminated by `type`. */
export const feedbackEventSchema = z.discriminatedUnion(
  'type',
  FEEDBACK_EVENT_TYPES.map((t) => EVENT_SCHEMAS[t]) as unknown as [
    ReturnType<typeof variant<FeedbackEventType>>,
    ...ReturnType<typeof variant<FeedbackEventType>>[],
  ],
);

/** A feedback event as a client sends it, discriminated by `type`. */
export type FeedbackEventInput = { [T in FeedbackEventType]: z.input<(typeof EVENT_SCHEMAS)[T]> }[FeedbackEventType];
/** A validated feedback event, defaults applied, discriminated by `type`. */
export type FeedbackEvent = { [T in FeedbackEventType]: z.output<(typeof EVENT_SCHEMAS)[T]> }[FeedbackEventType];
