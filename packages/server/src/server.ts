/**
 * Starting and stopping feedloop processes: open the database, migrate, set up the first
 * workspace, wire the services, and run the API, the pipeline's worker, or both; on shutdown
 * finish in-flight writes and jobs before closing.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { bootstrap, type BootstrapReport } from './bootstrap.js';
import type { Config } from './config.js';
import { migrateOpened, type MigrationReport } from './db/migrate.js';
import { newLocalAdminToken, writeLocalAdminCredential } from './db/local-admin-credential.js';
import { openDatabase, type OpenedDatabase } from './db/open-database.js';
import { heavyReadClient, type SqlClient } from './db/sql-client.js';
import type { StreamSink } from '@feedloop/core';
import { deliverDueWebhooks } from './emit/webhook-delivery.js';
import { evaluatorWork } from './emit/evaluator-work.js';
import { judgeSubmitter } from './ingest/judge-submission.js';
import { buildApp, type AppOptions } from './http/app.js';
import { KeyCache } from './http/key-cache.js';
import { MemoryWindowReader } from './store/user-memory-window.js';
import { createMetrics, watchQueueCounts } from './metrics.js';
import type { AppServices } from './http/services.js';
import { IngestService } from './ingest/ingest-service.js';
import { createLogger, logOptions } from './log.js';
import { injectApi, type ApiCall } from './mcp/api-call.js';
import { Pipeline } from './pipeline/pipeline.js';
import { PIPELINE_QUEUE, PROCESS_QUEUE, type PipelineJobs, type ProcessJobs } from './pipeline/pipeline-jobs.js';
import { createJobQueue } from './queue/create-job-queue.js';
import type { JobQueue } from './queue/job-queue.js';
import { MemoryRateLimiter, type RateLimiter } from './rate-limit/rate-limiter.js';
import { RedisRateLimiter } from './rate-limit/redis-rate-limiter.js';
import { openRedisConnections } from './redis-connections.js';
import { RedisLiveCounters } from './pipeline/live-counter-store.js';

/** A running server. */
export interface RunningServer {
  app: FastifyInstance;
  services: AppServices;
  migrations: MigrationReport;
  bootstrap: BootstrapReport;
  /** The address it listens on, e.g. `http://127.0.0.1:8787`. */
  url: string;
  /** Stops taking requests, finishes in-flight writes and jobs, closes the database. */
  close(): Promise<void>;
}

/** Optional parts of the services (tests pass their own queue or sink). */
export interface ServiceParts {
  queue?: JobQueue<PipelineJobs>;
  sink?: StreamSink;
  /** Where the pipeline reports batches (debug) and steps left for the sweep (warn). */
  log?: Pick<Logger, 'debug' | 'warn'>;
}

/**
 * Wires the services around an open database.
 *
 * @example
 * const { services, close } = createServices(config, db);
 */
