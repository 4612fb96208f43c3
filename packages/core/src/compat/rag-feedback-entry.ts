/**
 * The Phase 4.1 RAG seed's `FeedbackEntry` (`POST /api/rag/feedback`) mapped onto a feedloop
 * thumbs vote, so the seed's clients share the single ingest path of `/v1/feedback`.
 * Errors name the entry's own camelCase fields (`queryId`, `rating`, `comment`).
 */
import { z } from 'zod';
import { stableStringify } from '../acceptance.js';
import type { ErrorBody } from '../error-codes.js';
import { RAG_CATEGORIES } from '../event-payloads.js';
import { idSchema, metadataSchema, timestampSchema, type FeedbackEvent } from '../event-schema.js';
import { responseSchema } from '../response-schema.js';
import { checkStorable, firstIssue, validateFeedbackEvent, type Validated } from '../validate.js';
import { renameErrorField } from './rlhf-event.js';

/** The two ratings of the RAG seed. */
export const RAG_RATINGS = ['positive', 'negative'] as const;

/**
 * The seed's `FeedbackEntry`. The seed makes `id`, `query`, `answer`, `sources` and `timestamp`
 * required; here they are optional, because the registered response already holds the query,
 * answer and sources, and the server makes the id and time when absent.
 */
export const ragFeedbackEntrySchema = z.strictObject({
  id: idSchema.optional().describe('Idempotency key; a retry with the same id answers "duplicate"'),
  queryId: idSchema.describe('The registered response (POST /v1/responses) this rates'),
  // The response's own limits, so an entry is never refused for what a registration takes.
  query: responseSchema.shape.query.optional().describe('Informational: the registered response is the source of truth'),
  answer: responseSchema.shape.answer.optional().describe('Informational, as query'),
  rating: z.enum(RAG_RATINGS).describe('positive is stored as thumbs_up, negative as thumbs_down'),
  category: z.enum(RAG_CATEGORIES).optional(),
  comment: z.string().optional(),
  sources: responseSchema.shape.sources.describe('Informational, as query'),
  timestamp: timestampSchema.optional().describe('Believed for secret keys; receipt time for public keys'),
  experimentId: responseSchema.shape.experimentId,
  variant: responseSchema.shape.variant,
  userId: idSchema.optional(),
  metadata: metadataSchema.optional(),
});

/** A Phase 4.1 feedback entry as a client sends it. */
export type RagFeedbackEntry = z.input<typeof ragFeedbackEntrySchema>;

/** feedloop field names and the entry's names for them; the route renames ingest errors with it. */
export const RAG_FIELD_NAMES: Readonly<Record<string, string>> = {
  responseId: 'queryId',
  occurredAt: 'timestamp',
  type: 'rating',
  payload: 'rating',
  'payload.comment': 'comment',
  'payload.category': 'category',
};

/** The entry's fields kept in the event's metadata; the response row stays the truth. */
const INFORMATIONAL = ['query', 'answer', 'sources', 'experimentId', 'variant'] as const;

/**
 * Maps and validates one entry: positive → `thumbs_up`, negative → `thumbs_down`, with
 * `{ category, comment }` as the payload. The informational fields go into `metadata` next to
 * the entry's own metadata; the same key there with another value is refused rather than
 * silently overwritten. An empty `comment` counts as none (a blank form field).
 *
 * @example
 * mapRagFeedbackEntry({ queryId: 'q1', rating: 'negative', category: 'accuracy' })
 * // { ok: true, value: { responseId: 'q1', type: 'thumbs_down', payload: { category: 'accuracy' } } }
 */
export function mapRagFeedbackEntry(input: unknown): Validated<FeedbackEvent> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { ok: false, error: { code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', message: 'the body must be a JSON object' } };
  }
  const parsed = ragFeedbackEntrySchema.safeParse(input);
  if (!parsed.success) return { ok: false, error: firstIssue(parsed.error) };
  // Checked on the entry as sent, so the error names the entry's field (`query`, not `metadata.query`).
  const unstorable = checkStorable(parsed.data);
  if (unstorable) return { ok: false, error: unstorable };
  const entry = parsed.data;
  const metadata: Record<string, unknown> = { ...entry.metadata };
  for (const key of INFORMATIONAL) {
    const value = entry[key];
    if (value === undefined) continue;
    if (metadata[key] !== undefined && stableStringify(metadata[key]) !== stableStringify(value)) {
      return conflict(key);
    }
    metadata[key] = value;
  }
  const payload: Record<string, unknown> = {};
  if (entry.category !== undefined) payload.category = entry.category;
  if (entry.comment !== undefined && entry.comment !== '') payload.comment = entry.comment;
  const event: Record<string, unknown> = {
    responseId: entry.queryId,
    type: entry.rating === 'positive' ? 'thumbs_up' : 'thumbs_down',
    payload,
  };
  if (entry.id !== undefined) event.id = entry.id;
  if (entry.userId !== undefined) event.userId = entry.userId;
  if (entry.timestamp !== undefined) event.occurredAt = entry.timestamp;
  if (Object.keys(metadata).length > 0) event.metadata = metadata;
  const checked = validateFeedbackEvent(event);
  return checked.ok ? checked : { ok: false, error: renameErrorField(checked.error, RAG_FIELD_NAMES) };
}

function conflict(key: string): { ok: false; error: ErrorBody } {
  const field = `metadata.${key}`;
  return {
    ok: false,
    error: { code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', message: `${field}: differs from the entry's own ${key}; send it once`, field },
  };
}
