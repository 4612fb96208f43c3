/**
 * The Feedback-and-RLHF seed's event (`POST /api/v1/feedback/submit|correction|rating`) mapped
 * onto a feedloop event, so those endpoints share the single ingest path of `/v1/feedback`.
 * Pure: the server validates with it, and an SDK or a migration script can reuse it.
 *
 * Errors name fields in the seed's own snake_case terms (`response_id`, `data.corrected_sql`):
 * a client of the seed's API never saw feedloop's field names, so an error in them would not
 * tell it what to fix.
 */
import { z } from 'zod';
import type { ErrorBody } from '../error-codes.js';
import { idSchema, timestampSchema, type FeedbackEvent } from '../event-schema.js';
import { SIGNAL_SOURCES, isUserSource, type FeedbackEventType } from '../event-types.js';
import { LIMITS } from '../limits.js';
import { checkStorable, firstIssue, validateFeedbackEvent, type Validated } from '../validate.js';

/** The seed's seven feedback types; each is a feedloop type of the same name. */
export const RLHF_FEEDBACK_TYPES = [
  'thumbs_up',
  'thumbs_down',
  'correction',
  'rating',
  'implicit_accept',
  'implicit_reject',
  'escalation',
] as const satisfies readonly FeedbackEventType[];
/** One of {@link RLHF_FEEDBACK_TYPES}. */
export type RlhfFeedbackType = (typeof RLHF_FEEDBACK_TYPES)[number];

// Types only: lengths and ranges are feedloop's payload rules, applied after mapping (one
// definition of each limit), with their errors renamed back to these keys.
const text = z.string();
const vote = z.strictObject({ comment: text.optional() });

/** The `data` object the seed's clients send, per feedback type. */
export const RLHF_DATA_SCHEMAS = {
  thumbs_up: vote,
  thumbs_down: vote,
  correction: z.strictObject({
    original_sql: text.optional().describe('The generated SQL; defaults to the registered answer'),
    original: text.optional().describe('The original text, when not SQL'),
    corrected_sql: text.optional().describe('The corrected SQL (sets format "sql")'),
    corrected: text.optional().describe('The corrected text, when not SQL'),
    comment: text.optional(),
  }),
  rating: z.strictObject({
    rating: z.number().optional().describe('1-5 stars'),
    score: z.number().optional().describe('Alias of rating'),
    comment: text.optional(),
    aspect: text.optional(),
  }),
  implicit_accept: z.record(z.string(), z.unknown()).describe('Anything: the query execution event; "action" is kept apart'),
  implicit_reject: z.strictObject({ reason: text.optional(), follow_up_query: text.optional() }),
  escalation: z.strictObject({ reason: text.optional(), channel: text.optional() }),
} as const;

const envelope = {
  event_id: idSchema.optional().describe('Idempotency key; a retry with the same id answers "duplicate"'),
  event_type: z.literal('feedback.submitted').optional(),
  tenant_id: z.string().min(1).max(LIMITS.labelMaxLength).optional().describe('Informational: the API key decides the workspace; kept in metadata'),
  user_id: idSchema.optional(),
  session_id: idSchema.optional(),
  response_id: idSchema.describe('A registered response (POST /v1/responses)'),
  // The seed's sources are the users' own; a reviewer's or a judge's feedback goes to /v1/feedback.
  feedback_source: z.enum(SIGNAL_SOURCES.filter(isUserSource) as ['explicit', 'implicit', 'outcome']).optional().describe('Must agree with the type when given'),
  timestamp: timestampSchema.optional().describe('Believed for secret keys; receipt time for public keys'),
};

const parseSchema = z.strictObject({ ...envelope, feedback_type: z.enum(RLHF_FEEDBACK_TYPES), data: z.unknown().optional() });

/**
 * The seed's event as OpenAPI documents it. `defaultType` is the type a typed route
 * (`/correction`, `/rating`) fills in, which makes `feedback_type` optional there.
 *
 * @example
 * rlhfEventSchema('rating').shape.feedback_type.isOptional() // true
 */
