/**
 * Bearer-key authentication, deny by default. Each route declares who may call it in
 * `config.access`: `none` (health, readiness, metrics, the docs: marked one by one), `public`
 * (feedback submission: public or secret keys), `reviewer` (the review routes: reviewer or secret
 * keys), `admin` (the local admin credential only:
 * routes/admin.ts) or `secret`, the default of every route that does not say otherwise, wherever
 * it is mounted.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { FeedloopError } from '../errors.js';
import type { AuthContext } from '../store/auth-context.js';
import type { KeyCache } from './key-cache.js';

/**
 * Who may call a route. `reviewer`: secret keys and reviewer keys (the review routes, issue 27);
 * a reviewer key is refused on every other route.
 */
export type Access = 'none' | 'public' | 'secret' | 'admin' | 'reviewer';

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

/** Whether `given` is `expected`, in time that does not tell how much of it matched. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * Adds the authentication hook to an app; it runs before the body is read. `adminToken` is the
 * server's local admin credential, the only bearer an `admin` route takes (none: every admin
 * route refuses).
 */
export function installAuth(app: FastifyInstance, keys: KeyCache, adminToken?: string): void {
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
    if (access === 'admin') {
      if (adminToken === undefined || !sameSecret(match[1], adminToken)) {
        throw new FeedloopError('FEEDLOOP_ERR_AUTH_INVALID_KEY', "this route takes the server's local admin credential only", { field: 'authorization' });
      }
      return;
    }
    const auth = await keys.resolve(match[1]);
    if (!auth) throw new FeedloopError('FEEDLOOP_ERR_AUTH_INVALID_KEY', 'the API key is unknown or revoked', { field: 'authorization' });
    if (auth.kind === 'reviewer' && access !== 'reviewer') {
      throw new FeedloopError('FEEDLOOP_ERR_REVIEWER_FORBIDDEN', 'a reviewer key may only list its review queues, reserve and review their items', {
        field: 'authorization',
      });
    }
    if ((access === 'secret' || access === 'reviewer') && auth.kind === 'public') {
      throw new FeedloopError('FEEDLOOP_ERR_AUTH_FORBIDDEN', 'a public key may only submit feedback; use a secret key', {
        field: 'authorization',
      });
    }
    request.auth = auth;
  });
}
