/**
 * Training batches (issue 10, ADR-0012's 50-correction trigger): when a workspace's unused
 * examples of a kind reach the threshold, one transaction claims them (a `training_applied_events`
 * row per event and kind, migration 0017; a corrections claim also sets the event's
 * `applied_to_training`), writes the batch's file, records the batch and queues its
 * `training.batch_ready` message. An event is in exactly one batch of a kind: claims of one
 * workspace and kind take turns (a transaction-level advisory lock), each reads what the previous
 * committed, and the table's primary key refuses a second claim of an event whatever happens.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { v7 as uuidv7 } from 'uuid';
import type { SqlClient } from '../db/sql-client.js';
import { outboundMessageId, TRAINING_BATCH_FORMATS, type OutboundMessage, type TrainingBatchKindName } from '@feedloop/core';
import { createDeliveries } from '../store/webhooks.js';
import { insertEffect } from '../store/pipeline-effects.js';
import { recordTrainingBatch, type TrainingBatchView } from '../store/training-batches.js';
import { claimTrainingExamples, workspacesDueForBatch } from '../store/training-examples.js';
import { trainingBatchLines } from './training-batch-lines.js';

/** Events one batch takes at most; more unused ones make further batches. */
export const TRAINING_BATCH_MAX_EVENTS = 10_000;

/**
 * Events a scheduled batch takes at most on the embedded database (or its threshold, if higher).
 * Its transaction holds the one connection: 2,021 corrections (the minute's job during a keep-up
 * run at 700 events/s) took 393 ms to claim, mark, read and write, while 222 requests waited and
 * the load generator's offers found 256 in flight (docs/benchmarks.md, "Thirteenth session").
 */
export const EMBEDDED_SCHEDULED_BATCH_EVENTS = 100;

/**
 * Embedded, after each scheduled batch the next waits this many times the batch's own duration:
 * back to back, six batches of 500 held the connection two thirds of two seconds, and requests
 * piled up 200 deep between them. Batches then take at most a fifth of the connection.
 */
export const EMBEDDED_BATCH_PACE = 4;

/**
 * The most events one scheduled batch takes: {@link EMBEDDED_SCHEDULED_BATCH_EVENTS} (or the
 * threshold, if higher) embedded, where a batch's transaction holds the one connection;
 * {@link TRAINING_BATCH_MAX_EVENTS} on Postgres.
 *
 * @example
 * scheduledBatchMax('pglite', 50) // 100
 */
export function scheduledBatchMax(dialect: SqlClient['dialect'], threshold: number): number {
  return dialect === 'pglite' ? Math.max(threshold, EMBEDDED_SCHEDULED_BATCH_EVENTS) : TRAINING_BATCH_MAX_EVENTS;
}

/** What to batch and where. */
export interface TrainingBatchRequest {
  workspaceId: string;
  kind: TrainingBatchKindName;
  /** Fewer unused examples than this make no batch (the threshold; 1 for a batch on demand). */
  minEvents: number;
  /** Folder of the files: `<dir>/<workspace id>/<batch id>.jsonl`. */
  dir: string;
  /** Whether messages also go to the stream (kept in the effects outbox until published). */
  stream: boolean;
  maxEvents?: number;
  /**
   * The scheduled job's batch: its transaction (claim, file, record: 300-500 ms for a batch of
   * thousands) goes in the background lane of the embedded database, after the requests waiting
   * (db/pglite-thread.ts), as the pipeline's do. A batch asked for through the API does not wait.
   */
  background?: boolean;
}

/** A batch just made, with what is left to do after its commit. */
export interface CreatedTrainingBatch {
  batch: TrainingBatchView;
  /** Webhook deliveries of its message, to deliver now. */
  deliveryIds: number[];
  /** Its effects outbox row (the stream), to apply now. */
  effectId: number | null;
}

/** Thrown inside the transaction to roll back a claim too small to make a batch. */
class TooFew extends Error {}

