/**
 * One error handler for the whole API: every failure leaves as `{ error: { code, message, field? } }`
 * with the registry's status; unexpected errors are logged and answered without internals.
 * Fastify answers some failures outside the error handler (a bad URL, an over-long path parameter,
 * a request the HTTP parser rejects); those paths are routed here too, see {@link sendFrameworkError}
 * and {@link clientErrorHandler}.
 */
import { ERROR_CODES, type ErrorCode } from '@feedloop/core';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import { FeedloopError } from '../errors.js';
import type { Metrics } from '../metrics.js';

const FASTIFY_CODES: Record<string, () => FeedloopError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => new FeedloopError('FEEDLOOP_ERR_VALIDATION_BODY_TOO_LARGE', 'the request body is too large'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () =>
    new FeedloopError('FEEDLOOP_ERR_VALIDATION_UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => new FeedloopError('FEEDLOOP_ERR_VALIDATION_BAD_JSON', 'the JSON body is empty'),
  FST_ERR_CTP_INVALID_JSON_BODY: () => new FeedloopError('FEEDLOOP_ERR_VALIDATION_BAD_JSON', 'the body is not valid JSON'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () =>
    new FeedloopError('FEEDLOOP_ERR_BAD_REQUEST', 'the body size does not match Content-Length', { field: 'content-length' }),
  FST_ERR_BAD_URL: () => new FeedloopError('FEEDLOOP_ERR_BAD_REQUEST', 'the URL is not validly percent-encoded'),
  FST_ERR_MAX_PARAM_LENGTH: () => new FeedloopError('FEEDLOOP_ERR_URI_TOO_LONG', 'a path parameter is longer than the server accepts'),
  FST_ERR_HANDLER_TIMEOUT: () => new FeedloopError('FEEDLOOP_ERR_UNAVAILABLE', 'the request took too long; retry'),
  FST_ERR_NOT_FOUND: () => new FeedloopError('FEEDLOOP_ERR_NOT_FOUND', 'no such route or resource'),
};

/** The code for a client error (4xx) that has no mapping of its own, by its status. */
const CLIENT_ERRORS_BY_STATUS: Record<number, ErrorCode> = {
  404: 'FEEDLOOP_ERR_NOT_FOUND',
  405: 'FEEDLOOP_ERR_METHOD_NOT_ALLOWED',
  408: 'FEEDLOOP_ERR_TIMEOUT',
  413: 'FEEDLOOP_ERR_VALIDATION_BODY_TOO_LARGE',
  414: 'FEEDLOOP_ERR_URI_TOO_LONG',
  415: 'FEEDLOOP_ERR_VALIDATION_UNSUPPORTED_MEDIA_TYPE',
  431: 'FEEDLOOP_ERR_HEADERS_TOO_LARGE',
};

/**
 * Maps any error to a FeedloopError. A 4xx error of Fastify or a plugin (e.g. the docs' static
 * files answering an unsatisfiable range) without a mapping of its own gets the code of its status,
 * or `FEEDLOOP_ERR_BAD_REQUEST`: its own message is not passed on, it may name internals.
 *
 * @example
 * toFeedloopError(new SyntaxError('Unexpected token')) // FEEDLOOP_ERR_VALIDATION_BAD_JSON when it came from the JSON parser
 */
export function toFeedloopError(err: unknown): FeedloopError {
  if (err instanceof FeedloopError) return err;
  const e = (err ?? {}) as Partial<FastifyError> & { status?: unknown };
  const mapped = e.code ? FASTIFY_CODES[e.code] : undefined;
  if (mapped) return mapped();
  const status = typeof e.statusCode === 'number' ? e.statusCode : typeof e.status === 'number' ? e.status : undefined;
  if (err instanceof SyntaxError && status === 400) {
    return new FeedloopError('FEEDLOOP_ERR_VALIDATION_BAD_JSON', `the body is not valid JSON: ${err.message}`);
  }
  if (status !== undefined && status >= 400 && status < 500) {
    const code = CLIENT_ERRORS_BY_STATUS[status] ?? 'FEEDLOOP_ERR_BAD_REQUEST';
    return new FeedloopError(code, `the request was refused: ${ERROR_CODES[code].description}`, { cause: err });
  }
  return new FeedloopError('FEEDLOOP_ERR_INTERNAL', 'internal error', { cause: err });
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route takes feedback events: a request rejected whole counts as rejected events. */
    countsFeedback?: boolean;
  }
}

/**
 * Answers the errors Fastify raises before routing (a URL that is not valid percent-encoding, a
 * path parameter over `maxParamLength`): pass it as Fastify's `frameworkErrors` option.
 */
export function sendFrameworkError(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const error = toFeedloopError(err);
  void reply.status(error.status).send({ error: error.toBody() });
}

/**
 * Answers a request Node's HTTP parser rejected (malformed, headers too large, sent too slowly)
 * on the raw socket, in the API's error shape: pass it as Fastify's `clientErrorHandler` option.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const code: ErrorCode =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? 'FEEDLOOP_ERR_TIMEOUT'
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? 'FEEDLOOP_ERR_HEADERS_TOO_LARGE'
        : 'FEEDLOOP_ERR_BAD_REQUEST';
  const body = JSON.stringify({ error: new FeedloopError(code, ERROR_CODES[code].description).toBody() });
  const status = ERROR_CODES[code].status;
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${code.slice('FEEDLOOP_ERR_'.length).replaceAll('_', ' ')}\r\nConnection: close\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** Turns a route pattern (`/v1/responses/:id`, `/docs/*`) into a matcher of concrete paths. */
function patternMatcher(url: string): RegExp {
  const parts = url.split(/(:[A-Za-z0-9_]+|\*)/).map((part) => {
    if (part === '*') return '.*';
    if (part.startsWith(':')) return '[^/]+';
    return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  });
  return new RegExp(`^${parts.join('')}/?$`);
}

/** Installs the error and not-found handlers on an app (before its routes are registered). */
export function installErrorHandlers(app: FastifyInstance, metrics: Metrics): void {
  // The methods of every route, so a known path with another method is a 405, not a 404.
  const routes: { matcher: RegExp; methods: Set<string> }[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    let entry = routes.find((r) => r.matcher.source === patternMatcher(route.url).source);
    if (!entry) routes.push((entry = { matcher: patternMatcher(route.url), methods: new Set() }));
    for (const m of methods) entry.methods.add(m.toUpperCase());
  });

  app.setErrorHandler((err, request, reply) => {
    const error = toFeedloopError(err);
    if (request.routeOptions.config.countsFeedback) metrics.feedbackEvents.inc({ status: 'rejected', code: error.code });
    if (error.status >= 500) request.log.error({ err }, 'request failed');
    if (error.retryAfterSeconds !== undefined) void reply.header('retry-after', String(error.retryAfterSeconds));
    return reply.status(error.status).send({ error: error.toBody() });
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = new Set<string>();
    for (const r of routes) if (r.matcher.test(path)) for (const m of r.methods) allowed.add(m);
    // A matching route with this method that still lands here (e.g. a docs asset that is not there) is a 404.
    if (allowed.size > 0 && !allowed.has(request.method)) {
      const error = new FeedloopError('FEEDLOOP_ERR_METHOD_NOT_ALLOWED', `${path} does not take ${request.method}; it takes ${[...allowed].join(', ')}`);
      return reply.status(error.status).header('allow', [...allowed].join(', ')).send({ error: error.toBody() });
    }
    return reply.status(404).send({ error: new FeedloopError('FEEDLOOP_ERR_NOT_FOUND', `no route ${request.method} ${path}`).toBody() });
  });
}
