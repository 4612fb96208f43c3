/**
 * The lines of a training batch's file, written when the batch is made (training-batch-maker.ts)
 * and again whenever its file is served (`GET /v1/training-batches/:id/file`): the batch's
 * events read from the store, their rows built by core's export builders (`trainingBatchRows`),
 * so a batch follows the exports' rules (issue 25): the corrected pair, the tie check, provenance.
 */
import { emptyTally, trainingBatchRows, TRAINING_BATCH_FORMATS, type TrainingBatchKindName } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import { readBatchCorrections, readBatchGroups } from '../store/training-batch-reads.js';

/**
 * Yields the JSONL lines (no newline) of one batch of the kind: a `corrections` batch one TRL DPO
 * pair a correction, in log order (a tie, the corrected text equal to the text corrected, makes
 * none); the other kinds their export format's rows of the batch's own events, by prompt group.
 *
 * @example
 * for await (const line of trainingBatchLines(db, ws, 'tb_0190…', 'corrections')) file.write(`${line}\n`);
 * // {"prompt":"What were sales last month?","chosen":"SELECT sum(total) FROM sales","rejected":"SELECT * FROM sales","provenance":{…}}
 */
export async function* trainingBatchLines(db: SqlExecutor, workspaceId: string, batchId: string, kind: TrainingBatchKindName): AsyncGenerator<string> {
  const tally = emptyTally();
  const groups =
    kind === 'corrections'
      ? await readBatchCorrections(db, workspaceId, batchId)
      : await readBatchGroups(db, workspaceId, batchId, TRAINING_BATCH_FORMATS[kind].format === 'openai-chat');
  for (const group of groups) for (const row of trainingBatchRows(kind, group, tally)) yield JSON.stringify(row);
}
