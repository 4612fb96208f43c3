/**
 * The error class every feedloop failure is thrown as: a stable code from the registry in
 * `@feedloop/core`, a message, the field it concerns, and the cause.
 */
import { ERROR_CODES, type ErrorBody, type ErrorCode } from '@feedloop/core';

/** An error with a stable code; the HTTP layer answers it as `{ error: { code, message, field } }`. */
export class FeedloopError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;
  readonly status: number;
  /** With `FEEDLOOP_ERR_RATE_LIMITED`: when the client may try again (the Retry-After header). */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message: string, options: { field?: string; cause?: unknown; retryAfterSeconds?: number } = {}) {
    super(message, { cause: options.cause });
    this.name = 'FeedloopError';
    this.code = code;
    this.field = options.field;
    this.status = ERROR_CODES[code].status;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** Builds the error from a wire error body (e.g. a validation result). */
  static from(body: ErrorBody): FeedloopError {
    return new FeedloopError(body.code, body.message, body.field === undefined ? {} : { field: body.field });
  }

  /** The wire body of this error. */
  toBody(): ErrorBody {
    return { code: this.code, message: this.message, ...(this.field === undefined ? {} : { field: this.field }) };
  }
}

/** The longest message a stored failure keeps. */
const STORED_MESSAGE_LENGTH = 200;
/** A path in an error message (`/srv/app/src/x.ts:3:7`, `file:///…`, `C:\…`): internals, never shown. */
const PATH_IN_MESSAGE = /(?:file:\/\/)?(?:[A-Za-z]:)?(?:[\\/][^\s\\/'"()]+){2,}(?::\d+)*/g;

/**
 * A failure as it is stored where a client can read it (a failed event's `error`, which
 * `GET /v1/pipeline` serves): `<registry code>: <one short line>`. A {@link FeedloopError} keeps
 * its code and message; anything else is `FEEDLOOP_ERR_INTERNAL` with the first line of its
 * message, paths taken out. Never a stack: frames name the server's files and lines (issue 25).
 *
 * @example
 * storedFailure(new FeedloopError('FEEDLOOP_ERR_RESPONSE_NOT_FOUND', 'response "r1" not found'))
 * // 'FEEDLOOP_ERR_RESPONSE_NOT_FOUND: response "r1" not found'
 */
export function storedFailure(err: unknown): string {
  if (err instanceof FeedloopError) return `${err.code}: ${shortLine(err.message)}`;
  const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return `FEEDLOOP_ERR_INTERNAL: ${shortLine(message)}`;
}

/**
 * Reads a stored failure back as a wire error: its code and message. Text stored before failures
 * carried a code (a stack, from an older version) gives `FEEDLOOP_ERR_INTERNAL` and its first line.
 *
 * @example
 * parseStoredFailure('FEEDLOOP_ERR_RESPONSE_NOT_FOUND: response "r1" not found')
 * // { code: 'FEEDLOOP_ERR_RESPONSE_NOT_FOUND', message: 'response "r1" not found' }
 */
export function parseStoredFailure(text: string): { code: ErrorCode; message: string } {
  const match = /^(FEEDLOOP_ERR_[A-Z_]+): /.exec(text);
  const code = match?.[1];
  if (code !== undefined && Object.hasOwn(ERROR_CODES, code)) return { code: code as ErrorCode, message: shortLine(text.slice(match![0].length)) };
  return { code: 'FEEDLOOP_ERR_INTERNAL', message: shortLine(text) };
}

/** The first line of a message, paths replaced, at most {@link STORED_MESSAGE_LENGTH} characters. */
function shortLine(message: string): string {
  const line = message.split('\n', 1)[0] ?? '';
  return line.replace(PATH_IN_MESSAGE, '<path>').slice(0, STORED_MESSAGE_LENGTH);
}
