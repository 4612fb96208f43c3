/**
 * Edit distances off the event loop. Diffing a correction of 200,000 characters takes over a
 * second of CPU (O(n·m/32)); run on the API's thread it stalls every other request, and run
 * inside the group commit it stalls every write. The pool runs big diffs in worker threads
 * (piscina), each with a time budget, and small ones inline, where a thread hop would cost more
 * than the diff.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { editDistancePercent } from '@feedloop/core';
import { Piscina } from 'piscina';
import type { DiffTask } from './diff-worker.js';

/**
 * Texts whose length product is at most this are diffed inline. Measured on the 2-core
 * benchmark machine: a round trip to a worker costs ~0.3 ms; inline, two 500-character texts
 * take ~0.1-0.3 ms, two 2,000-character ones ~0.2-0.7 ms. The break-even is near two
 * 1,000-character texts; typical answers and corrections stay inline.
 */
export const INLINE_MAX_CELLS = 1_000_000;

/** Why a diff has no result: it ran past its budget, too many waited, or its worker failed. */
export type DiffFallback = 'time_budget' | 'queue_full' | 'worker_failed';

/** Tuning of a pool (from the config: `FEEDLOOP_DIFF_THREADS`, `FEEDLOOP_DIFF_TIME_BUDGET_MS`). */
export interface DiffPoolOptions {
  /** Worker threads at most (created on first use, ended when idle). */
  threads: number;
  /** How long one diff may run in its worker before it is abandoned (the worker is ended). */
  timeBudgetMs: number;
  /** Diffs waiting for a thread at most; past it a diff falls back at once. Default 256 per thread. */
  maxWaiting?: number;
  /** Hears of every fallback (metrics, logs). */
  onFallback?: (reason: DiffFallback) => void;
}

/**
 * The worker module: the compiled `.js` next to this file when running from `dist/`, else the
 * `.ts` source (tsx, vitest), which the worker thread loads through tsx.
 */
function workerFile(): { filename: string; execArgv?: string[] } {
  const js = fileURLToPath(new URL('./diff-worker.js', import.meta.url));
  if (existsSync(js)) return { filename: js };
  return { filename: fileURLToPath(new URL('./diff-worker.ts', import.meta.url)), execArgv: ['--import', 'tsx'] };
}

/**
 * A lazily started pool of diff threads.
 *
 * @example
 * const diffs = new DiffPool({ threads: 1, timeBudgetMs: 10_000 });
 * await diffs.editDistance('kitten', 'sitting'); // 56
 * await diffs.close();
 */
export class DiffPool {
  readonly #options: DiffPoolOptions;
  #pool: Piscina<DiffTask, number> | undefined;
  #running = 0;
  readonly #waiting: Array<() => void> = [];
  #closed = false;

  constructor(options: DiffPoolOptions) {
    this.#options = { ...options, threads: Math.max(1, Math.floor(options.threads)) };
  }

  /** Diffs running in a worker or waiting for one (tests and metrics). */
  get pending(): number {
    return this.#running + this.#waiting.length;
  }

  /**
   * ADR-016's edit distance of a revision, in percent; `null` when the diff could not be
   * finished within its budget (see {@link DiffFallback}): the event is stored without one.
   */
  async editDistance(original: string, revised: string): Promise<number | null> {
    if (original.length * revised.length <= INLINE_MAX_CELLS || original === revised) return editDistancePercent(original, revised);
    if (this.#closed) return this.#fallback('worker_failed');
    const maxWaiting = this.#options.maxWaiting ?? 256 * this.#options.threads;
    if (this.#running >= this.#options.threads) {
      if (this.#waiting.length >= maxWaiting) return this.#fallback('queue_full');
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    this.#running++;
    // The budget starts when the diff reaches a thread (the gate above keeps piscina's own queue
    // empty), so waiting behind other big diffs does not count against it.
    const signal = AbortSignal.timeout(this.#options.timeBudgetMs);
    try {
      return await this.#piscina().run({ original, revised }, { signal });
    } catch {
      return this.#fallback(signal.aborted ? 'time_budget' : 'worker_failed');
    } finally {
      this.#running--;
      this.#waiting.shift()?.();
    }
  }

  /** Ends the worker threads; diffs asked for afterwards fall back (shutdown). */
  async close(): Promise<void> {
    this.#closed = true;
    for (const wake of this.#waiting.splice(0)) wake();
    const pool = this.#pool;
    this.#pool = undefined;
    await pool?.destroy();
  }

  #piscina(): Piscina<DiffTask, number> {
    if (this.#closed) throw new Error('diff pool closed');
    this.#pool ??= new Piscina<DiffTask, number>({
      ...workerFile(),
      minThreads: 0,
      maxThreads: this.#options.threads,
      // Threads end after a quiet minute; big corrections come in bursts, if at all.
      idleTimeout: 60_000,
    });
    return this.#pool;
  }

  #fallback(reason: DiffFallback): null {
    this.#options.onFallback?.(reason);
    return null;
  }
}
