/**
 * Liveness, readiness and Prometheus metrics: the routes an orchestrator and a scraper call,
 * without an API key. `/metrics` wants `FEEDLOOP_METRICS_TOKEN` as a bearer token when it is set.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { probeDatabase } from '../../db/database-upkeep.js';
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

/**
 * Prometheus text without any series labelled `workspace`, and without the HELP and TYPE lines of
 * the families left with no series: what `/metrics` serves when no token protects it.
 *
 * @example
 * withoutWorkspaceSeries('# TYPE a gauge\na{workspace="w1"} 1\n# TYPE b counter\nb 2\n') // '# TYPE b counter\nb 2\n'
 */
export function withoutWorkspaceSeries(text: string): string {
  const kept = text.split('\n').filter((l) => l.startsWith('#') || !/[{,]workspace="/.test(l));
  const withSeries = new Set(kept.filter((l) => l !== '' && !l.startsWith('#')).map((l) => /^[A-Za-z_:][A-Za-z0-9_:]*/.exec(l)?.[0] ?? ''));
  // A histogram's or summary's series carry suffixes of their family's name.
  const hasSeries = (name: string) => ['', '_bucket', '_sum', '_count'].some((suffix) => withSeries.has(`${name}${suffix}`));
  return kept
    .filter((l) => {
      const m = /^# (?:HELP|TYPE) ([A-Za-z_:][A-Za-z0-9_:]*)/.exec(l);
      return m === null || hasSeries(m[1] as string);
    })
    .join('\n');
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
      await Promise.race([probeDatabase(db), timeout]);
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
    const text = await metrics.registry.metrics();
    // Without a token anyone can scrape: process-wide figures only, no workspace's id, rates or
    // alert states (issue 22). With a token, everything.
    return reply.type(metrics.registry.contentType).send(config.metricsToken === undefined ? withoutWorkspaceSeries(text) : text);
  });
};
