/**
 * One error handler for the whole API: every failure leaves as `{ error: { code, message, field? } }`
 * with the registry's status; unexpected errors are logged and answered without internals.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { FeedloopError } from '../errors.js';
import type { Metrics } from '../metrics.js';

const FASTIFY_CODES: Record<string, () => FeedloopError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => new FeedloopError('FEEDLOOP_ERR_VALIDATION_BODY_TOO_LARGE', 'the request body is too large'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () =>
    new FeedloopError('FEEDLOOP_ERR_VALIDATION_UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => new FeedloopError('FEEDLOOP_ERR_VALIDATION_BAD_JSON', 'the JSON body is empty'),
  FST_ERR_CTP_INVALID_JSON_BODY: () => new FeedloopError('FEEDLOOP_ERR_VALIDATION_BAD_JSON', 'the body is not valid JSON'),
};

/**
 * Maps any error to a FeedloopError.
 *
 * @example
 * toFeedloopError(new SyntaxError('Unexpected token')) // FEEDLOOP_ERR_VALIDATION_BAD_JSON when it came from the JSON parser
 */
export function toFeedloopError(err: unknown): FeedloopError {
  if (err instanceof FeedloopError) return err;
  const e = err as Partial<FastifyError>;
  const mapped = e.code ? FASTIFY_CODES[e.code] : undefined;
  if (mapped) return mapped();
  if (err instanceof SyntaxError && e.statusCode === 400) {
    return new FeedloopError('FEEDLOOP_ERR_VALIDATION_BAD_JSON', `the body is not valid JSON: ${err.message}`);
  }
  return new FeedloopError('FEEDLOOP_ERR_INTERNAL', 'internal error', { cause: err });
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route takes feedback events: a request rejected whole counts as rejected events. */
    countsFeedback?: boolean;
  }
}

/** Installs the error and not-found handlers on an app. */
export function installErrorHandlers(app: FastifyInstance, metrics: Metrics): void {
  app.setErrorHandler((err, request, reply) => {
    const error = toFeedloopError(err);
    if (request.routeOptions.config.countsFeedback) metrics.feedbackEvents.inc({ status: 'rejected', code: error.code });
    if (error.status >= 500) request.log.error({ err }, 'request failed');
    if (error.retryAfterSeconds !== undefined) void reply.header('retry-after', String(error.retryAfterSeconds));
    return reply.status(error.status).send({ error: error.toBody() });
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .status(404)
      .send({ error: new FeedloopError('FEEDLOOP_ERR_NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`).toBody() }),
  );
}
