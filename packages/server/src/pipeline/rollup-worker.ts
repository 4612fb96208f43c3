/**
 * The rollup pool's worker: computes a day's rollup (rollup-compute.ts) in a worker thread, so a
 * busy day's arithmetic never stalls the pipeline's jobs on the worker's own thread. Loaded by
 * piscina from rollup-pool.ts; the compiled `.js` in `dist/`, the `.ts` under tsx.
 */
import { setPriority } from 'node:os';
import type { DayOutput, DayRead } from '../store/day-rollups.js';
import { computeDay } from './rollup-compute.js';

// Rollups are background work: lowest CPU priority, so processing and the database win the
// cores (per thread on Linux; where it cannot be set, normal priority).
try {
  setPriority(19);
} catch {
  // not permitted here: no harm
}

/**
 * Piscina's entry point: one day's rollup.
 *
 * @example
 * rollupCompute({ rows, registered }).metrics
 */
export default function rollupCompute(input: DayRead): DayOutput {
  return computeDay(input);
}
