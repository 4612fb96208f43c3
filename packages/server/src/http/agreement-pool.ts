/**
 * Agreement reports off the event loop. A queue of 10,000 reviewed items costs a few hundred
 * milliseconds of bootstrap CPU; on the API's thread that would stall every other request. Big
 * reads run in one piscina thread (started on first use, ended when idle); small ones inline,
 * where the thread hop and the copy of the reviews would cost more than the statistics.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { queueAgreement, type AgreementReview, type QueueAgreement } from '@feedloop/core';
import { Piscina } from 'piscina';

/** Reviews up to this many are computed inline (a few milliseconds at most). */
export const INLINE_MAX_REVIEWS = 2_000;

/** An idle thread is ended after this long: agreement is read when someone opens the panel. */
const IDLE_TIMEOUT_MS = 30_000;

/** The worker module: the compiled `.js` beside this file from `dist/`, else the `.ts` through tsx. */
function workerFile(): { filename: string; execArgv?: string[] } {
  const js = fileURLToPath(new URL('./agreement-worker.js', import.meta.url));
  if (existsSync(js)) return { filename: js };
  return { filename: fileURLToPath(new URL('./agreement-worker.ts', import.meta.url)), execArgv: ['--import', 'tsx'] };
}

/**
 * A lazily started agreement thread.
 *
 * @example
 * const pool = new AgreementPool();
 * const report = await pool.compute(reviews);
 * await pool.close();
 */
export class AgreementPool {
  #pool: Piscina<AgreementReview[], QueueAgreement> | undefined;
  readonly #inlineMax: number;

  /** `inlineMax`: reviews computed on the calling thread at most (tests set 0 to use the thread). */
  constructor(options: { inlineMax?: number } = {}) {
    this.#inlineMax = options.inlineMax ?? INLINE_MAX_REVIEWS;
  }

  /** The agreement report of a queue's reviews: inline when small, else in the thread. */
  compute(reviews: AgreementReview[]): Promise<QueueAgreement> {
    if (reviews.length <= this.#inlineMax) return Promise.resolve(queueAgreement(reviews));
    this.#pool ??= new Piscina<AgreementReview[], QueueAgreement>({ ...workerFile(), minThreads: 0, maxThreads: 1, idleTimeout: IDLE_TIMEOUT_MS });
    return this.#pool.run(reviews);
  }

  /** Ends the thread (waits for a report in progress). */
  async close(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    await pool?.close();
  }
}
