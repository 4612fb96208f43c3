/**
 * A private Redis server for tests that stop and restart Redis. Append-only with fsync on every
 * write, so a SIGKILLed server comes back with everything it acknowledged, like a production
 * Redis with persistence.
 */
import { Redis } from 'ioredis';
import { serverInstalled, startServiceProcess, type ServiceProcess } from './service-process.js';

const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? 'redis-server';

/** Whether `redis-server` is installed (a failure in CI, a loud skip elsewhere). */
export const redisServerInstalled = await serverInstalled(REDIS_SERVER);

/** A Redis server this test owns. */
export type RedisProcess = ServiceProcess;

/**
 * Starts a private Redis on a free port.
 *
 * @example
 * const redis = await startRedisProcess(); await redis.kill(); await redis.restart();
 */
export function startRedisProcess(): Promise<RedisProcess> {
  return startServiceProcess({
    name: 'redis',
    command: REDIS_SERVER,
    args: (port, dir) => ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', ''],
    url: (port) => `redis://127.0.0.1:${port}`,
    async probe(url) {
      const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        await probe.ping();
      } finally {
        probe.disconnect();
      }
    },
  });
}
