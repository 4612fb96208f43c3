/**
 * The rows of a training batch's file. A batch holds the events whose `applied_to_training` is its
 * id; each kind of batch writes them in one export format, through a {@link BatchLines} function.
 * The one here writes corrections as TRL DPO pairs by the exports' correction rule (prompt = the
 * response's query, chosen = the corrected text, rejected = the text corrected, by default the
 * answer); the export module's own row builders can take its place (same signature).
 */
import type { SqlExecutor } from '../db/sql-client.js';

/** Yields the JSONL lines (no newline) of one batch: its events' rows, in log order. */
export type BatchLines = (db: SqlExecutor, workspaceId: string, batchId: string) => AsyncIterable<string>;

/** Events read a page at a time, so a batch of any size is written in bounded memory. */
const PAGE = 1_000;

/**
 * A batch of corrections as `trl-dpo` rows (`prompt`, `chosen`, `rejected`).
 *
 * @example
 * for await (const line of correctionDpoLines(db, ws, 'tb_0190…')) file.write(`${line}\n`);
 * // {"prompt":"What were sales last month?","chosen":"SELECT sum(total) FROM sales","rejected":"SELECT * FROM sales"}
 */
export async function* correctionDpoLines(db: SqlExecutor, workspaceId: string, batchId: string): AsyncGenerator<string> {
  let after = -1;
  for (;;) {
    const rows = await db.query<{ seq: string; prompt: string; chosen: string; rejected: string }>(
      `SELECT e.seq::text AS seq, r.query AS prompt, e.payload->>'corrected' AS chosen, COALESCE(e.payload->>'original', r.answer) AS rejected
         FROM feedback_events e JOIN responses r ON r.workspace_id = e.workspace_id AND r.id = e.response_id
        WHERE e.workspace_id = $1 AND e.applied_to_training = $2 AND e.seq > $3
        ORDER BY e.seq LIMIT ${PAGE}`,
      [workspaceId, batchId, after],
    );
    for (const r of rows) yield JSON.stringify({ prompt: r.prompt, chosen: r.chosen, rejected: r.rejected });
    if (rows.length < PAGE) return;
    after = Number(rows[rows.length - 1]?.seq);
  }
}

/** What a kind of batch takes and how its file is written. */
export interface TrainingBatchKind {
  /** The event types that are examples of this kind. */
  types: readonly string[];
  /** The export format of its file (a `GET /v1/exports/:format` name). */
  format: string;
  lines: BatchLines;
}

/**
 * The kinds of training batches. `corrections` is ADR-0012's trigger (50 corrections); the
 * migration's partial index lists the same event types.
 */
export const TRAINING_BATCH_KINDS = {
  corrections: { types: ['correction'], format: 'trl-dpo', lines: correctionDpoLines },
} as const satisfies Record<string, TrainingBatchKind>;

/** One of the keys of {@link TRAINING_BATCH_KINDS}. */
export type TrainingBatchKindName = keyof typeof TRAINING_BATCH_KINDS;
