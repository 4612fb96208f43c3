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