export function createServices(config: Config, db: SqlClient, parts: ServiceParts = {}): { services: AppServices; close(): Promise<void> } {
  const metrics = createMetrics();
  // The process's Redis connections, made here and closed last by close(): everything else borrows them.
  const redis = config.redisUrl ? openRedisConnections(config.redisUrl, config.redisPrefix) : undefined;
  const limiter: RateLimiter = redis ? new RedisRateLimiter(redis.commands, `${config.redisPrefix}:rl:`) : new MemoryRateLimiter();
  const pipeline = new Pipeline({
    db,
    config,
    // Embedded, `process` jobs start first and keep a slot (memory-queue.ts: a lane of their own
    // drained a backlog at 0.6 the speed, upkeep running beside it on the 2-core machine).
    queue: parts.queue ?? createJobQueue<PipelineJobs>(config, PIPELINE_QUEUE, { concurrency: config.workerConcurrency, urgentJobs: ['process'] }, redis),
    // Production: processing in a lane of its own, with slots of its own (pipeline-jobs.ts).
    ...(redis && !parts.queue ? { processQueue: createJobQueue<ProcessJobs>(config, PROCESS_QUEUE, { concurrency: config.processConcurrency }, redis) } : {}),
    ...(redis ? { redisCounters: new RedisLiveCounters(redis.commands, config.redisPrefix) } : {}),
    ...(parts.sink ? { sink: parts.sink } : {}),
    deliverWebhooks: (selection) => deliverDueWebhooks(db, { ...selection, allowPrivate: config.webhookAllowPrivate, publicUrl: config.publicUrl }),
    // Judges' answers go through the ingest made below (bound late: the ingest hands its commits to this pipeline).
    evaluators: evaluatorWork(db, { submit: judgeSubmitter(db, () => services.ingest), allowPrivate: config.webhookAllowPrivate }),
    observer: {
      processed: (report, ms) => {
        metrics.pipelineEvents.inc({ status: 'counted' }, report.counted);
        metrics.pipelineEvents.inc({ status: 'dropped' }, report.dropped);
        metrics.pipelineEvents.inc({ status: 'failed' }, report.failed);
        metrics.pipelineBatchSeconds.observe(ms / 1000);
        parts.log?.debug({ ...report, ms: Math.round(ms) }, 'batch processed');
      },
      error: (where, err) => {
        metrics.pipelineErrors.inc({ where });
        parts.log?.warn({ where, err }, 'pipeline step left for the sweep');
      },
    },
  });
  watchQueueCounts(metrics, async () => ({ ...(await pipeline.queueCounts()) }));
  const services: AppServices = {
    config,
    db,
    metrics,
    keys: new KeyCache(db, config.keyCacheSeconds * 1000),
    // User contexts are heavy reads (issue 22): on PGlite their statements wait while a request's statement waits.
    memory: new MemoryWindowReader(heavyReadClient(db)),
    ingest: new IngestService(db, limiter, metrics, config.writeConcurrency, (keys) => pipeline.enqueue(keys), {
      threads: config.diffThreads,
      timeBudgetMs: config.diffTimeBudgetMs,
    }),
    pipeline,
  };
  services.ingest.onResponsesCreated((workspaceId, ids) => pipeline.judgeNewResponses(workspaceId, ids));
  return {
    services,
    async close() {
      await services.ingest.close();
      await pipeline.close();
      await limiter.close();
      await redis?.close();
    },
  };
}

/** Connects the stream sink when `NATS_URL` is set (creating its stream when missing). */
export async function openSink(config: Config): Promise<StreamSink | undefined> {
  if (!config.natsUrl) return undefined;
  // Imported only when configured: the NATS client costs ~10 MB resident to a process without it.
  const { connectNatsSink } = await import('./emit/nats-sink.js');
  return connectNatsSink(config.natsUrl, { stream: config.natsStream, subjectPrefix: config.natsSubjectPrefix });
}

/**
 * Starts a server from a configuration: the API and, unless `worker: false`, the pipeline's
 * worker in the same process (the embedded profile always runs both). On an embedded data folder
 * it announces its address in the folder's lock and writes a local admin credential there, so
 * the CLI on this machine finds it and may make keys through it (`feedloop demo`).
 *
 * @example
 * const server = await startServer(loadConfig()); console.log(server.url);
 */
export async function startServer(config: Config, options: AppOptions & { db?: SqlClient; worker?: boolean } = {}): Promise<RunningServer> {
  const db: OpenedDatabase = options.db ?? (await openDatabase(config));
  let sink: StreamSink | undefined;
  let removeCredential = (): void => undefined;
  try {
    const migrations = await migrateOpened(db);
    const report = await bootstrap(db, config);
    sink = await openSink(config);
    const { services, close } = createServices(config, db, { log: createLogger(config), ...(sink ? { sink } : {}) });
    // The worker starts while this thread builds the app: embedded, its start reads a backlog left
    // in the outbox in the database's thread, and the two took 0.9 s and 0.5 s one after the other
    // on a 50,000-event backlog (docs/benchmarks.md, "Sixteenth session").
    const working = options.worker !== false || !config.redisUrl ? services.pipeline.startWorker() : Promise.resolve();
    // Awaited below, whatever the build does; until then a failure must not count as unhandled.
    working.catch(() => undefined);
    const lock = db.dataDirLock;
    const adminToken = lock ? newLocalAdminToken() : undefined;
    const app = await buildApp(services, { logger: logOptions(config), ...options, ...(adminToken ? { adminToken } : {}) }).finally(() => working);
    const url = await app.listen({ port: config.port, host: config.host });
    if (lock && adminToken) {
      removeCredential = writeLocalAdminCredential(config.dataDir, { url, token: adminToken });
      lock.announce({ url });
    }
    let closing: Promise<void> | undefined;
    return {
      app,
      services,
      migrations,
      bootstrap: report,
      url,
      close() {
        closing ??= (async () => {
          removeCredential();
          await closeHttp(app, config.shutdownTimeoutMs);
          await close();
          await db.close();
        })();
        return closing;
      },
    };
  } catch (err) {
    removeCredential();
    await sink?.close();
    if (!options.db) await db.close();
    throw err;
  }
}

