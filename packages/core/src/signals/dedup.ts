/**
 * The pipeline's first stage: drops events that ingest already found to add nothing. Ingest marks
 * content duplicates (`duplicateOf`) and replaced votes (`supersededBy`) as it writes them, and a
 * retraction marks its event (`retracted`, before the pipeline saw it); the
 * events stay stored for audit, but only the rest become signals.
 */
import type { StoredEvent } from './signal-types.js';

/** Why the dedup stage drops an event. */
export type DedupDropReason = 'duplicate' | 'superseded' | 'retracted';

/** What the dedup stage decides about one event. */
export type DedupDecision = { keep: true } | { keep: false; reason: DedupDropReason };

/**
 * Keeps an event unless it was retracted or ingest marked it a duplicate or a superseded vote. It reads only those
 * marks, so it is idempotent: the same event always gets the same answer, and a replayed pipeline
 * drops exactly what the first run dropped. A duplicate that was also superseded reports
 * `duplicate`: it never counted, whichever vote replaced it.
 *
 * @example
 * dedupStage({ ...event, duplicateOf: null, supersededBy: null }) // { keep: true }
 * dedupStage({ ...event, duplicateOf: 'evt-1', supersededBy: null }) // { keep: false, reason: 'duplicate' }
 */
export function dedupStage(event: StoredEvent): DedupDecision {
  if (event.retracted === true) return { keep: false, reason: 'retracted' };
  if (event.duplicateOf !== null) return { keep: false, reason: 'duplicate' };
  if (event.supersededBy !== null) return { keep: false, reason: 'superseded' };
  return { keep: true };
}
