/**
 * How a training batch writes its rows (issue 10; issue 25: one owner for the rows): each kind
 * in one export format, by the export builders of {@link buildRows}, so a batch follows the
 * exports' rules, the corrected pair and the tie check included. Which events a batch takes is
 * the server's business (`store/training-examples.ts`).
 */
import type { TrainingBatchKindName } from './batch-kinds.js';
import { buildRows } from './build-rows.js';
import { DEFAULT_EXPORT_OPTIONS, type ExportFormat, type ExportOptions, type ExportTally } from './export-formats.js';
import type { PromptGroup } from './training-facts.js';

/** What a kind of batch writes: an export format (a `GET /v1/exports/:format` name) and its options beyond the defaults. */
export interface TrainingBatchFormat {
  format: ExportFormat;
  options: Partial<ExportOptions>;
}

/**
 * The format of each kind of batch. `corrections` (ADR-0012's trigger) writes each correction as a
 * TRL DPO pair (prompt = the response's query, chosen = the corrected text, rejected = the text
 * corrected); `reward` writes one learning signal an event.
 */
export const TRAINING_BATCH_FORMATS: Readonly<Record<TrainingBatchKindName, TrainingBatchFormat>> = {
  corrections: { format: 'trl-dpo', options: {} },
  sft: { format: 'openai-chat', options: {} },
  preference: { format: 'trl-dpo', options: {} },
  kto: { format: 'trl-kto', options: {} },
  reward: { format: 'learning-signals', options: { kind: 'event' } },
  nli: { format: 'nli', options: {} },
};

/**
 * A batch's rows of one prompt group holding the batch's own events: the kind's export builder
 * without dedup (every example a batch claimed is written once), so what an export leaves out
 * (a tie: the same text chosen and rejected; a contradictory answer) a batch leaves out too.
 * `corrections` passes one group a correction, so its file keeps the log's order.
 *
 * @example
 * trainingBatchRows('corrections', { key: 'r-1', responses: [{ response, events: [correction] }] }, emptyTally())
 * // [{ prompt: 'sales?', chosen: 'SELECT sum(total) FROM sales', rejected: 'SELECT * FROM sales', provenance: { trust: 'verified', … } }]
 */
export function trainingBatchRows(kind: TrainingBatchKindName, group: PromptGroup, tally: ExportTally): unknown[] {
  const { format, options } = TRAINING_BATCH_FORMATS[kind];
  return buildRows(format, group, { ...DEFAULT_EXPORT_OPTIONS, dedup: false, ...options }, tally);
}