export function rlhfEventSchema(defaultType?: RlhfFeedbackType) {
  const type = z.enum(RLHF_FEEDBACK_TYPES);
  const d = RLHF_DATA_SCHEMAS;
  return z.strictObject({
    ...envelope,
    feedback_type: defaultType ? type.optional().describe(`Defaults to ${defaultType}; another value is refused`) : type,
    data: z
      .union([d.correction, d.rating, d.implicit_reject, d.escalation, d.thumbs_up, d.implicit_accept])
      .nullable()
      .optional()
      .describe('Per type: correction, rating, implicit_reject, escalation, thumbs, implicit_accept'),
  });
}

/**
 * feedloop field names and the seed's names for them; payload fields not listed map to `data.*`.
 * The route renames the ingest path's errors (unknown response, closed window) with it too.
 */
export const RLHF_FIELD_NAMES: Readonly<Record<string, string>> = {
  id: 'event_id',
  responseId: 'response_id',
  userId: 'user_id',
  sessionId: 'session_id',
  occurredAt: 'timestamp',
  source: 'feedback_source',
  type: 'feedback_type',
  metadata: 'tenant_id',
  payload: 'data',
};

/**
 * Renames an error's field (and the field at the head of its message) through `names`; the
 * longest matching prefix wins, so `payload.corrected` can map apart from `payload`.
 *
 * @example
 * renameErrorField({ code: 'FEEDLOOP_ERR_RESPONSE_NOT_FOUND', field: 'responseId', message: 'responseId: no response' }, RLHF_FIELD_NAMES)
 * // { code: 'FEEDLOOP_ERR_RESPONSE_NOT_FOUND', field: 'response_id', message: 'response_id: no response' }
 */
export function renameErrorField(error: ErrorBody, names: Readonly<Record<string, string>>): ErrorBody {
  const field = error.field;
  if (field === undefined) return error;
  let best: string | undefined;
  for (const from of Object.keys(names)) {
    const matches = field === from || field.startsWith(`${from}.`) || field.startsWith(`${from}[`);
    if (matches && (best === undefined || from.length > best.length)) best = from;
  }
  if (best === undefined) return error;
  const renamed = `${names[best] ?? best}${field.slice(best.length)}`;
  const message = error.message.startsWith(`${field}:`) ? `${renamed}${error.message.slice(field.length)}` : error.message;
  return { ...error, field: renamed, message };
}

type Mapped = { ok: true; payload: Record<string, unknown>; fields: Record<string, string> } | { ok: false; error: ErrorBody };

