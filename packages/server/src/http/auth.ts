/**
 * Bearer-key authentication, deny by default. Each route declares who may call it in
 * `config.access`: `none` (health, readiness, metrics, the docs: marked one by one), `public`
 * (feedback submission: public or secret keys) or `secret`, the default of every route that
 * does not say otherwise, wherever it is mounted.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { FeedloopError } from '../errors.js';
import type { AuthContext } from '../store/auth-context.js';
import type { KeyCache } from './key-cache.js';

/** Who may call a route. */
export type Access = 'none' | 'public' | 'secret';

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | undefined;
  }
  interface FastifyContextConfig {
    access?: Access;
  }
}

/**
 * The caller of a route that requires a key; throws when the hook did not authenticate one.
 *
 * @example
 * const { workspaceId } = authOf(request);
 */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new FeedloopError('FEEDLOOP_ERR_AUTH_MISSING_KEY', 'this route needs an API key');
  return request.auth;
}

/** Adds the authentication hook to an app; it runs before the body is read. */
export function installAuth(app: FastifyInstance, keys: KeyCache): void {
  app.decorateRequest('auth', undefined);
  app.addHook('onRequest', async (request) => {
    // An unknown route answers 404 (or 405) without a key: it holds no data, and looking the key
    // up first would let anyone probe keys through it.
    if (request.is404) return;
    const access = request.routeOptions.config.access ?? 'secret';
    if (access === 'none') return;
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match?.[1]) {
      throw new FeedloopError('FEEDLOOP_ERR_AUTH_MISSING_KEY', 'send the key as `Authorization: Bearer <key>`', { field: 'authorization' });
    }
    const auth = await keys.resolve(match[1]);
    if (!auth) throw new FeedloopError('FEEDLOOP_ERR_AUTH_INVALID_KEY', 'the API key is unknown or revoked', { field: 'authorization' });
    if (access === 'secret' && auth.kind !== 'secret') {
      throw new FeedloopError('FEEDLOOP_ERR_AUTH_FORBIDDEN', 'a public key may only submit feedback; use a secret key', {
        field: 'authorization',
      });
    }
    request.auth = auth;
  });
}
