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
      const claimed = await claimExamples(tx, request.workspaceId, request.kind, id, request.maxEvents ?? TRAINING_BATCH_MAX_EVENTS);
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

/** Events of a workspace that are examples (counted, neither a duplicate nor a replaced vote), as `e` with their signal `s`. */
const COUNTED_EVENTS = `feedback_events e
  JOIN feedback_signals s ON s.workspace_id = e.workspace_id AND s.event_id = e.id AND s.status = 'counted'`;
/**
 * Examples are events that count and are verified for their user (secret key, or a feedback token
 * naming them): a public key's feedback is anyone's, and a batch trains the next model (issue 22).
 */
const NOT_DUPLICATE = 'e.duplicate_of IS NULL AND e.superseded_by IS NULL AND e.verified';

/**
 * Claims up to `limit` unused examples of the kind for the batch, oldest first, and returns how
 * many. Claims of one workspace and kind wait for each other (advisory lock for the transaction):
 * under Postgres's read committed, the claim's statement starts after the previous claim
 * committed and so never picks its events; `ON CONFLICT DO NOTHING` on the primary key is the
 * last word in any case. A corrections claim also sets `applied_to_training` (ADR-0012's column).
 */
async function claimExamples(tx: SqlExecutor, workspaceId: string, kindName: TrainingBatchKindName, batchId: string, limit: number): Promise<number> {
  const kind = TRAINING_BATCH_KINDS[kindName];
  await tx.query("SELECT pg_advisory_xact_lock(hashtext('feedloop.training'), hashtext($1 || '/' || $2))", [workspaceId, kindName]);
  const rows = await tx.query<{ event_id: string }>(
    `WITH picked AS (
       SELECT e.id, e.seq FROM ${COUNTED_EVENTS}
        WHERE e.workspace_id = $1 AND ${NOT_DUPLICATE} AND (${kind.examples})
          AND NOT EXISTS (SELECT 1 FROM training_applied_events a WHERE a.workspace_id = $1 AND a.kind = $2 AND a.event_id = e.id)
        ORDER BY e.seq LIMIT $4)
     INSERT INTO training_applied_events (workspace_id, kind, event_id, seq, batch_id)
     SELECT $1, $2, p.id, p.seq, $3 FROM picked p
     ON CONFLICT DO NOTHING
     RETURNING event_id`,
    [workspaceId, kindName, batchId, limit],
  );
  if (kindName === 'corrections' && rows.length > 0) {
    await tx.query(`UPDATE feedback_events SET applied_to_training = $3 WHERE workspace_id = $1 AND id = ANY ($2::text[]) AND applied_to_training IS NULL`, [
      workspaceId,
      rows.map((r) => r.event_id),
      batchId,
    ]);
  }
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

/** A workspace whose unused examples of a kind reached its threshold. */
export interface DueWorkspace {
  workspaceId: string;
  /** The workspace's threshold for the kind (its `trainingBatchThresholds`, else the default). */
  threshold: number;
}

/**
 * The workspaces with at least their threshold of unused examples of the kind (the workspace's
 * `trainingBatchThresholds[kind]`, else `defaultThreshold`): the scheduled job's candidates.
 *
 * @example
 * await workspacesDueForBatch(db, 'kto', 50) // [{ workspaceId: 'ws_1', threshold: 200 }]
 */
export async function workspacesDueForBatch(db: SqlExecutor, kind: TrainingBatchKindName, defaultThreshold: number): Promise<DueWorkspace[]> {
  const rows = await db.query<{ workspace_id: string; threshold: number }>(
    `WITH limits AS (
       SELECT w.id, CASE WHEN jsonb_typeof(w.settings->'trainingBatchThresholds'->$1::text) = 'number'
                         THEN (w.settings->'trainingBatchThresholds'->>$1::text)::numeric::int ELSE $2::int END AS threshold
         FROM workspaces w)
     SELECT e.workspace_id, l.threshold FROM ${COUNTED_EVENTS}
       JOIN limits l ON l.id = e.workspace_id
      WHERE ${NOT_DUPLICATE} AND (${TRAINING_BATCH_KINDS[kind].examples})
        AND NOT EXISTS (SELECT 1 FROM training_applied_events a WHERE a.workspace_id = e.workspace_id AND a.kind = $1::text AND a.event_id = e.id)
      GROUP BY e.workspace_id, l.threshold HAVING count(*) >= l.threshold`,
    [kind, defaultThreshold],
  );
  return rows.map((r) => ({ workspaceId: r.workspace_id, threshold: Number(r.threshold) }));
}
