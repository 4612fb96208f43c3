import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { authenticateKey } from '../src/store/api-keys.js';
import { listWorkspaces } from '../src/store/workspaces.js';
import { BACKENDS, type TestDatabase } from './harness.js';

const pglite = BACKENDS[0];

describe('first-run set-up', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await (pglite as NonNullable<typeof pglite>).open();
  });
  afterAll(() => database.close());

  it('creates a default workspace with keys to print once on an empty database, then nothing', async () => {
    const first = await bootstrap(database.db, loadConfig({}));
    expect(first.createdWorkspace).toBe(true);
    expect(first.printOnce?.secretKey).toMatch(/^fl_sk_/);
    expect(await authenticateKey(database.db, first.printOnce?.publicKey ?? '')).toMatchObject({ kind: 'public', workspaceId: first.workspaceId });
    const second = await bootstrap(database.db, loadConfig({}));
    expect(second).toEqual({ createdWorkspace: false });
  });

  it('creates the FEEDLOOP_INIT_* workspace and keys idempotently', async () => {
    const env = { FEEDLOOP_INIT_WORKSPACE: 'prod', FEEDLOOP_INIT_SECRET_KEY: 'fl_sk_headless_secret_0001', FEEDLOOP_INIT_PUBLIC_KEY: 'fl_pk_headless_public_0001' };
    const a = await bootstrap(database.db, loadConfig(env));
    const b = await bootstrap(database.db, loadConfig(env));
    expect(a.createdWorkspace).toBe(true);
    expect(b).toMatchObject({ createdWorkspace: false, workspaceId: a.workspaceId });
    expect(a.printOnce).toBeUndefined();
    expect(await authenticateKey(database.db, env.FEEDLOOP_INIT_SECRET_KEY)).toMatchObject({ kind: 'secret', workspaceId: a.workspaceId });
    expect(await authenticateKey(database.db, env.FEEDLOOP_INIT_PUBLIC_KEY)).toMatchObject({ kind: 'public', workspaceId: a.workspaceId });
    expect((await listWorkspaces(database.db)).filter((w) => w.name === 'prod')).toHaveLength(1);
  });
});

describe('loadConfig', () => {
  it('has defaults and parses the environment once into a frozen object', () => {
    const c = loadConfig({}, '/srv');
    expect(c).toMatchObject({ port: 8787, host: '127.0.0.1', databaseUrl: undefined, dataDir: '/srv/.feedloop', keyCacheSeconds: 5 });
    expect(Object.isFrozen(c)).toBe(true);
    expect(loadConfig({ PORT: '9000', DATABASE_URL: ' ', FEEDLOOP_TRUST_PROXY: 'true' })).toMatchObject({ port: 9000, databaseUrl: undefined, trustProxy: true });
  });

  it('names every invalid variable', () => {
    expect(() => loadConfig({ PORT: 'eighty', FEEDLOOP_INIT_SECRET_KEY: 'short' })).toThrow(/PORT: .*FEEDLOOP_INIT_SECRET_KEY: must be at least 20 characters/);
  });
});
