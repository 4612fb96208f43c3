/**
 * The diff pool's worker: runs core's `editDistancePercent` in a worker thread, so a long diff
 * (a 200,000-character correction takes over a second) never blocks the API's event loop.
 * Loaded by piscina from diff-pool.ts; the compiled `.js` in `dist/`, the `.ts` under tsx.
 */
import { setPriority } from 'node:os';
import { editDistancePercent } from '@feedloop/core';

// Diffs are background work: lowest CPU priority, so on a small machine the API's own thread and
// the database win the cores. On Linux the nice value is per thread (this worker only); where
// it cannot be set, the worker runs at normal priority.
try {
  setPriority(19);
} catch {
  // not permitted here: no harm
}

/** One diff to run: the original text and its revision. */
export interface DiffTask {
  original: string;
  revised: string;
}

/**
 * Piscina's entry point: the edit distance of one task, in percent (ADR-016).
 *
 * @example
 * diff({ original: 'kitten', revised: 'sitting' }) // 56
 */
export default function diff(task: DiffTask): number {
  return editDistancePercent(task.original, task.revised);
}
