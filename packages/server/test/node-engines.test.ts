/**
 * The Node version the README names is one every installed package supports (issue 23): `npm ci`
 * warned `EBADENGINE` on Node 20 while the README said Node 20, because three transitive
 * dependencies had moved to Node 22. The root package.json's `overrides` pin versions that run on
 * Node 20; this test reads every package `package-lock.json` installs (the file `npm ci` follows)
 * and fails when one's `engines.node` excludes the README's version, so the next upgrade that
 * drops it is seen here, not by a user.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import Fastify from 'fastify';
import { createInbox } from '@nats-io/transport-node';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './process-helpers.js';

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const ROOT_PACKAGE = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines?: { node?: string } };
const LOCK = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};

/** The version in the README's set-up line ("with Node 20.19 or newer"), as a full semver. */
function readmeNodeVersion(): string {
  const named = /with Node (\d+(?:\.\d+){0,2}) or newer/.exec(README)?.[1];
  if (!named) throw new Error('README.md does not say "with Node <version> or newer"');
  const version = semver.coerce(named)?.version;
  if (!version) throw new Error(`README.md names an unreadable Node version: ${named}`);
  return version;
}

describe('the Node version README names', () => {
  const version = readmeNodeVersion();

  it('is supported by every package package-lock.json installs', () => {
    const excluding: string[] = [];
    for (const [path, entry] of Object.entries(LOCK.packages)) {
      // Old lockfiles wrote engines as an array of "node >= x" strings; npm's own format is an object.
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (range && !semver.satisfies(version, range, { includePrerelease: true })) excluding.push(`${path || '(root)'}@${entry.version ?? ''} needs node ${range}`);
    }
    expect(excluding, `packages whose engines.node excludes Node ${version}`).toEqual([]);
  });

  it("is the root package.json's minimum, and this machine's Node is at least it", () => {
    expect(semver.minVersion(ROOT_PACKAGE.engines?.node ?? '')?.version).toBe(version);
    expect(semver.gte(process.version, version)).toBe(true);
  });
});

describe('the versions pinned for Node 20 (package.json overrides) serve their parents', () => {
  it("cookie@1 writes light-my-request's `cookies` option (fastify's inject)", async () => {
    const app = Fastify();
    app.get('/', async (request) => ({ cookie: request.headers.cookie }));
    try {
      const res = await app.inject({ method: 'GET', url: '/', cookies: { session: 'a b', theme: 'dark' } });
      expect(res.json()).toEqual({ cookie: 'session=a%20b; theme=dark' });
    } finally {
      await app.close();
    }
  });

  it("content-disposition@2 names @fastify/static's downloads", async () => {
    const root = mkdtempSync(join(tmpdir(), 'feedloop-static-'));
    writeFileSync(join(root, 'rapport é.txt'), 'x');
    // The @fastify/static that the API docs (@fastify/swagger-ui) load, not the server's own older one.
    const require = createRequire(createRequire(import.meta.url).resolve('@fastify/swagger-ui'));
    const fastifyStatic = require('@fastify/static') as FastifyPluginAsync<{ root: string }>;
    expect((require('@fastify/static/package.json') as { version: string }).version).toMatch(/^10\./);
    const app = Fastify();
    await app.register(fastifyStatic, { root });
    app.get('/file', (_request, reply) => reply.download('rapport é.txt'));
    try {
      const res = await app.inject({ method: 'GET', url: '/file' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-disposition']).toBe(`attachment; filename="rapport ?.txt"; filename*=UTF-8''rapport%20%C3%A9.txt`);
    } finally {
      await app.close();
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("@nats-io/nuid@2 makes NATS's unique inbox names", () => {
    const inboxes = new Set(Array.from({ length: 1_000 }, () => createInbox()));
    expect(inboxes.size).toBe(1_000);
    expect([...inboxes][0]).toMatch(/^_INBOX\.[0-9A-Za-z]{22}$/);
  });
});
