/**
 * Configuration, parsed once from the environment into a frozen, typed object; every default is
 * here and nowhere else.
 */
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { isTrainingBatchKind, TRAINING_BATCH_KIND_NAMES, type TrainingBatchKindName } from '@feedloop/core';
import { z } from 'zod';

/**
 * The embedded database's `shared_buffers` in MiB (why 16: `db/pglite-settings.ts`). Exported
 * for PGlite opened without a config (tests).
 */
export const DEFAULT_PGLITE_SHARED_BUFFERS_MB = 16;

/** Phase 4.1's store cap, the embedded profile's default `maxEvents` per workspace. */
export const EMBEDDED_MAX_EVENTS = 100_000;

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const initKey = optionalString.refine((v) => v === undefined || v.length >= 20, 'must be at least 20 characters');

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(8787),
  HOST: z.string().default('127.0.0.1'),
  DATABASE_URL: optionalString,
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1_000).default(10),
  REDIS_URL: optionalString,
  FEEDLOOP_DATA_DIR: z.string().default('.feedloop'),
  FEEDLOOP_PGLITE_SHARED_BUFFERS_MB: z.coerce.number().int().min(1).max(65_536).default(DEFAULT_PGLITE_SHARED_BUFFERS_MB),
  FEEDLOOP_STATEMENT_PROFILE: optionalString,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  FEEDLOOP_LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  FEEDLOOP_INIT_WORKSPACE: optionalString,
  FEEDLOOP_INIT_SECRET_KEY: initKey,
  FEEDLOOP_INIT_PUBLIC_KEY: initKey,
  FEEDLOOP_BODY_LIMIT_BYTES: z.coerce.number().int().min(1_024).default(1_048_576),
  FEEDLOOP_BATCH_BODY_LIMIT_BYTES: z.coerce.number().int().min(1_024).default(32 * 1_048_576),
  FEEDLOOP_PUBLIC_BODY_LIMIT_BYTES: z.coerce.number().int().min(1_024).default(65_536),
  FEEDLOOP_PUBLIC_BATCH_MAX: z.coerce.number().int().min(1).max(1_000).default(10),
  FEEDLOOP_OTLP_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(10_000).default(16),
  FEEDLOOP_DIFF_THREADS: z.coerce.number().int().min(1).max(64).optional(),
  FEEDLOOP_DIFF_TIME_BUDGET_MS: z.coerce.number().int().min(10).max(600_000).default(30_000),
  FEEDLOOP_TRUST_PROXY: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  FEEDLOOP_METRICS_TOKEN: optionalString,
  FEEDLOOP_KEY_CACHE_SECONDS: z.coerce.number().min(0).max(3_600).default(5),
  FEEDLOOP_WRITE_CONCURRENCY: z.coerce.number().int().min(1).max(64).optional(),
  NATS_URL: optionalString,
  FEEDLOOP_NATS_STREAM: z.string().regex(/^[A-Za-z0-9_-]+$/).default('FEEDLOOP'),
  FEEDLOOP_NATS_SUBJECT_PREFIX: z.string().regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/).default('feedloop'),
  FEEDLOOP_REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9_:-]+$/).default('feedloop'),
  FEEDLOOP_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(4),
  FEEDLOOP_PROCESS_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(4),
  FEEDLOOP_PIPELINE_BATCH: z.coerce.number().int().min(1).max(10_000).default(1_000),
  FEEDLOOP_SWEEP_INTERVAL_SECONDS: z.coerce.number().min(0.05).max(3_600).default(5),
  FEEDLOOP_SWEEP_GRACE_SECONDS: z.coerce.number().min(0).max(3_600).default(10),
  FEEDLOOP_ROLLUP_INTERVAL_SECONDS: z.coerce.number().min(0.05).max(86_400).default(60),
  FEEDLOOP_ALERT_INTERVAL_SECONDS: z.coerce.number().min(0.05).max(3_600).default(30),
  FEEDLOOP_WEBHOOK_ALLOW_PRIVATE: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  FEEDLOOP_WEBHOOK_MAX_PER_WORKSPACE: z.coerce.number().int().min(1).max(10_000).default(20),
  FEEDLOOP_TRAINING_BATCH_THRESHOLD: z.coerce.number().int().min(1).max(100_000).default(50),
  FEEDLOOP_TRAINING_BATCH_INTERVAL_SECONDS: z.coerce.number().min(0.05).max(86_400).default(60),
  FEEDLOOP_TRAINING_BATCH_DIR: optionalString,
  FEEDLOOP_AUDIT_KEY: optionalString,
  FEEDLOOP_ARCHIVE: optionalString,
  FEEDLOOP_RETENTION_INTERVAL_SECONDS: z.coerce.number().min(0.05).max(604_800).default(3_600),
  FEEDLOOP_MAX_EVENTS: z
    .string()
    .regex(/^(none|[1-9]\d{0,9})$/, 'a positive whole number of events, or none')
    .optional(),
  FEEDLOOP_TRAINING_BATCH_KINDS: z.string().default('corrections,nli').transform((v, ctx) => {
    const kinds = [...new Set(v.split(',').map((k) => k.trim()).filter(Boolean))];
    const unknown = kinds.filter((k) => !isTrainingBatchKind(k));
    if (unknown.length > 0) ctx.addIssue({ code: 'custom', message: `unknown kind ${unknown.join(', ')} (kinds: ${TRAINING_BATCH_KIND_NAMES.join(', ')})` });
    return kinds.filter(isTrainingBatchKind);
  }),
  FEEDLOOP_TOKEN_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(30),
  FEEDLOOP_SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().min(1).max(3_600).default(10),
  FEEDLOOP_HEAVY_READS_PER_PROCESS: z.coerce.number().int().min(1).max(1_000).optional(),
  FEEDLOOP_HEAVY_READS_PER_WORKSPACE: z.coerce.number().int().min(1).max(1_000).default(1),
  FEEDLOOP_HEAVY_READ_QUEUE: z.coerce.number().int().min(0).max(100_000).default(32),
  FEEDLOOP_HEAVY_READ_WAIT_SECONDS: z.coerce.number().min(0).max(3_600).default(10),
  FEEDLOOP_PUBLIC_URL: optionalString.refine((v) => v === undefined || /^https?:\/\/[^\s]+$/.test(v), 'must be an http(s) URL'),
  FEEDLOOP_EMBEDDING_URL: optionalString.refine((v) => v === undefined || /^https?:\/\/[^\s]+$/.test(v), 'must be an http(s) URL'),
  FEEDLOOP_DASHBOARD_DIR: optionalString,
  // The CLI's API commands and `feedloop mcp`: the server they talk to and the key they use.
  FEEDLOOP_URL: optionalString,
  FEEDLOOP_API_KEY: optionalString,
  FEEDLOOP_MCP_USER_ID: optionalString,
  // S3 (archives, exports): the AWS SDK reads its credentials itself; the endpoint and region are ours.
  AWS_ENDPOINT_URL_S3: optionalString,
  AWS_ENDPOINT_URL: optionalString,
  AWS_REGION: optionalString,
});

