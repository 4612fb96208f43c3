/**
 * Rollup arithmetic off the worker's event loop: one piscina thread, started on first use and
 * ended when idle. The day's rows go to it as read (embedded: the pages' JSON, parsed there) and
 * its output comes back serialized for the inserts.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { DayOutput, DayRead } from '../store/day-rollups.js';

/** An idle thread is ended after this long: rollups run a few times a minute at most. */
const IDLE_TIMEOUT_MS = 30_000;

/** The worker module: the compiled `.js` beside this file from `dist/`, else the `.ts` through tsx. */
function workerFile(): { filename: string; execArgv?: string[] } {
  const js = fileURLToPath(new URL('./rollup-worker.js', import.meta.url));
  if (existsSync(js)) return { filename: js };
  return { filename: fileURLToPath(new URL('./rollup-worker.ts', import.meta.url)), execArgv: ['--import', 'tsx'] };
}

/**
 * A lazily started rollup thread.
 *
 * @example
 * const pool = new RollupPool();
 * await rollupDirtyDays(db, { compute: (input) => pool.compute(input) });
 * await pool.close();
 */
export class RollupPool {
  #pool: Piscina<DayRead, DayOutput> | undefined;

  /** Computes one day's rollup in the thread. */
  compute(input: DayRead): Promise<DayOutput> {
    this.#pool ??= new Piscina<DayRead, DayOutput>({ ...workerFile(), minThreads: 0, maxThreads: 1, idleTimeout: IDLE_TIMEOUT_MS });
    return this.#pool.run(input);
  }

  /** Ends the thread (waits for a rollup in progress). */
  async close(): Promise<void> {
    await this.#pool?.close();
    this.#pool = undefined;
  }
}
