/**
 * The dashboard's routes follow the build folder as it is when asked, not as it was at start: a
 * server started before (or while) `npm run build` empties and refills the folder serves that
 * build once it is there, and a rebuild's page replaces the one read before, never leaving a page
 * that names assets the build removed. A CI run's browser tests failed whole when their server
 * started in the moment another file's `npm start` had emptied the folder.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const pglite = BACKENDS.find((b) => b.name === 'pglite');

describe('the dashboard routes and a build folder that changes under them', () => {
  const dir = mkdtempSync(join(tmpdir(), 'feedloop-dashboard-'));
  let t: TestApp;
  const get = (url: string) => t.app.inject({ method: 'GET', url });

  beforeAll(async () => {
    if (!pglite) throw new Error('no pglite backend in the harness');
    t = await startTestApp(await pglite.open(), { FEEDLOOP_DASHBOARD_DIR: dir });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says it is not built, then serves the build made after the start, then the next build', async () => {
    const before = await get('/');
    expect(before.statusCode).toBe(503);
    expect(before.body).toContain('The dashboard is not built');
    expect((await get('/assets/app-1.js')).statusCode).toBe(404);

    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'assets', 'app-1.js'), 'console.log(1)');
    writeFileSync(join(dir, 'index.html'), '<script src="/assets/app-1.js"></script>');
    const built = await get('/');
    expect(built.statusCode).toBe(200);
    expect(built.body).toContain('/assets/app-1.js');
    const asset = await get('/assets/app-1.js');
    expect(asset.statusCode).toBe(200);
    expect(asset.body).toBe('console.log(1)');

    // A rebuild: new hashed names, the old ones gone; the page follows.
    rmSync(join(dir, 'assets', 'app-1.js'));
    writeFileSync(join(dir, 'assets', 'app-2.js'), 'console.log(2)');
    writeFileSync(join(dir, 'index.html'), '<script src="/assets/app-2.js"></script><!-- rebuilt -->');
    const rebuilt = await get('/');
    expect(rebuilt.body).toContain('/assets/app-2.js');
    expect((await get('/assets/app-2.js')).statusCode).toBe(200);
    expect((await get('/assets/app-1.js')).statusCode).toBe(404);
  });
});