/** Where S3 is: an endpoint for S3-compatible stores (path-style addressing), and the region. */
export interface S3Settings {
  readonly endpoint?: string | undefined;
  readonly region?: string | undefined;
}

/** The server's configuration. */
export interface Config {
  readonly port: number;
  readonly host: string;
  /** Postgres server URL; absent means the embedded PGlite database. */
  readonly databaseUrl: string | undefined;
  readonly databasePoolSize: number;
  /** Redis URL; absent means in-process rate limits (and, later, queues and counters). */
  readonly redisUrl: string | undefined;
  /** Absolute path of the embedded data folder. */
  readonly dataDir: string;
  /** The embedded database's `shared_buffers` in MiB: resident for the life of the process. */
  readonly pgliteSharedBuffersMb: number;
  /** Diagnostics: a file the embedded database's thread writes its statement timings to (db/statement-profile.ts); unset: none. */
  readonly statementProfile: string | undefined;
  readonly logLevel: z.output<typeof envSchema>['LOG_LEVEL'];
  /** `auto`: readable lines on a terminal, JSON lines otherwise (files, pipes, log collectors). */
  readonly logFormat: z.output<typeof envSchema>['FEEDLOOP_LOG_FORMAT'];
  readonly init: { readonly workspace?: string; readonly secretKey?: string; readonly publicKey?: string };
  readonly bodyLimitBytes: number;
  readonly batchBodyLimitBytes: number;
  /** Body limit of any request made with a public key (checked on Content-Length before the body is read). */
  readonly publicBodyLimitBytes: number;
  /** Events in one batch request made with a public key, at most. */
  readonly publicBatchMax: number;
  /** OTLP trace exports one process works on at once; more are answered 429 with Retry-After (docs/compat.md). */
  readonly otlpMaxInFlight: number;
  /** Worker threads that diff big corrections and edits off the event loop (default: cores − 1, at least 1). */
  readonly diffThreads: number;
  /** How long one diff may run in its worker; past it the event is stored without an edit distance. */
  readonly diffTimeBudgetMs: number;
  /** Take the client IP from X-Forwarded-For (behind a reverse proxy). */
  readonly trustProxy: boolean;
  /** When set, `/metrics` wants `Authorization: Bearer <token>`; unset, it is open (scrapers on a private network). */
  readonly metricsToken: string | undefined;
  /** How long a key lookup is cached; a revocation reaches other processes within this time. */
  readonly keyCacheSeconds: number;
  /** Group-commit transactions in flight at once: 1 on PGlite (one connection), default 2 on Postgres. */
  readonly writeConcurrency: number;
  /** NATS server URL; when set, events are published to JetStream. */
  readonly natsUrl: string | undefined;
  /** The JetStream stream (created when missing) that holds `feedloop.>` subjects. */
  readonly natsStream: string;
  /** Subjects are `<prefix>.<workspaceId>.feedback.submitted` and `….learning.signal`. */
  readonly natsSubjectPrefix: string;
  /** Prefix of every Redis key feedloop makes (queues, counters, rate limits): several deployments can share a Redis. */
  readonly redisPrefix: string;
  /** Upkeep jobs (rollups, rescores, sweeps, deliveries…) a worker process runs at once. */
  readonly workerConcurrency: number;
  /**
   * Processing jobs a worker process runs at once, in its lane of its own (production). Two: four
   * 1,000-event transactions at once on a 2-core machine processed fewer events a second, not more
   * (docs/benchmarks.md, "Fifth session").
   */
  readonly processConcurrency: number;
  /** Events per processing job at most. */
  readonly pipelineBatch: number;
  /** How often the outbox sweep looks for events, effects and webhook deliveries a queue lost. */
  readonly sweepIntervalMs: number;
  /** How old an unprocessed event must be before the sweep re-enqueues it (the queue had its chance). */
  readonly sweepGraceMs: number;
  /** How often dirty days are rolled up into feedback_metrics_daily. */
  readonly rollupIntervalMs: number;
  /** How often the quality-alert rules are evaluated (once per interval across all workers). */
  readonly alertIntervalMs: number;
  /**
   * Let webhooks reach loopback, private, link-local and other non-public addresses (tests, and
   * receivers on the same network as an on-premises feedloop). Off by default: a workspace key
   * must not turn the server into a probe of its own network.
   */
  readonly webhookAllowPrivate: boolean;
  /** Live webhooks a workspace may have at once. */
  readonly webhookMaxPerWorkspace: number;
  /** Unused examples of a kind (corrections) that make a training batch, per workspace (ADR-0012: 50). */
  readonly trainingBatchThreshold: number;
  /** How often the scheduled job looks for workspaces past the threshold. */
  readonly trainingBatchIntervalMs: number;
  /** Where batch files are written: `<dir>/<workspace id>/<batch id>.jsonl`. */
  readonly trainingBatchDir: string;
  /**
   * The kinds of training batches the scheduled job makes: `corrections` and `nli` (label
   * corrections, ADR-0012's 50-correction trigger) by default; the others are opt-in.
   */
  readonly trainingBatchKinds: readonly TrainingBatchKindName[];
  /**
   * The address users and other systems reach this server at (`FEEDLOOP_PUBLIC_URL`, no trailing
   * slash): links in feedback tokens, alert notifications and the dashboard. Defaults to
   * `http://HOST:PORT`, which is only right when nothing sits in front of the server.
   */
  readonly publicUrl: string;
  /** Whether `FEEDLOOP_PUBLIC_URL` was given (else {@link publicUrl} is the listening address's guess). */
  readonly publicUrlGiven: boolean;
  /**
   * What the CLI's API commands and `feedloop mcp` use when no flag says otherwise: the server's URL
   * (`FEEDLOOP_URL`), a secret key (`FEEDLOOP_API_KEY`) and, for `mcp`, the user it acts for
   * (`FEEDLOOP_MCP_USER_ID`).
   */
  readonly client: { url: string | undefined; apiKey: string | undefined; mcpUserId: string | undefined };
  /**
   * S3 for archives and exports: an endpoint for S3-compatible stores (`AWS_ENDPOINT_URL_S3`, else
   * `AWS_ENDPOINT_URL`; path-style addressing then) and the region (`AWS_REGION`; unset, the SDK's
   * own configuration decides). Credentials are the AWS SDK's own environment.
   */
  readonly s3: S3Settings;
  /**
   * An operator's embedding endpoint (`FEEDLOOP_EMBEDDING_URL`, off by default): when set, rising
   * themes whose phrases it embeds close together are one theme (docs/insights.md, "Semantic").
   */
  readonly embeddingUrl: string | undefined;
  /** The audit log's HMAC key for end-user ids (`FEEDLOOP_AUDIT_KEY`); unset: one made and kept in the database. */
  readonly auditKey: string | undefined;
  /** Where retention archives events: a folder, or `s3://bucket/prefix` (`FEEDLOOP_ARCHIVE`; default `<data dir>/archive`). */
  readonly archive: string;
  /** How often the retention job runs. */
  readonly retentionIntervalMs: number;
  /**
   * The events a workspace keeps at most when it sets no `maxEvents` (`FEEDLOOP_MAX_EVENTS`, or
   * `none`): by default Phase 4.1's 100,000 on the embedded database, none on Postgres.
   */
  readonly defaultMaxEvents: number | null;
  /** Feedback events one feedback token may submit a minute (`FEEDLOOP_TOKEN_RATE_LIMIT_PER_MINUTE`). */
  readonly tokenRateLimitPerMinute: number;
  /**
   * Heavy reads (exports, user context, insights, stats ranges) run at once in this process
   * (default 2 on Postgres, 1 on the embedded database) and per workspace (default 1); the rest wait in a queue of at most `queue` requests for at most `waitMs`, else
   * 429 (`FEEDLOOP_HEAVY_READS_PER_PROCESS`, `_PER_WORKSPACE`, `FEEDLOOP_HEAVY_READ_QUEUE`, `_WAIT_SECONDS`).
   */
  readonly heavyReads: { perProcess: number; perWorkspace: number; queue: number; waitMs: number };
  /**
   * How long a shutdown (SIGTERM, SIGINT) may take in all (`FEEDLOOP_SHUTDOWN_TIMEOUT_SECONDS`,
   * default 10): requests in flight drain for part of it, then every connection is closed, then the
   * services and the database; past it the process exits anyway.
   */
  readonly shutdownTimeoutMs: number;
  /**
   * The built dashboard served at `/` (`FEEDLOOP_DASHBOARD_DIR`); undefined: the folder
   * `packages/dashboard/dist` beside the server's own package. Not built: `/` says how to build it.
   */
  readonly dashboardDir: string | undefined;
}

