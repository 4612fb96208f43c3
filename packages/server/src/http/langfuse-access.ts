/**
 * Who calls the Langfuse drop-in (issue 26 §2, docs/compat.md), and how it answers errors and
 * browsers. Langfuse's SDKs authenticate with `Authorization: Basic base64(<public key>:<secret
 * key>)`; here both must be keys of one workspace (the public one public, the secret one secret)
 * and give full access. The browser client (`LangfuseWeb`) sends `Bearer <public key>`: scores only.
 * A `Bearer <secret key>` is taken too (full access), as feedloop's own routes take it.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { FeedloopError } from '../errors.js';
import type { AuthContext } from '../store/auth-context.js';
import type { Config } from '../config.js';
import type { IngestService } from '../ingest/ingest-service.js';
import { toFeedloopError } from './error-handler.js';
import type { KeyCache } from './key-cache.js';

const invalid = (message: string): FeedloopError => new FeedloopError('FEEDLOOP_ERR_AUTH_INVALID_KEY', message, { field: 'authorization' });

/** The public and secret keys of a Basic credential, or undefined when it is not one. */
function basicKeys(header: string): { publicKey: string; secretKey: string } | undefined {
  const match = /^Basic\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0 || colon === decoded.length - 1) return undefined;
  return { publicKey: decoded.slice(0, colon), secretKey: decoded.slice(colon + 1) };
}

/**
 * Resolves a Langfuse request's credential to the workspace it acts for.
 *
 * @throws FeedloopError `FEEDLOOP_ERR_AUTH_MISSING_KEY` (401) without a credential,
 *   `FEEDLOOP_ERR_AUTH_INVALID_KEY` (401) for unknown or revoked keys, keys of two workspaces, or
 *   a Basic pair whose halves are not a public and a secret key.
 * @example
 * await langfuseAuth(keys, 'Basic ' + btoa(`${pk}:${sk}`)) // the secret key's AuthContext
 */
export async function langfuseAuth(keys: Pick<KeyCache, 'resolve'>, header: string | undefined): Promise<AuthContext> {
  if (!header) throw new FeedloopError('FEEDLOOP_ERR_AUTH_MISSING_KEY', 'send `Authorization: Basic base64(<public key>:<secret key>)`', { field: 'authorization' });
  const basic = basicKeys(header);
  if (basic) {
    const [pub, secret] = await Promise.all([keys.resolve(basic.publicKey), keys.resolve(basic.secretKey)]);
    if (!pub || !secret) throw invalid('the public or the secret key is unknown or revoked');
    if (pub.kind !== 'public' || secret.kind !== 'secret') throw invalid('Basic takes <public key>:<secret key>, in that order');
    if (pub.workspaceId !== secret.workspaceId) throw invalid('the public and the secret key belong to different workspaces');
    return secret;
  }
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!bearer?.[1]) throw invalid('send `Authorization: Basic base64(<public key>:<secret key>)` or `Bearer <public key>`');
  const auth = await keys.resolve(bearer[1]);
  if (!auth) throw invalid('the API key is unknown or revoked');
  return auth;
}

/**
 * The request hook of every Langfuse route: CORS headers first (a browser reads an error only
 * with them), then the credential, and for a public key the same early limits as feedloop's
 * public-key routes (the rate, charged 1; the body size by its Content-Length). The global
 * preParsing hook caps a chunked public body once `request.auth` is set here. A route that takes
 * no public key (`publicKeys: false`) answers one 403 here, before any charge.
 */
export function langfuseRequestHook(
  keys: Pick<KeyCache, 'resolve'>,
  ingest: Pick<IngestService, 'checkRate'>,
  config: Pick<Config, 'publicBodyLimitBytes'>,
  options: { publicKeys: boolean },
) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    allowBrowsers(reply);
    const auth = await langfuseAuth(keys, request.headers.authorization);
    request.auth = auth;
    if (auth.kind !== 'public') return;
    // A public key on a route it may not call is refused before it is charged: 403, not 429.
    if (!options.publicKeys) secretOnly(request);
    await ingest.checkRate(auth, request.ip, 1);
    request.rateCharged = 1;
    const length = Number(request.headers['content-length']);
    if (Number.isFinite(length) && length > config.publicBodyLimitBytes) {
      throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_BODY_TOO_LARGE', `a request with a public key may carry at most ${config.publicBodyLimitBytes} bytes`);
    }
  };
}

/** A route a public key may not call: 403. */
export function secretOnly(request: FastifyRequest): void {
  if (request.auth?.kind !== 'secret') {
    throw new FeedloopError('FEEDLOOP_ERR_AUTH_FORBIDDEN', 'a public key may only send scores; use Basic <public key>:<secret key>', { field: 'authorization' });
  }
}

/**
 * CORS as on feedloop's public-key routes: any origin, the headers the Langfuse SDKs send. The
 * key, not the origin, is the authority: a public key may only send scores.
 */
export function allowBrowsers(reply: FastifyReply): void {
  reply.header('access-control-allow-origin', '*');
  reply.header('access-control-allow-methods', 'GET, POST, DELETE, OPTIONS');
  reply.header(
    'access-control-allow-headers',
    'authorization, content-type, x-langfuse-sdk-name, x-langfuse-sdk-version, x-langfuse-sdk-variant, x-langfuse-sdk-integration, x-langfuse-public-key',
  );
  reply.header('access-control-expose-headers', 'retry-after');
  reply.header('access-control-max-age', '86400');
}

/**
 * Langfuse's error shape, `{ message, error }`, with feedloop's code as `error` (and the field
 * when there is one); a refused key is 401/403, a limit 429 with Retry-After, never a stack.
 */
export function sendLangfuseError(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const error = toFeedloopError(err);
  if (error.status >= 500) request.log.error({ err }, 'request failed');
  allowBrowsers(reply);
  if (error.retryAfterSeconds !== undefined) void reply.header('retry-after', String(error.retryAfterSeconds));
  return reply.status(error.status).send({ message: error.message, error: error.code, ...(error.field === undefined ? {} : { field: error.field }) });
}
