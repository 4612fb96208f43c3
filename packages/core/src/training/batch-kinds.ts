/**
 * The kinds of training batches (issue 10): which examples a batch of each kind takes is the
 * server's business (`store/training-examples.ts`), how each writes its rows `batch-rows.ts`'s;
 * the names live here because workspace settings (`trainingBatchThresholds`) and the API validate
 * them.
 */

/**
 * Every kind of training batch. `corrections` is ADR-0012's trigger (corrections as DPO pairs);
 * `sft`, `preference`, `kto`, `reward` and `nli` take the examples of the export formats of the
 * same purpose. One event can serve several kinds, once in each.
 */
export const TRAINING_BATCH_KIND_NAMES = ['corrections', 'sft', 'preference', 'kto', 'reward', 'nli'] as const;
/** One of {@link TRAINING_BATCH_KIND_NAMES}. */
export type TrainingBatchKindName = (typeof TRAINING_BATCH_KIND_NAMES)[number];
/** The largest threshold a workspace may set for a kind (a batch takes at most 10,000 events). */
export const MAX_TRAINING_BATCH_THRESHOLD = 10_000;

/**
 * Tells whether a string names a kind of training batch.
 *
 * @example
 * isTrainingBatchKind('kto') // true
 */
export function isTrainingBatchKind(value: string): value is TrainingBatchKindName {
  return (TRAINING_BATCH_KIND_NAMES as readonly string[]).includes(value);
}