/**
 * Parses the environment into a frozen config.
 *
 * @throws Error naming every invalid variable.
 * @example
 * const config = loadConfig({ PORT: '9000' }); // config.port === 9000, config.databaseUrl === undefined
 */
export function loadConfig(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    redisUrl: e.REDIS_URL,
    dataDir: resolve(cwd, e.FEEDLOOP_DATA_DIR),
    pgliteSharedBuffersMb: e.FEEDLOOP_PGLITE_SHARED_BUFFERS_MB,
    statementProfile: e.FEEDLOOP_STATEMENT_PROFILE === undefined ? undefined : resolve(cwd, e.FEEDLOOP_STATEMENT_PROFILE),
    logLevel: e.LOG_LEVEL,
    logFormat: e.FEEDLOOP_LOG_FORMAT,
    init: Object.freeze({
      ...(e.FEEDLOOP_INIT_WORKSPACE ? { workspace: e.FEEDLOOP_INIT_WORKSPACE } : {}),
      ...(e.FEEDLOOP_INIT_SECRET_KEY ? { secretKey: e.FEEDLOOP_INIT_SECRET_KEY } : {}),
      ...(e.FEEDLOOP_INIT_PUBLIC_KEY ? { publicKey: e.FEEDLOOP_INIT_PUBLIC_KEY } : {}),
    }),
    bodyLimitBytes: e.FEEDLOOP_BODY_LIMIT_BYTES,
    batchBodyLimitBytes: e.FEEDLOOP_BATCH_BODY_LIMIT_BYTES,
    publicBodyLimitBytes: e.FEEDLOOP_PUBLIC_BODY_LIMIT_BYTES,
    publicBatchMax: e.FEEDLOOP_PUBLIC_BATCH_MAX,
    otlpMaxInFlight: e.FEEDLOOP_OTLP_MAX_IN_FLIGHT,
    diffThreads: e.FEEDLOOP_DIFF_THREADS ?? Math.max(1, availableParallelism() - 1),
    diffTimeBudgetMs: e.FEEDLOOP_DIFF_TIME_BUDGET_MS,
    trustProxy: e.FEEDLOOP_TRUST_PROXY,
    metricsToken: e.FEEDLOOP_METRICS_TOKEN,
    keyCacheSeconds: e.FEEDLOOP_KEY_CACHE_SECONDS,
    writeConcurrency: e.DATABASE_URL ? (e.FEEDLOOP_WRITE_CONCURRENCY ?? 2) : 1,
    natsUrl: e.NATS_URL,
    natsStream: e.FEEDLOOP_NATS_STREAM,
    natsSubjectPrefix: e.FEEDLOOP_NATS_SUBJECT_PREFIX,
    redisPrefix: e.FEEDLOOP_REDIS_PREFIX,
    workerConcurrency: e.FEEDLOOP_WORKER_CONCURRENCY,
    processConcurrency: e.FEEDLOOP_PROCESS_CONCURRENCY,
    pipelineBatch: e.FEEDLOOP_PIPELINE_BATCH,
    sweepIntervalMs: e.FEEDLOOP_SWEEP_INTERVAL_SECONDS * 1000,
    sweepGraceMs: e.FEEDLOOP_SWEEP_GRACE_SECONDS * 1000,
    rollupIntervalMs: e.FEEDLOOP_ROLLUP_INTERVAL_SECONDS * 1000,
    alertIntervalMs: e.FEEDLOOP_ALERT_INTERVAL_SECONDS * 1000,
    webhookAllowPrivate: e.FEEDLOOP_WEBHOOK_ALLOW_PRIVATE,
    webhookMaxPerWorkspace: e.FEEDLOOP_WEBHOOK_MAX_PER_WORKSPACE,
    trainingBatchThreshold: e.FEEDLOOP_TRAINING_BATCH_THRESHOLD,
    trainingBatchIntervalMs: e.FEEDLOOP_TRAINING_BATCH_INTERVAL_SECONDS * 1000,
    trainingBatchDir: resolve(cwd, e.FEEDLOOP_TRAINING_BATCH_DIR ?? join(e.FEEDLOOP_DATA_DIR, 'training-batches')),
    auditKey: e.FEEDLOOP_AUDIT_KEY,
    archive: e.FEEDLOOP_ARCHIVE?.startsWith('s3://') ? e.FEEDLOOP_ARCHIVE : resolve(cwd, e.FEEDLOOP_ARCHIVE ?? join(e.FEEDLOOP_DATA_DIR, 'archive')),
    retentionIntervalMs: e.FEEDLOOP_RETENTION_INTERVAL_SECONDS * 1000,
    // Phase 4.1's "100K entries before oldest are archived" is the embedded profile's default.
    defaultMaxEvents:
      e.FEEDLOOP_MAX_EVENTS === undefined ? (e.DATABASE_URL ? null : EMBEDDED_MAX_EVENTS) : e.FEEDLOOP_MAX_EVENTS === 'none' ? null : Number(e.FEEDLOOP_MAX_EVENTS),
    trainingBatchKinds: e.FEEDLOOP_TRAINING_BATCH_KINDS,
    publicUrl: (e.FEEDLOOP_PUBLIC_URL ?? `http://${e.HOST.includes(':') ? `[${e.HOST}]` : e.HOST}:${e.PORT}`).replace(/\/+$/, ''),
    publicUrlGiven: e.FEEDLOOP_PUBLIC_URL !== undefined,
    client: Object.freeze({ url: e.FEEDLOOP_URL, apiKey: e.FEEDLOOP_API_KEY, mcpUserId: e.FEEDLOOP_MCP_USER_ID }),
    s3: Object.freeze({ endpoint: e.AWS_ENDPOINT_URL_S3 ?? e.AWS_ENDPOINT_URL, region: e.AWS_REGION }),
    tokenRateLimitPerMinute: e.FEEDLOOP_TOKEN_RATE_LIMIT_PER_MINUTE,
    shutdownTimeoutMs: e.FEEDLOOP_SHUTDOWN_TIMEOUT_SECONDS * 1000,
    heavyReads: {
      // PGlite has one connection: a second heavy read would only queue there, ahead of nothing but
      // in the way of requests; it waits here instead (issue 22).
      perProcess: e.FEEDLOOP_HEAVY_READS_PER_PROCESS ?? (e.DATABASE_URL ? 2 : 1),
      perWorkspace: e.FEEDLOOP_HEAVY_READS_PER_WORKSPACE,
      queue: e.FEEDLOOP_HEAVY_READ_QUEUE,
      waitMs: e.FEEDLOOP_HEAVY_READ_WAIT_SECONDS * 1000,
    },
    embeddingUrl: e.FEEDLOOP_EMBEDDING_URL,
    dashboardDir: e.FEEDLOOP_DASHBOARD_DIR ? resolve(cwd, e.FEEDLOOP_DASHBOARD_DIR) : undefined,
  });
}

/**
 * Silences the AWS SDK's warning that its releases after January 2027 need Node 22 (feedloop
 * supports Node 20, README), so a command's output stays its own. The SDK reads only the
 * environment for it; this is the one place feedloop writes the environment.
 *
 * @example
 * quietAwsSdkNodeWarning(); const { S3Client } = await import('@aws-sdk/client-s3');
 */
export function quietAwsSdkNodeWarning(): void {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
}
