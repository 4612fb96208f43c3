/**
 * A private Redis server for tests that stop and restart Redis: the machine's shared Redis serves
 * other suites running at the same time, so it is never stopped. Append-only with fsync on every
 * write, so a SIGKILLed server comes back with everything it acknowledged, like a production
 * Redis with persistence.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort, within } from './process-helpers.js';

const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? 'redis-server';

/** A Redis server this test owns. */
export interface RedisProcess {
  readonly url: string;
  /** Kills it (SIGKILL) and waits until it is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port and data folder, and waits until it answers. */
  restart(): Promise<void>;
  /** Kills it and removes its data. */
  dispose(): Promise<void>;
}

/**
 * Starts a private Redis on a free port.
 *
 * @example
 * const redis = await startRedisProcess(); await redis.kill(); await redis.restart();
 */
export async function startRedisProcess(): Promise<RedisProcess> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'feedloop-redis-'));
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;

  const start = async (): Promise<void> => {
    child = spawn(
      REDIS_SERVER,
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', ''],
      { stdio: 'ignore' },
    );
    const deadline = Date.now() + 10_000;
    for (;;) {
      const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        await probe.ping();
        probe.disconnect();
        return;
      } catch {
        probe.disconnect();
        if (Date.now() > deadline) throw new Error(`redis-server on ${port} did not start`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };
  const kill = async (): Promise<void> => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((resolve) => c.once('exit', resolve));
    c.kill('SIGKILL');
    await within(exited, 10_000, 'redis-server exit');
  };
  await start();
  return {
    url,
    kill,
    restart: start,
    async dispose() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
