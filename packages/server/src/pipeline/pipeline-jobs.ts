/**
 * The pipeline's jobs in one place: names and payloads (plain JSON, as BullMQ stores them).
 */

import type { EventKey } from '../store/pipeline-pending.js';

export type { EventKey };

/** Job name → payload. */
export type PipelineJobs = {
  /** Process these committed events (one job per committed ingest batch). */
  process: { events: EventKey[] };
  /** Deliver these webhook deliveries now. */
  deliver: { ids: number[] };
  /** Scheduled: re-enqueue what a queue lost, apply leftover effects, retry due deliveries. */
  sweep: Record<string, never>;
  /** Scheduled: recompute the daily rollups of dirty days; with `workspaceId`, that workspace's only (after an erasure). */
  rollup: { workspaceId?: string };
  /** After processing, and scheduled: recompute the composite scores of dirty responses. */
  rescore: Record<string, never>;
  /** Scheduled: evaluate the quality-alert rules (once per tick across workers; see alert-evaluation.ts). */
  alerts: Record<string, never>;
  /** Scheduled: make training batches of workspaces whose unused examples reached the threshold. */
  'training-batches': Record<string, never>;
  /** Judge these new responses: queue the calls of the workspace's evaluators, then send them (issue 28). */
  'judge-new': { workspaceId: string; responseIds: string[] };
  /** Send these evaluator calls now (new ones, or a dead letter retried by hand). */
  judge: { ids: number[] };
  /** Scheduled, and after a backfill starts: new pairwise items, backfill pages, due evaluator calls. */
  evaluators: Record<string, never>;
  /** Scheduled: archive and delete raw events past the workspaces' retention (retention.ts). */
  retention: Record<string, never>;
};

/** The jobs of the processing lane: a queue of their own in production ({@link PROCESS_QUEUE}). */
export type ProcessJobs = Pick<PipelineJobs, 'process'>;

/**
 * The queue's name (BullMQ) under the configured Redis prefix: every job but `process` in
 * production, and still `process` jobs an API process of an earlier version adds (a worker runs
 * them from here too).
 */
export const PIPELINE_QUEUE = 'pipeline';

/**
 * The processing lane's queue (BullMQ): `process` jobs alone, worked with slots of their own. On
 * the shared queue they waited behind the upkeep jobs (a day's rollup, the rescore loop, the
 * sweep) that held the worker's slots for seconds: the commit → live counter lag was that wait.
 */
export const PROCESS_QUEUE = 'pipeline-process';
