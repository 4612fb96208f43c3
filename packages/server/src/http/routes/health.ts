/**
 * Liveness, readiness and Prometheus metrics: the routes an orchestrator and a scraper call,
 * without an API key. `/metrics` wants `FEEDLOOP_METRICS_TOKEN` as a bearer token when it is set.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { FeedloopError } from '../../errors.js';
import type { AppServices } from '../services.js';

const READY_TIMEOUT_MS = 2_000;

/**
 * Whether the request carries `Authorization: Bearer <token>`. Both sides are hashed first, so
 * the comparison takes the same time whatever the length or the first wrong character.
 */
function hasToken(request: FastifyRequest, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (!match?.[1]) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(match[1]), digest(token));
}

/** The operational routes. */
export const healthRoutes: FastifyPluginAsync<AppServices> = async (app, { db, metrics, config }) => {
  app.get('/healthz', { config: { access: 'none' }, schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { config: { access: 'none' }, schema: { hide: true } }, async (request) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('database did not answer in time')), READY_TIMEOUT_MS);
    });
    try {
      await Promise.race([db.query('SELECT 1'), timeout]);
      return { status: 'ready', database: db.dialect };
    } catch (err) {
      // The driver's text names hosts, ports and users: it goes to the log, never to the caller.
      request.log.warn({ err }, 'readiness check: the database did not answer');
      throw new FeedloopError('FEEDLOOP_ERR_UNAVAILABLE', 'the database is not reachable; see the server log');
    } finally {
      clearTimeout(timer);
    }
  });

  app.get('/metrics', { config: { access: 'none' }, schema: { hide: true } }, async (request, reply) => {
    if (config.metricsToken !== undefined && !hasToken(request, config.metricsToken)) {
      throw request.headers.authorization
        ? new FeedloopError('FEEDLOOP_ERR_AUTH_INVALID_KEY', 'the metrics token is wrong', { field: 'authorization' })
        : new FeedloopError('FEEDLOOP_ERR_AUTH_MISSING_KEY', 'send FEEDLOOP_METRICS_TOKEN as `Authorization: Bearer <token>`', {
            field: 'authorization',
          });
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
};
