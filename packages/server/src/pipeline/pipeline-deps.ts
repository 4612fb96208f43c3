/**
 * What the pipeline (pipeline.ts) is built from: its settings, queues, counters and the work the
 * composition root binds for it (webhook delivery, evaluators), and who hears what it does.
 */
import type { StreamSink } from '@feedloop/core';
import type { Config } from '../config.js';
import type { SqlClient } from '../db/sql-client.js';
import type { JobQueue } from '../queue/job-queue.js';
import type { RedisLiveCounters } from './live-counter-store.js';
import type { PipelineJobs, ProcessJobs } from './pipeline-jobs.js';
import type { ProcessReport } from './process-events.js';

/** Something that wants to know what happened (logs, metrics). */
export interface PipelineObserver {
  processed?(report: ProcessReport, latencyMs: number): void;
  error?(where: string, err: unknown): void;
}

/** What the pipeline is built from. */
export interface PipelineDeps {
  db: SqlClient;
  config: Pick<
    Config,
    | 'pipelineBatch'
    | 'sweepIntervalMs'
    | 'sweepGraceMs'
    | 'rollupIntervalMs'
    | 'webhookAllowPrivate'
    | 'trainingBatchThreshold'
    | 'trainingBatchIntervalMs'
    | 'trainingBatchDir'
    | 'trainingBatchKinds'
    | 'alertIntervalMs'
    | 'publicUrl'
    | 'archive'
    | 's3'
    | 'defaultMaxEvents'
    | 'retentionIntervalMs'
  >;
  queue: JobQueue<PipelineJobs>;
  /**
   * The processing lane (production: the `pipeline-process` queue): `process` jobs run in slots
   * of their own, never waiting behind the upkeep jobs of `queue` (rollups, rescores, sweeps,
   * deliveries), which hold a slot for seconds. Without it, `process` jobs go on `queue` (embedded:
   * PGlite runs one transaction at a time, so a lane of its own would run nothing sooner).
   */
  processQueue?: JobQueue<ProcessJobs>;
  /** Live counters in Redis (production; the composition root makes them): without them, the SQL table. */
  redisCounters?: RedisLiveCounters;
  sink?: StreamSink;
  observer?: PipelineObserver;
  /**
   * Sends the webhook deliveries that are due (these ids, or up to `limit` of all that are due), emit's
   * `deliverDueWebhooks` bound to the deployment's settings by the composition root: the pipeline
   * queues deliveries in its transactions and asks for them to be sent, never sending them itself.
   */
  deliverWebhooks: (selection: { ids: readonly number[] } | { limit: number }) => Promise<{ delivered: number; retried: number; failed: number }>;
  /** The evaluators' work; without it, evaluator jobs do nothing (tests of other parts). */
  evaluators?: EvaluatorWork;
}

/**
 * The evaluators' work (issue 28), emit's planning and dispatch bound to the deployment's settings
 * by the composition root: the pipeline runs it in its jobs and never calls an evaluator itself.
 */
export interface EvaluatorWork {
  /** Queues the calls of newly registered responses; returns their ids. */
  planNewResponses(workspaceId: string, responseIds: readonly string[]): Promise<number[]>;
  /** Queues the calls of new pairwise items and of backfill pages; returns their ids. */
  planPending(): Promise<number[]>;
  /** Sends due calls (these ids, or up to `limit` of all that are due); returns how many it claimed. */
  dispatch(selection: { ids: readonly number[] } | { limit: number }): Promise<number>;
}
