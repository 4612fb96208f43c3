/**
 * What every `/langsmith` route shares (issue 26 §3): the LangSmith SDKs' authentication
 * (`x-api-key: <secret key>`, or `Authorization: Bearer`), and errors in the shape their
 * clients read — FastAPI's `{ detail }` with the status — carrying feedloop's coded `error` too,
 * so one body serves both (`{ detail, error: { code, message, field? } }`).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { FeedloopError } from '../errors.js';
import type { KeyCache } from './key-cache.js';
import { toFeedloopError } from './error-handler.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A `/langsmith` route a presigned feedback token authorizes (no key). */
    langsmithToken?: boolean;
  }
}

/**
 * Sends an error as LangSmith's clients read it.
 *
 * @example
 * sendLangSmithError(reply, new FeedloopError('FEEDLOOP_ERR_FEEDBACK_NOT_FOUND', 'no feedback "f1"'))
 * // 404 { detail: 'no feedback "f1"', error: { code: 'FEEDLOOP_ERR_FEEDBACK_NOT_FOUND', message: … } }
 */
export function sendLangSmithError(reply: FastifyReply, error: FeedloopError): FastifyReply {
  if (error.retryAfterSeconds !== undefined) void reply.header('retry-after', String(error.retryAfterSeconds));
  return reply.status(error.status).send({ detail: error.message, error: error.toBody() });
}

/** The key a LangSmith client sends: `x-api-key`, else a bearer token. */
function keyOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey.trim() !== '') return apiKey.trim();
  const auth = headers.authorization;
  const match = typeof auth === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(auth) : null;
  return match?.[1];
}

/**
 * Installs, on the encapsulated `/langsmith` plugin: its authentication (routes are marked
 * `access: 'none'` for the app-wide hook, which reads bearer keys only; this one reads both and
 * takes secret keys only), its error handler and its not-found answer.
 */
export function installLangSmithScope(app: FastifyInstance, keys: KeyCache): void {
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, access: 'none' };
  });
  app.addHook('onRequest', async (request) => {
    if (request.is404 || request.routeOptions.config.langsmithToken || request.method === 'OPTIONS') return;
    const key = keyOf(request.headers);
    if (!key) throw new FeedloopError('FEEDLOOP_ERR_AUTH_MISSING_KEY', 'send a workspace secret key as `x-api-key` (or `Authorization: Bearer <key>`)', { field: 'x-api-key' });
    const auth = await keys.resolve(key);
    if (!auth) throw new FeedloopError('FEEDLOOP_ERR_AUTH_INVALID_KEY', 'the API key is unknown or revoked', { field: 'x-api-key' });
    if (auth.kind !== 'secret') throw new FeedloopError('FEEDLOOP_ERR_AUTH_FORBIDDEN', 'the LangSmith routes take a secret key (a public key may only submit feedback to /v1)', { field: 'x-api-key' });
    request.auth = auth;
  });
  app.setErrorHandler((err, request, reply) => {
    const error = toFeedloopError(err);
    if (error.status >= 500) request.log.error({ err }, 'request failed');
    return sendLangSmithError(reply, error);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    return sendLangSmithError(reply, new FeedloopError('FEEDLOOP_ERR_NOT_FOUND', `feedloop's LangSmith drop-in has no route ${request.method} ${path} (docs/compat.md lists what it serves)`));
  });
}
