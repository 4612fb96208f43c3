/**
 * `training_batches`: the record of each batch made (pipeline/training-batch-maker.ts), the listing
 * behind `GET /v1/training-batches` and one batch by id.
 */
import type { SqlExecutor } from '../db/sql-client.js';

/** A training batch as the API shows it. */
export interface TrainingBatchView {
  /** `tb_` and a UUIDv7. */
  id: string;
  kind: string;
  format: string;
  /** Events the batch claimed (each in `training_applied_events` with this id and kind). */
  eventCount: number;
  /** Rows written to its file. */
  rowCount: number;
  /** Where the file was written, on the machine of the worker that made it. */
  file: string | null;
  createdAt: string;
}

interface BatchRow {
  id: string;
  kind: string;
  format: string;
  event_count: number;
  row_count: number;
  file: string | null;
  created_at: Date;
}

const toView = (r: BatchRow): TrainingBatchView => ({
  id: r.id,
  kind: r.kind,
  format: r.format,
  eventCount: r.event_count,
  rowCount: r.row_count,
  file: r.file,
  createdAt: r.created_at.toISOString(),
});

const COLUMNS = 'id, kind, format, event_count, row_count, file, created_at';

/**
 * A workspace's batches, newest first, `limit` of them after the batch `before` (an id) when given,
 * of one `kind` when given.
 *
 * @example
 * const page = await listTrainingBatches(db, ws, { limit: 50 });
 */
export async function listTrainingBatches(db: SqlExecutor, workspaceId: string, page: { limit: number; before?: string; kind?: string }): Promise<TrainingBatchView[]> {
  const rows = await db.query<BatchRow>(
    `SELECT ${COLUMNS} FROM training_batches
      WHERE workspace_id = $1 AND ($2::text IS NULL OR (created_at, id) < (SELECT created_at, id FROM training_batches WHERE workspace_id = $1 AND id = $2))
        AND ($4::text IS NULL OR kind = $4)
      ORDER BY created_at DESC, id DESC LIMIT $3`,
    [workspaceId, page.before ?? null, page.limit, page.kind ?? null],
  );
  return rows.map(toView);
}

/** One batch of a workspace, or undefined (another workspace's batch is not found either). */
export async function findTrainingBatch(db: SqlExecutor, workspaceId: string, id: string): Promise<TrainingBatchView | undefined> {
  const [row] = await db.query<BatchRow>(`SELECT ${COLUMNS} FROM training_batches WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
  return row ? toView(row) : undefined;
}

/**
 * Records a batch just written (its file, kind, format and counts) in the caller's transaction.
 *
 * @example
 * await recordTrainingBatch(tx, 'ws_1', { id: 'tb_0190…', kind: 'kto', format: 'kto', eventCount: 312, rowCount: 312, file })
 */
export async function recordTrainingBatch(tx: SqlExecutor, workspaceId: string, batch: Omit<TrainingBatchView, 'createdAt'>): Promise<TrainingBatchView> {
  const [row] = await tx.query<{ created_at: Date }>(
    `INSERT INTO training_batches (workspace_id, id, kind, format, event_count, row_count, file) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING created_at`,
    [workspaceId, batch.id, batch.kind, batch.format, batch.eventCount, batch.rowCount, batch.file],
  );
  return { ...batch, createdAt: (row?.created_at ?? new Date()).toISOString() };
}
