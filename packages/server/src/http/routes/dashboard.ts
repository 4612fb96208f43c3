/**
 * The web dashboard (packages/dashboard, built by Vite): `GET /` answers its page and
 * `GET /assets/*` its hashed scripts and styles. Both are public (`access: 'none'`): the page holds
 * no data, and it asks for a workspace secret key that it sends as a Bearer header to the API.
 * Nothing else is routed here, so unknown paths keep the API's JSON 404.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync } from 'fastify';
import type { AppServices } from '../services.js';

/**
 * Where the built dashboard is: `FEEDLOOP_DASHBOARD_DIR`, else `packages/dashboard/dist` beside
 * this package (the same relative place from `src/` under tsx and from `dist/` once compiled).
 *
 * @example
 * dashboardDirOf(undefined) // '/repo/packages/dashboard/dist'
 */
export function dashboardDirOf(configured: string | undefined): string {
  return configured ?? resolve(dirname(fileURLToPath(import.meta.url)), '../../../../dashboard/dist');
}

const NOT_BUILT = (dir: string): string =>
  `<!doctype html><meta charset="utf-8"><title>feedloop</title><p>The dashboard is not built (no ${dir}/index.html). ` +
  'Run <code>npm run build</code> (or <code>npm start</code>, which builds it), or point FEEDLOOP_DASHBOARD_DIR at a built one.</p>';

/** The dashboard routes. */
export const dashboardRoutes: FastifyPluginAsync<AppServices> = async (app, { config }) => {
  const dir = dashboardDirOf(config.dashboardDir);
  const indexPath = join(dir, 'index.html');
  // Read once: the page is small and changes only with a new build (a restart).
  const index = existsSync(indexPath) ? readFileSync(indexPath, 'utf8') : null;

  app.get('/', { config: { access: 'none' }, schema: { hide: true } }, async (_request, reply) =>
    reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      // The page loads only its own scripts and talks only to this server.
      .header('content-security-policy', "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")
      .header('referrer-policy', 'no-referrer')
      .status(index === null ? 503 : 200)
      .send(index ?? NOT_BUILT(dir)),
  );

  if (existsSync(join(dir, 'assets'))) {
    await app.register(async (assets) => {
      assets.addHook('onRoute', (route) => {
        route.config = { ...route.config, access: 'none' };
        route.schema = { ...route.schema, hide: true };
      });
      // Vite names every asset by its content hash: a year of caching is safe.
      await assets.register(fastifyStatic, { root: join(dir, 'assets'), prefix: '/assets/', immutable: true, maxAge: '365d', index: false });
    });
  }
};
