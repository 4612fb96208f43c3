/**
 * Agreement reports off the event loop. A queue of 10,000 reviewed items costs a few hundred
 * milliseconds of bootstrap CPU; on the API's thread that would stall every other request. Big
 * reads run in one piscina thread (started on first use, ended when idle); small ones inline,
 * where the thread hop and the copy of the reviews would cost more than the statistics.
 *
 * A big report is kept by its reviews' fingerprint (store/review-agreement.ts: each review by
 * item, reviewer and version): the statistics are deterministic (a seeded bootstrap), so the same
 * reviews give the same report. The dashboard reads a queue's agreement each time its panel
 * opens; until a review is added, revised or erased, that read costs the reviews' query instead
 * of a second of CPU, and requests arriving together share one computation.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { queueAgreement, type AgreementReview, type QueueAgreement } from '@feedloop/core';
import { Piscina } from 'piscina';

/** Reviews up to this many are computed inline (a few milliseconds at most). */
export const INLINE_MAX_REVIEWS = 2_000;

/** Big reports kept, the least recently read evicted first. */
export const KEPT_REPORTS = 16;

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
  /** Reports by their reviews' fingerprint, in least-recently-read order (a Map keeps insertion order). */
  readonly #kept = new Map<string, Promise<QueueAgreement>>();

  /** `inlineMax`: reviews computed on the calling thread at most (tests set 0 to use the thread). */
  constructor(options: { inlineMax?: number } = {}) {
    this.#inlineMax = options.inlineMax ?? INLINE_MAX_REVIEWS;
  }

  /**
   * The agreement report of a queue's reviews: inline when small, else the one kept for
   * `fingerprint` (when given) or the thread's.
   */
  compute(reviews: AgreementReview[], fingerprint?: string): Promise<QueueAgreement> {
    if (reviews.length <= this.#inlineMax) return Promise.resolve(queueAgreement(reviews));
    this.#pool ??= new Piscina<AgreementReview[], QueueAgreement>({ ...workerFile(), minThreads: 0, maxThreads: 1, idleTimeout: IDLE_TIMEOUT_MS });
    if (fingerprint === undefined) return this.#pool.run(reviews);
    const key = fingerprint;
    const kept = this.#kept.get(key);
    if (kept) {
      this.#kept.delete(key);
      this.#kept.set(key, kept);
      return kept;
    }
    const report = this.#pool.run(reviews);
    this.#kept.set(key, report);
    // A failed computation is not kept: the next read tries again.
    report.catch(() => this.#kept.delete(key));
    for (const oldest of this.#kept.keys()) {
      if (this.#kept.size <= KEPT_REPORTS) break;
      this.#kept.delete(oldest);
    }
    return report;
  }

  /** Ends the thread (waits for a report in progress). */
  async close(): Promise<void> {
    this.#kept.clear();
    const pool = this.#pool;
    this.#pool = undefined;
    await pool?.close();
  }
}
