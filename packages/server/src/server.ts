/**
 * Starting and stopping a feedloop server: open the database, migrate, set up the first
 * workspace, wire the services, listen; on shutdown finish in-flight writes before closing.
 */
import type { FastifyInstance } from 'fastify';
import { bootstrap, type BootstrapReport } from './bootstrap.js';
import type { Config } from './config.js';
import { migrate, type MigrationReport } from './db/migrate.js';
import { openDatabase } from './db/open-database.js';
import type { SqlClient } from './db/sql-client.js';
import { buildApp, type AppOptions } from './http/app.js';
import { KeyCache } from './http/key-cache.js';
import { createMetrics } from './http/metrics.js';
import type { AppServices } from './http/services.js';
import { IngestService } from './ingest/ingest-service.js';
import { MemoryRateLimiter, type RateLimiter } from './rate-limit/rate-limiter.js';
import { RedisRateLimiter } from './rate-limit/redis-rate-limiter.js';

/** A running server. */
export interface RunningServer {
  app: FastifyInstance;
  services: AppServices;
  migrations: MigrationReport;
  bootstrap: BootstrapReport;
  /** The address it listens on, e.g. `http://127.0.0.1:8787`. */
  url: string;
  /** Stops taking requests, finishes in-flight writes, closes the database. */
  close(): Promise<void>;
}

/**
 * Wires the services around an open database.
 *
 * @example
 * const { services, close } = createServices(config, db);
 */
export function createServices(config: Config, db: SqlClient): { services: AppServices; limiter: RateLimiter } {
  const metrics = createMetrics();
  const limiter: RateLimiter = config.redisUrl ? new RedisRateLimiter(config.redisUrl) : new MemoryRateLimiter();
  const services: AppServices = {
    config,
    db,
    metrics,
    keys: new KeyCache(db, config.keyCacheSeconds * 1000),
    ingest: new IngestService(db, limiter, metrics, config.writeConcurrency),
  };
  return { services, limiter };
}

/**
 * Starts a server from a configuration.
 *
 * @example
 * const server = await startServer(loadConfig()); console.log(server.url);
 */
export async function startServer(config: Config, options: AppOptions & { db?: SqlClient } = {}): Promise<RunningServer> {
  const db = options.db ?? (await openDatabase(config));
  try {
    const migrations = await migrate(db);
    const report = await bootstrap(db, config);
    const { services, limiter } = createServices(config, db);
    const app = await buildApp(services, options);
    const url = await app.listen({ port: config.port, host: config.host });
    let closing: Promise<void> | undefined;
    return {
      app,
      services,
      migrations,
      bootstrap: report,
      url,
      close() {
        closing ??= (async () => {
          await app.close();
          await services.ingest.drain();
          await limiter.close();
          await db.close();
        })();
        return closing;
      },
    };
  } catch (err) {
    if (!options.db) await db.close();
    throw err;
  }
}