function invalid(field: string, message: string): { ok: false; error: ErrorBody } {
  return { ok: false, error: { code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', message: `${field}: ${message}`, field } };
}

/** Drops undefined entries, so the payload holds only what the client sent. */
function defined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** An empty optional text is a form left blank, not a bad value: treated as absent. */
const blank = (s: string | undefined): string | undefined => (s === '' ? undefined : s);

/** One value sent under either of two keys; both at once is ambiguous. */
function either(d: Record<string, unknown>, a: string, b: string): { key: string; value: unknown } | { error: ErrorBody } | undefined {
  if (d[a] !== undefined && d[b] !== undefined) return { error: invalid(`data.${b}`, `send ${a} or ${b}, not both`).error };
  if (d[a] !== undefined) return { key: a, value: d[a] };
  if (d[b] !== undefined) return { key: b, value: d[b] };
  return undefined;
}

function mapData(type: RlhfFeedbackType, data: Record<string, unknown>): Mapped {
  const s = (k: string) => blank(data[k] as string | undefined);
  switch (type) {
    case 'thumbs_up':
    case 'thumbs_down':
      return { ok: true, payload: defined({ comment: s('comment') }), fields: {} };
    case 'correction': {
      const original = either(data, 'original_sql', 'original');
      const corrected = either(data, 'corrected_sql', 'corrected');
      if (original && 'error' in original) return { ok: false, error: original.error };
      if (corrected && 'error' in corrected) return { ok: false, error: corrected.error };
      if (!corrected) return invalid('data.corrected_sql', 'required: the corrected version as corrected_sql (SQL) or corrected (text)');
      const sql = original?.key === 'original_sql' || corrected.key === 'corrected_sql';
      const payload = defined({ original: original?.value, corrected: corrected.value, comment: s('comment'), format: sql ? 'sql' : undefined });
      const fields = { 'payload.original': `data.${original?.key ?? 'original_sql'}`, 'payload.corrected': `data.${corrected.key}` };
      return { ok: true, payload, fields };
    }
    case 'rating': {
      const stars = either(data, 'rating', 'score');
      if (stars && 'error' in stars) return { ok: false, error: stars.error };
      if (!stars) return invalid('data.rating', 'required: 1-5 stars as rating (or score)');
      const payload = defined({ rating: stars.value, comment: s('comment'), aspect: s('aspect') });
      return { ok: true, payload, fields: { 'payload.rating': `data.${stars.key}` } };
    }
    case 'implicit_accept': {
      // The seed's "query execution event" has no fixed shape: keep all of it, lifting a
      // string `action` into feedloop's own field so it can be filtered on.
      const { action, ...details } = data;
      const lifted = typeof action === 'string' && action !== '';
      const rest = lifted ? details : data;
      const payload = defined({ action: lifted ? action : undefined, details: Object.keys(rest).length > 0 ? rest : undefined });
      return { ok: true, payload, fields: { 'payload.details': 'data' } };
    }
    case 'implicit_reject':
      return { ok: true, payload: defined({ reason: s('reason'), followUpQuery: s('follow_up_query') }), fields: { 'payload.followUpQuery': 'data.follow_up_query' } };
    case 'escalation':
      return { ok: true, payload: defined({ reason: s('reason'), channel: s('channel') }), fields: {} };
  }
}

function resolveType(sent: unknown, routeType: RlhfFeedbackType | undefined): Validated<RlhfFeedbackType> {
  const type = sent ?? routeType;
  if (type === undefined) return invalid('feedback_type', `required: one of ${RLHF_FEEDBACK_TYPES.join(', ')}`);
  if (!(RLHF_FEEDBACK_TYPES as readonly unknown[]).includes(type)) {
    const message = `feedback_type: unknown feedback type ${JSON.stringify(type)} (expected one of ${RLHF_FEEDBACK_TYPES.join(', ')})`;
    return { ok: false, error: { code: 'FEEDLOOP_ERR_VALIDATION_UNKNOWN_TYPE', message, field: 'feedback_type' } };
  }
  if (routeType !== undefined && type !== routeType) {
    return invalid('feedback_type', `this endpoint takes ${routeType} feedback, not ${String(type)}; use /api/v1/feedback/submit`);
  }
  return { ok: true, value: type as RlhfFeedbackType };
}

/**
 * Maps and validates one seed event. `routeType` is the type of a typed endpoint: it fills in
 * a missing `feedback_type` and refuses a different one. The result is a valid feedloop event,
 * or an error naming the field as the client sent it.
 *
 * @example
 * mapRlhfEvent({ response_id: 'resp-001', feedback_type: 'correction', data: { corrected_sql: 'SELECT 1' } })
 * // { ok: true, value: { responseId: 'resp-001', type: 'correction', payload: { corrected: 'SELECT 1', format: 'sql' } } }
 */
export function mapRlhfEvent(input: unknown, routeType?: RlhfFeedbackType): Validated<FeedbackEvent> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { ok: false, error: { code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', message: 'the body must be a JSON object' } };
  }
  const type = resolveType((input as { feedback_type?: unknown }).feedback_type, routeType);
  if (!type.ok) return type;
  const parsed = parseSchema.safeParse({ ...input, feedback_type: type.value });
  if (!parsed.success) return { ok: false, error: firstIssue(parsed.error) };
  // Checked on the event as sent, so the error names the seed's field (`data.corrected_sql`).
  const unstorable = checkStorable(parsed.data);
  if (unstorable) return { ok: false, error: unstorable };
  const e = parsed.data;
  const data = RLHF_DATA_SCHEMAS[type.value].safeParse(e.data ?? {});
  if (!data.success) return { ok: false, error: firstIssue(data.error, 'data') };
  const mapped = mapData(type.value, data.data);
  if (!mapped.ok) return mapped;
  const event = defined({
    id: e.event_id,
    responseId: e.response_id,
    userId: e.user_id,
    sessionId: e.session_id,
    occurredAt: e.timestamp,
    source: e.feedback_source,
    type: type.value,
    payload: mapped.payload,
    // The key, not the body, decides the workspace; the seed's tenant is kept for reference.
    metadata: e.tenant_id === undefined ? undefined : { tenant_id: e.tenant_id },
  });
  const checked = validateFeedbackEvent(event);
  return checked.ok ? checked : { ok: false, error: renameErrorField(checked.error, { ...RLHF_FIELD_NAMES, ...mapped.fields }) };
}
