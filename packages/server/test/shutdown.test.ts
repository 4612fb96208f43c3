/**
 * Issue 22, shutdown: SIGTERM ends `feedloop start` within FEEDLOOP_SHUTDOWN_TIMEOUT_SECONDS even
 * with a client connected and silent and a client mid-upload (which used to hold the close open
 * until Node's own header and request timeouts, minutes), while writers are in flight. Both
 * profiles: embedded (PGlite) and production (Postgres and Redis), as real processes.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKENDS, POSTGRES_URL, REDIS_URL, withPgClient } from './harness.js';
import { killAllServers, startServerProcess, within } from './process-helpers.js';

const SECRET_KEY = `fl_sk_${randomBytes(16).toString('hex')}`;
const TIMEOUT_SECONDS = 4;

interface Profile {
  name: string;
  available: boolean;
  setup(): Promise<Record<string, string>>;
  teardown(): Promise<void>;
}

function embedded(): Profile {
  let dir = '';
  return {
    name: 'embedded (pglite)',
    available: true,
    async setup() {
      dir = mkdtempSync(join(tmpdir(), 'feedloop-shutdown-'));
      return { FEEDLOOP_DATA_DIR: dir };
    },
    async teardown() {
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

function production(available: boolean): Profile {
  const database = `fl_shut_${randomBytes(6).toString('hex')}`;
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${database}`;
  let created = false;
  return {
    name: 'production (postgres + redis)',
    available,
    async setup() {
      await withPgClient((c) => c.query(`CREATE DATABASE ${database}`));
      created = true;
      return { DATABASE_URL: url.href, REDIS_URL, FEEDLOOP_REDIS_PREFIX: `fl-shut-${randomBytes(4).toString('hex')}` };
    },
    async teardown() {
      if (created) await withPgClient((c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
    },
  };
}

const postgresAvailable = BACKENDS.find((b) => b.name === 'postgres')?.available ?? false;

afterAll(async () => {
  await killAllServers();
});

for (const profile of [embedded(), production(postgresAvailable)]) {
  describe.skipIf(!profile.available)(`shutdown, ${profile.name}`, () => {
    afterAll(async () => {
      await profile.teardown();
    });

    it(`exits within FEEDLOOP_SHUTDOWN_TIMEOUT_SECONDS (${TIMEOUT_SECONDS}) with a silent client, one mid-upload and writers in flight`, async () => {
      const env = await profile.setup();
      const server = await startServerProcess({
        ...env,
        FEEDLOOP_INIT_WORKSPACE: 'shutdown',
        FEEDLOOP_INIT_SECRET_KEY: SECRET_KEY,
        FEEDLOOP_SHUTDOWN_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
      });
      const auth = { authorization: `Bearer ${SECRET_KEY}`, 'content-type': 'application/json' };
      const registered = await fetch(`${server.url}/v1/responses`, { method: 'POST', headers: auth, body: JSON.stringify({ id: 'sd-r', query: 'q', answer: 'a' }) });
      expect(registered.status).toBe(201);

      const { port } = new URL(server.url);
      const sockets: net.Socket[] = [];
      const open = () =>
        new Promise<net.Socket>((resolve, reject) => {
          const s = net.connect(Number(port), '127.0.0.1', () => resolve(s));
          s.on('error', () => undefined);
          s.once('error', reject);
          sockets.push(s);
        });
      // Connected and silent.
      await open();
      // Mid-upload: headers and the start of a 10,000-byte body, then nothing.
      const uploading = await open();
      uploading.write(`POST /v1/feedback HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${SECRET_KEY}\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{"type":"thumbs_up",`);

      // Writers in flight until the server goes away.
      let stop = false;
      let acked = 0;
      const writer = async (w: number) => {
        for (let i = 0; !stop; i++) {
          try {
            const res = await fetch(`${server.url}/v1/feedback`, { method: 'POST', headers: auth, body: JSON.stringify({ id: `sd-${w}-${i}`, responseId: 'sd-r', type: 'thumbs_up', userId: `w${w}-${i}` }) });
            if (res.status === 202) acked++;
            await res.arrayBuffer();
          } catch {
            return; // refused or cut: the server is closing
          }
        }
      };
      const writers = Array.from({ length: 4 }, (_, w) => writer(w));
      await new Promise((r) => setTimeout(r, 500));
      expect(acked).toBeGreaterThan(0);

      const termAt = Date.now();
      server.signal('SIGTERM');
      const exit = await within(server.exited, (TIMEOUT_SECONDS + 6) * 1000, 'exit after SIGTERM');
      const exitMs = Date.now() - termAt;
      stop = true;
      await Promise.all(writers);
      for (const s of sockets) s.destroy();
      console.log(`${profile.name}: exited ${JSON.stringify(exit)} ${exitMs} ms after SIGTERM (${acked} writes acked)`);
      expect(server.running()).toBe(false);
      expect(exitMs).toBeLessThan(TIMEOUT_SECONDS * 1000 + 1_500);
      expect(exit.code, server.output()).toBe(0);
    }, 120_000);
  });
}