/** The share of the shutdown timeout that requests in flight may take before connections are cut. */
const DRAIN_SHARE = 0.5;

/**
 * Stops the HTTP server within its share of the shutdown deadline (issue 22): stops accepting,
 * closes idle keep-alive connections at once, lets requests in flight finish for half the
 * timeout, then closes every connection left, including ones that never sent a complete request
 * (a client mid-upload, or connected and silent), which otherwise held the close open until
 * Node's own header and request timeouts (minutes).
 */
async function closeHttp(app: FastifyInstance, timeoutMs: number): Promise<void> {
  const server = app.server;
  const cut = setTimeout(() => server.closeAllConnections(), timeoutMs * DRAIN_SHARE);
  cut.unref();
  try {
    const closed = app.close();
    server.closeIdleConnections();
    await closed;
  } finally {
    clearTimeout(cut);
  }
}

/** feedloop's API served in this process without a port, and how to close it. */
export interface InProcessApi {
  /** Calls the API with the key given to {@link openInProcessApi}. */
  api: ApiCall;
  /** Closes the app, the services and the database. */
  close(): Promise<void>;
}

/**
 * Opens the database of `config` (as `start` does), migrates it, wires the services, starts the
 * pipeline's worker and builds the API without listening: every call is injected with `key`
 * (`feedloop mcp` without `FEEDLOOP_URL`).
 *
 * @example
 * const { api, close } = await openInProcessApi(config, 'fl_sk_…');
 * await api('GET', '/v1/stats/live'); await close();
 */
export async function openInProcessApi(config: Config, key: string): Promise<InProcessApi> {
  const db = await openDatabase(config);
  await migrateOpened(db);
  const built = createServices(config, db);
  await built.services.pipeline.startWorker();
  const app = await buildApp(built.services, { logger: false });
  await app.ready();
  return {
    api: injectApi(app, `Bearer ${key}`),
    async close() {
      await app.close();
      await built.close();
      await db.close();
    },
  };
}

/** A running worker process. */
export interface RunningWorker {
  services: AppServices;
  migrations: MigrationReport;
  /** Stops taking jobs, finishes in-flight ones, closes connections. */
  close(): Promise<void>;
}

/**
 * Starts a worker without the API (`feedloop worker`): production profile only, since PGlite's
 * folder belongs to the one process that runs `feedloop start`.
 *
 * @example
 * const worker = await startWorker(loadConfig({ DATABASE_URL, REDIS_URL }));
 */
export async function startWorker(config: Config): Promise<RunningWorker> {
  if (!config.databaseUrl || !config.redisUrl) {
    throw new Error(
      'feedloop worker needs DATABASE_URL and REDIS_URL (the production profile); in the embedded profile `feedloop start` runs the worker itself',
    );
  }
  const db = await openDatabase(config);
  let sink: StreamSink | undefined;
  try {
    const migrations = await migrateOpened(db);
    sink = await openSink(config);
    const { services, close } = createServices(config, db, { log: createLogger(config), ...(sink ? { sink } : {}) });
    await services.pipeline.startWorker();
    let closing: Promise<void> | undefined;
    return {
      services,
      migrations,
      close() {
        closing ??= (async () => {
          await close();
          await db.close();
        })();
        return closing;
      },
    };
  } catch (err) {
    await sink?.close();
    await db.close();
    throw err;
  }
}
