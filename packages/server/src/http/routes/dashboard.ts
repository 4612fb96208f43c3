/**
 * The web dashboard (packages/dashboard, built by Vite): `GET /` answers its page and
 * `GET /assets/*` its hashed scripts and styles. Both are public (`access: 'none'`): the page holds
 * no data, and it asks for a workspace secret key that it sends as a Bearer header to the API.
 * Nothing else is routed here, so unknown paths keep the API's JSON 404.
 */
import { readFileSync, statSync } from 'node:fs';
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

/**
 * The page, read when asked for and read again once a build replaced it (its size or change time
 * differs): a server started before or during a build (which empties the folder first) serves
 * that build's page as soon as it is there, and never keeps a page whose assets a build removed.
 * Null while there is none.
 */
function pageReader(path: string): () => string | null {
  let last: { stamp: string; page: string } | null = null;
  return () => {
    try {
      const { size, mtimeMs } = statSync(path);
      const stamp = `${size}:${mtimeMs}`;
      if (last?.stamp !== stamp) last = { stamp, page: readFileSync(path, 'utf8') };
      return last.page;
    } catch {
      return null;
    }
  };
}

/** The dashboard routes. */
export const dashboardRoutes: FastifyPluginAsync<AppServices> = async (app, { config }) => {
  const dir = dashboardDirOf(config.dashboardDir);
  const page = pageReader(join(dir, 'index.html'));

  app.get('/', { config: { access: 'none' }, schema: { hide: true } }, async (_request, reply) => {
    const index = page();
    return (
      reply
        .header('content-type', 'text/html; charset=utf-8')
        .header('cache-control', 'no-cache')
        // The page loads only its own scripts and talks only to this server.
        .header('content-security-policy', "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")
        .header('referrer-policy', 'no-referrer')
        .status(index === null ? 503 : 200)
        .send(index ?? NOT_BUILT(dir))
    );
  });

  await app.register(async (assets) => {
    assets.addHook('onRoute', (route) => {
      route.config = { ...route.config, access: 'none' };
      route.schema = { ...route.schema, hide: true };
    });
    // Vite names every asset by its content hash: a year of caching is safe. Files are looked up
    // when asked for, so a folder built after the start is served (none there yet: a logged warning).
    await assets.register(fastifyStatic, { root: join(dir, 'assets'), prefix: '/assets/', immutable: true, maxAge: '365d', index: false });
  });
};
