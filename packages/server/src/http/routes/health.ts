/**
 * Liveness, readiness and Prometheus metrics; no key needed.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppServices } from '../services.js';

const READY_TIMEOUT_MS = 2_000;

/** The operational routes. */
export const healthRoutes: FastifyPluginAsync<AppServices> = async (app, { db, metrics }) => {
  app.get('/healthz', { config: { access: 'none' }, schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { config: { access: 'none' }, schema: { hide: true } }, async (_request, reply) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('database did not answer in time')), READY_TIMEOUT_MS);
    });
    try {
      await Promise.race([db.query('SELECT 1'), timeout]);
      return { status: 'ready', database: db.dialect };
    } catch (err) {
      return reply.status(503).send({ error: { code: 'FEEDLOOP_ERR_UNAVAILABLE', message: `database unreachable: ${(err as Error).message}` } });
    } finally {
      clearTimeout(timer);
    }
  });

  app.get('/metrics', { config: { access: 'none' }, schema: { hide: true } }, async (_request, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
};
