/**
 * Training batches (issue 10, ADR-0012's 50-correction trigger): when a workspace's unused
 * examples of a kind reach the threshold, one transaction claims them (sets each event's
 * `applied_to_training` to the new batch's id, skipping rows another claimer holds), writes the
 * batch's file, records the batch and queues its `training.batch_ready` message. An event is in
 * exactly one batch: the claiming UPDATE only takes rows still unused, and a concurrent claimer
 * neither waits for nor takes rows this one locked.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { v7 as uuidv7 } from 'uuid';
import type { SqlClient, SqlExecutor } from '../db/sql-client.js';
import { outboundMessageId, type OutboundMessage } from '../emit/outbound-message.js';
import { createDeliveries } from '../emit/webhook-store.js';
import { TRAINING_BATCH_KINDS, type TrainingBatchKindName } from '../store/training-batch-lines.js';
import type { TrainingBatchView } from '../store/training-batches.js';

/** Events one batch takes at most; more unused ones make further batches. */
export const TRAINING_BATCH_MAX_EVENTS = 10_000;

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
  const kind = TRAINING_BATCH_KINDS[request.kind];
  const id = `tb_${uuidv7()}`;
  const file = join(request.dir, request.workspaceId, `${id}.jsonl`);
  let wrote = false;
  try {
    return await db.transaction(async (tx) => {
      const claimed = await claimExamples(tx, request.workspaceId, kind.types, id, request.maxEvents ?? TRAINING_BATCH_MAX_EVENTS);
      if (claimed < request.minEvents) throw new TooFew();
      await mkdir(join(request.dir, request.workspaceId), { recursive: true });
      wrote = true;
      const rowCount = await writeLines(file, kind.lines(tx, request.workspaceId, id));
      const [row] = await tx.query<{ created_at: Date }>(
        `INSERT INTO training_batches (workspace_id, id, kind, format, event_count, row_count, file) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING created_at`,
        [request.workspaceId, id, request.kind, kind.format, claimed, rowCount, file],
      );
      const batch: TrainingBatchView = { id, kind: request.kind, format: kind.format, eventCount: claimed, rowCount, file, createdAt: (row?.created_at ?? new Date()).toISOString() };
      const message: OutboundMessage = {
        id: outboundMessageId('training.batch_ready', id),
        type: 'training.batch_ready',
        workspaceId: request.workspaceId,
        createdAt: batch.createdAt,
        data: { batchId: id, kind: batch.kind, format: batch.format, eventCount: claimed, rowCount, file, download: `/v1/training-batches/${id}/file` },
      };
      const deliveryIds = await createDeliveries(tx, [message]);
      let effectId: number | null = null;
      if (request.stream) {
        const [effect] = await tx.query<{ id: number }>(
          `INSERT INTO pipeline_effects (counters, messages, counters_done, messages_done) VALUES (NULL, $1::jsonb, true, false) RETURNING id`,
          [JSON.stringify([message])],
        );
        effectId = effect ? Number(effect.id) : null;
      }
      return { batch, deliveryIds, effectId };
    });
  } catch (err) {
    if (wrote) await unlink(file).catch(() => undefined);
    if (err instanceof TooFew) return null;
    throw err;
  }
}

/**
 * Marks up to `limit` unused, counted examples with the batch id in one statement and returns how
 * many. `SKIP LOCKED`: rows another claim holds are left to it; the UPDATE's own
 * `applied_to_training IS NULL` re-check drops rows a claim committed meanwhile.
 */
async function claimExamples(tx: SqlExecutor, workspaceId: string, types: readonly string[], batchId: string, limit: number): Promise<number> {
  const rows = await tx.query<{ id: string }>(
    `WITH picked AS (
       SELECT e.id, e.received_at FROM feedback_events e
        WHERE e.workspace_id = $1 AND e.applied_to_training IS NULL AND e.type = ANY ($2::text[])
          AND EXISTS (SELECT 1 FROM feedback_signals s WHERE s.workspace_id = e.workspace_id AND s.event_id = e.id AND s.status = 'counted')
        ORDER BY e.seq LIMIT $4
        FOR UPDATE OF e SKIP LOCKED)
     UPDATE feedback_events e SET applied_to_training = $3
       FROM picked p
      WHERE e.workspace_id = $1 AND e.id = p.id AND e.received_at = p.received_at AND e.applied_to_training IS NULL
     RETURNING e.id`,
    [workspaceId, types, batchId, limit],
  );
  return rows.length;
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
 * The workspaces with at least `threshold` unused, counted examples of the kind: the scheduled
 * job's candidates.
 */
export async function workspacesDueForBatch(db: SqlExecutor, kind: TrainingBatchKindName, threshold: number): Promise<string[]> {
  const rows = await db.query<{ workspace_id: string }>(
    `SELECT e.workspace_id FROM feedback_events e
      WHERE e.applied_to_training IS NULL AND e.type = ANY ($1::text[])
        AND EXISTS (SELECT 1 FROM feedback_signals s WHERE s.workspace_id = e.workspace_id AND s.event_id = e.id AND s.status = 'counted')
      GROUP BY e.workspace_id HAVING count(*) >= $2`,
    [TRAINING_BATCH_KINDS[kind].types, threshold],
  );
  return rows.map((r) => r.workspace_id);
}