/**
 * Claims up to `maxEvents` unused, counted examples of the kind and makes a batch of them, or
 * makes nothing (and claims nothing) when fewer than `minEvents` are free.
 *
 * @example
 * const made = await createTrainingBatch(db, { workspaceId, kind: 'corrections', minEvents: 50, dir, stream: false });
 * // made?.batch.eventCount >= 50; a second call right after returns null
 */
export async function createTrainingBatch(db: SqlClient, request: TrainingBatchRequest): Promise<CreatedTrainingBatch | null> {
  const id = `tb_${uuidv7()}`;
  const file = join(request.dir, request.workspaceId, `${id}.jsonl`);
  let wrote = false;
  try {
    return await db.transaction(async (tx) => {
      const claimed = await claimTrainingExamples(tx, request.workspaceId, request.kind, id, request.maxEvents ?? TRAINING_BATCH_MAX_EVENTS);
      if (claimed < request.minEvents) throw new TooFew();
      await mkdir(join(request.dir, request.workspaceId), { recursive: true });
      wrote = true;
      const rowCount = await writeLines(file, trainingBatchLines(tx, request.workspaceId, id, request.kind));
      const batch = await recordTrainingBatch(tx, request.workspaceId, { id, kind: request.kind, format: TRAINING_BATCH_FORMATS[request.kind].format, eventCount: claimed, rowCount, file });
      const message: OutboundMessage = {
        id: outboundMessageId('training.batch_ready', id),
        type: 'training.batch_ready',
        workspaceId: request.workspaceId,
        createdAt: batch.createdAt,
        data: { batchId: id, kind: batch.kind, format: batch.format, eventCount: claimed, rowCount, file, download: `/v1/training-batches/${id}/file` },
      };
      const deliveryIds = await createDeliveries(tx, [message]);
      const effectId = request.stream ? await insertEffect(tx, { counters: null, messages: [message] }) : null;
      return { batch, deliveryIds, effectId };
    }, { background: request.background === true });
  } catch (err) {
    if (wrote) await unlink(file).catch(() => undefined);
    if (err instanceof TooFew) return null;
    throw err;
  }
}

/** Writes each line and a newline to a new file at `path`; resolves with the number of lines once it is flushed. */
async function writeLines(path: string, lines: AsyncIterable<string>): Promise<number> {
  let n = 0;
  await pipeline(
    async function* () {
      for await (const line of lines) {
        n++;
        yield `${line}\n`;
      }
    },
    createWriteStream(path, { flags: 'wx' }),
  );
  return n;
}

/**
 * The scheduled job's work: for each kind and each workspace with at least its threshold of
 * unused examples of it, makes batches until fewer are left, calling `made` after each commit.
 * Embedded, a batch takes at most {@link EMBEDDED_SCHEDULED_BATCH_EVENTS} (more make further
 * batches) and the next waits {@link EMBEDDED_BATCH_PACE} times its duration, so that batches
 * never hold the one connection long, nor often.
 * Safe in many workers at once: a claim never takes another's events.
 *
 * @returns how many batches were made.
 * @example
 * await makeDueTrainingBatches(db, { kinds: ['corrections'], threshold: 50, dir, stream: false }, afterCommit) // 2
 */
export async function makeDueTrainingBatches(
  db: SqlClient,
  options: {
    kinds: readonly TrainingBatchKindName[];
    threshold: number;
    dir: string;
    stream: boolean;
    /** The most events a batch takes; default {@link scheduledBatchMax}. */
    maxEvents?: number;
  },
  made: (created: CreatedTrainingBatch) => Promise<void>,
): Promise<number> {
  let count = 0;
  for (const kind of options.kinds) {
    for (const { workspaceId, threshold } of await workspacesDueForBatch(db, kind, options.threshold)) {
      for (;;) {
        const maxEvents = options.maxEvents ?? scheduledBatchMax(db.dialect, threshold);
        const started = performance.now();
        const created = await createTrainingBatch(db, { workspaceId, kind, minEvents: threshold, maxEvents, dir: options.dir, stream: options.stream, background: true });
        if (!created) break;
        count++;
        await made(created);
        if (db.dialect === 'pglite') await sleep((performance.now() - started) * EMBEDDED_BATCH_PACE);
      }
    }
  }
  return count;
}
