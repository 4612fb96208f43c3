/**
 * The error registry: every error feedloop reports, with its stable code and HTTP status.
 * Codes are never reused for another meaning; a retired code stays reserved. The table in
 * docs/errors.md is generated from the same words, so keep descriptions short and exact.
 */
export const ERROR_CODES = {
  FEEDLOOP_ERR_VALIDATION_INVALID_FIELD: { status: 400, description: 'A field is missing, of the wrong type or out of range' },
  FEEDLOOP_ERR_VALIDATION_UNKNOWN_TYPE: { status: 400, description: 'The feedback event type is not one feedloop knows' },
  FEEDLOOP_ERR_VALIDATION_BAD_JSON: { status: 400, description: 'The body is not valid JSON' },
  FEEDLOOP_ERR_VALIDATION_BODY_TOO_LARGE: { status: 413, description: 'The body is larger than the limit for this route' },
  FEEDLOOP_ERR_VALIDATION_UNSUPPORTED_MEDIA_TYPE: { status: 415, description: 'The body is not application/json' },
  FEEDLOOP_ERR_VALIDATION_UNSTORABLE: { status: 400, description: 'A string or key holds a NUL character or a lone surrogate, or a value the database refused' },
  FEEDLOOP_ERR_VALIDATION_TOO_DEEP: { status: 400, description: 'An event, a response or a body nests objects and arrays deeper than 32 levels' },
  FEEDLOOP_ERR_VALIDATION_ITEM_TOO_LARGE: { status: 413, description: 'One item of a batch is larger than a single request may be (FEEDLOOP_BODY_LIMIT_BYTES)' },
  FEEDLOOP_ERR_VALIDATION_INVALID_ENCODING: { status: 400, description: 'The body is not valid UTF-8: it would not be stored as sent' },
  FEEDLOOP_ERR_VALIDATION_UNFAITHFUL_NUMBER: { status: 400, description: 'A number cannot be stored as written: beyond or below the double range (1e309, 1e-400), or an integer beyond 2^53' },
  FEEDLOOP_ERR_OTLP_UNDECODABLE: { status: 400, description: 'The body is no OTLP ExportTraceServiceRequest in its Content-Type (application/json or application/x-protobuf), or its gzip is broken' },
  FEEDLOOP_ERR_AUTH_MISSING_KEY: { status: 401, description: 'No `Authorization: Bearer <key>` header' },
  FEEDLOOP_ERR_AUTH_INVALID_KEY: { status: 401, description: 'The key is unknown, revoked, or its workspace is gone' },
  FEEDLOOP_ERR_AUTH_FORBIDDEN: { status: 403, description: 'A public key may only submit feedback' },
  FEEDLOOP_ERR_AUTH_SOURCE_FORBIDDEN: { status: 403, description: 'A public key or a feedback token claimed source `review` or `judge`; only a secret key may' },
  FEEDLOOP_ERR_RATE_LIMITED: { status: 429, description: 'Too many submissions from this client; see Retry-After' },
  FEEDLOOP_ERR_HEAVY_READS_BUSY: { status: 429, description: 'Too many exports, user contexts, insights or stats ranges at once (in this workspace or this process); see Retry-After' },
  FEEDLOOP_ERR_RESPONSE_NOT_FOUND: { status: 404, description: 'No response with that id in this workspace' },
  FEEDLOOP_ERR_RESPONSE_CONFLICT: { status: 409, description: 'A response with that id exists with other content' },
  FEEDLOOP_ERR_FEEDBACK_WINDOW_CLOSED: { status: 422, description: 'Explicit feedback came later than the workspace feedback window after the response' },
  FEEDLOOP_ERR_FEEDBACK_BEFORE_RESPONSE: { status: 422, description: 'The feedback is dated before its response was created' },
  FEEDLOOP_ERR_NOT_FOUND: { status: 404, description: 'No such route or resource' },
  FEEDLOOP_ERR_METHOD_NOT_ALLOWED: { status: 405, description: 'The route exists, but not with this method; see Allow' },
  FEEDLOOP_ERR_BAD_REQUEST: { status: 400, description: 'The HTTP request is malformed: its URL, headers, Content-Length or range' },
  FEEDLOOP_ERR_URI_TOO_LONG: { status: 414, description: 'A path parameter or the URL is longer than the server accepts' },
  FEEDLOOP_ERR_HEADERS_TOO_LARGE: { status: 431, description: 'The request headers are larger than the server accepts' },
  FEEDLOOP_ERR_TIMEOUT: { status: 408, description: 'The client did not send the whole request in time' },
  FEEDLOOP_ERR_WORKSPACE_NOT_FOUND: { status: 404, description: 'No workspace with that id or name' },
  FEEDLOOP_ERR_KEY_NOT_FOUND: { status: 404, description: 'No key with that id in this workspace' },
  FEEDLOOP_ERR_KEY_LAST_SECRET: { status: 409, description: 'The key is the workspace\'s last active secret key; create another before revoking it' },
  FEEDLOOP_ERR_WEBHOOK_NOT_FOUND: { status: 404, description: 'No webhook with that id in this workspace' },
  FEEDLOOP_ERR_ALERT_NOT_FOUND: { status: 404, description: 'No alert with that id in this workspace' },
  FEEDLOOP_ERR_WEBHOOK_URL_FORBIDDEN: { status: 400, description: 'The webhook URL points into a private, loopback, link-local or otherwise non-public network' },
  FEEDLOOP_ERR_WEBHOOK_LIMIT: { status: 409, description: 'The workspace has as many webhooks as it may have; delete one first' },
  FEEDLOOP_ERR_EXPERIMENT_NOT_FOUND: { status: 404, description: 'No experiment with that id in this workspace: none declared and no response carries it' },
  FEEDLOOP_ERR_TRAINING_BATCH_NOT_FOUND: { status: 404, description: 'No training batch with that id in this workspace' },
  FEEDLOOP_ERR_DATA_DIR_LOCKED: { status: 409, description: 'Another feedloop process holds the embedded data folder' },
  FEEDLOOP_ERR_UNAVAILABLE: { status: 503, description: 'The database cannot be reached or the server is shutting down' },
  FEEDLOOP_ERR_INTERNAL: { status: 500, description: 'An unexpected error; the server log has its details' },
  FEEDLOOP_ERR_EXPORT_UNKNOWN_FORMAT: { status: 404, description: 'No training-data export format of that name; see docs/exports.md' },
  FEEDLOOP_ERR_CONSENT_REQUIRED: { status: 403, description: 'The user has not consented to (or opted out of) this kind of signal; the event was not stored' },
  FEEDLOOP_ERR_TARGET_NOT_FOUND: { status: 404, description: 'No label action names that target in this workspace, and it is not registered' },
  FEEDLOOP_ERR_TOKEN_EXPIRED: { status: 401, description: 'The feedback token is past its expiry; ask the application for a new one' },
  FEEDLOOP_ERR_TOKEN_INVALID: { status: 401, description: 'The feedback token is malformed, tampered with, or its workspace secret was rotated' },
  FEEDLOOP_ERR_TOKEN_SCOPE: { status: 403, description: 'The feedback is outside the token scope: another response, event type or user' },
  FEEDLOOP_ERR_COMPAT_UNSUPPORTED: { status: 422, description: 'A drop-in protocol\'s feature feedloop does not support, e.g. a Langfuse score on a dataset run (docs/compat.md)' },
  FEEDLOOP_ERR_SCORE_INVALID: { status: 400, description: 'A score does not fit its score config: out of range, not a category, not a boolean (the field names value or stringValue)' },
  FEEDLOOP_ERR_SCORE_CONFIG_NOT_FOUND: { status: 404, description: 'No score config with that id in this workspace' },
  FEEDLOOP_ERR_SCORE_CONFIG_CONFLICT: { status: 409, description: 'A score config of that name exists in this workspace (names are unique, archived ones too)' },
  FEEDLOOP_ERR_FEEDBACK_NOT_FOUND: { status: 404, description: 'No feedback event with that id in this workspace' },
  FEEDLOOP_ERR_DATASET_NOT_FOUND: { status: 404, description: 'No dataset with that id in this workspace' },
  FEEDLOOP_ERR_DATASET_CONFLICT: { status: 409, description: 'A dataset of that name exists in this workspace (names are unique)' },
  FEEDLOOP_ERR_DATASET_VERSION_NOT_FOUND: { status: 404, description: 'The dataset has no version of that number (versions run from 1 to its latest)' },
  FEEDLOOP_ERR_DATASET_ITEM_NOT_FOUND: { status: 404, description: 'The response is not an item of the dataset\'s latest version' },
  FEEDLOOP_ERR_REVIEWER_FORBIDDEN: { status: 403, description: 'A reviewer key may only list its queues, reserve and review their items, and read what an item shows' },
  FEEDLOOP_ERR_REVIEWER_NOT_MEMBER: { status: 403, description: 'The reviewer is not a member of this review queue' },
  FEEDLOOP_ERR_REVIEW_QUEUE_NOT_FOUND: { status: 404, description: 'No review queue with that id in this workspace' },
  FEEDLOOP_ERR_REVIEW_ITEM_NOT_FOUND: { status: 404, description: 'No item with that id in this review queue' },
  FEEDLOOP_ERR_REVIEW_RESERVATION_LOST: { status: 409, description: 'The reviewer\'s reservation expired or was released and the item has all the reviews it needs (or others hold them)' },
  FEEDLOOP_ERR_REVIEW_FIELD_DISABLED: { status: 400, description: 'A review field the queue\'s rubric turns off (the field names it)' },
  FEEDLOOP_ERR_EVALUATOR_NOT_FOUND: { status: 404, description: 'No evaluator with that id in this workspace' },
  FEEDLOOP_ERR_EVALUATOR_URL_FORBIDDEN: { status: 400, description: 'The evaluator URL points into a private, loopback, link-local or otherwise non-public network (the webhook address rules)' },
  FEEDLOOP_ERR_EVALUATOR_CALL_NOT_FOUND: { status: 404, description: 'No call with that id for this evaluator' },
  FEEDLOOP_ERR_EVALUATOR_CALL_NOT_DEAD: { status: 409, description: 'Only a dead-lettered evaluator call may be retried; this one is pending or done' },
  FEEDLOOP_ERR_EVALUATOR_BACKFILL_NOT_FOUND: { status: 404, description: 'No backfill with that id for this evaluator' },
} as const satisfies Record<string, { status: number; description: string }>;

/** A stable error code, e.g. `FEEDLOOP_ERR_RESPONSE_NOT_FOUND`. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** An error as it goes on the wire: `{ "error": { code, message, field? } }`. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  field?: string;
}

/**
 * The HTTP status of an error code.
 *
 * @example
 * statusOf('FEEDLOOP_ERR_RATE_LIMITED') // 429
 */
export function statusOf(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}
