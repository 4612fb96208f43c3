/**
 * The pace of rescore runs. A run recomputes each dirty response from all its signals, so its cost
 * grows with the signals of the responses feedback keeps arriving on: under a steady stream on a
 * few busy responses, back-to-back runs re-read the same signals again and again: under
 * single-event ingest the rescore's read was the embedded database's largest statement, 6.6 of
 * the pipeline's 15.3 s (docs/benchmarks.md, "Tenth session"). After each run, the next one waits in proportion to what that run held, so
 * rescores take at most {@link RESCORE_SHARE} of the database's time; the marks gathered meanwhile
 * share one recompute of each response. The wait is bounded, so a score trails its feedback by a
 * run and {@link MAX_RESCORE_PAUSE_MS} while a run reaches every mark; a run holds at most
 * {@link RESCORE_RUN_MS}, and the marks it leaves go to the next runs.
 */

/** How long a rescore waits for more batches to coalesce with. */
export const RESCORE_DELAY_MS = 500;
/** The share of the database's time rescore runs take at most under a steady stream. */
export const RESCORE_SHARE = 0.2;
/** The longest pause between two runs, whatever the last one cost. */
export const MAX_RESCORE_PAUSE_MS = 2_000;
/**
 * What a paced run holds the database at most (500 ms): past it the run stops after its current
 * transaction and the next comes after the pause, so the share holds however many marks wait.
 * Without it a run went on while marks kept coming, up to 2,000 responses: 4.5 s at nine tenths of
 * the embedded connection under single-event ingest on 1,000 busy responses, then a 2 s pause
 * (docs/benchmarks.md, "Thirteenth session").
 */
export const RESCORE_RUN_MS = (MAX_RESCORE_PAUSE_MS * RESCORE_SHARE) / (1 - RESCORE_SHARE);

/**
 * The rescore job the requests of one {@link RESCORE_DELAY_MS} window share (no colon: BullMQ ids).
 * A fixed id was dropped while a job of that id ran, and later marks waited for the schedule.
 *
 * @example
 * queue.add('rescore', {}, { jobId: rescoreJobId(), delayMs: RESCORE_DELAY_MS })
 */
export const rescoreJobId = (at: number = Date.now()): string => `rescore-${Math.floor(at / RESCORE_DELAY_MS)}`;

/**
 * When this process may start its next rescore run.
 *
 * @example
 * const pacer = new RescorePacer();
 * pacer.ran(100);  // a run held the database 100 ms
 * pacer.deferral() // { jobId: 'rescore-after-…', delayMs: ≤ 500 }: add this job instead of running
 */
export class RescorePacer {
  #notBefore = 0;

  constructor(private readonly clock: () => number = Date.now) {}

  /**
   * The job to add in place of a run that came too soon, or `undefined` to run now. Its id names
   * the first window at or after the pause's end, apart from {@link rescoreJobId}'s: a job of the
   * id running now would swallow it.
   */
  deferral(): { jobId: string; delayMs: number } | undefined {
    const now = this.clock();
    if (now >= this.#notBefore) return undefined;
    const window = Math.ceil(this.#notBefore / RESCORE_DELAY_MS);
    return { jobId: `rescore-after-${window}`, delayMs: window * RESCORE_DELAY_MS - now };
  }

  /** Records a run that held the database `heldMs` in all. */
  ran(heldMs: number): void {
    this.#notBefore = this.clock() + Math.min(MAX_RESCORE_PAUSE_MS, heldMs * (1 / RESCORE_SHARE - 1));
  }
}
