/**
 * At most one run of a job at a time in this process, and none lost: a job that arrives while one
 * runs asks the running one to go round once more, and returns at once. The rescore job is one
 * (a job per 500 ms window, pipeline.ts): under a steady stream every window added a job, each
 * ran up to its per-run limit, and they filled the worker's slots ahead of the process jobs.
 */
export class SingleFlight {
  #running: Promise<void> | null = null;
  #again = false;

  /**
   * Runs `fn`, or, while a run is going, has that run call `fn` once more after its current call.
   *
   * @example
   * const rescore = new SingleFlight();
   * await rescore.run(() => rescoreDirtyResponses(db)); // a second call meanwhile returns at once
   */
  async run(fn: () => Promise<unknown>): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return;
    }
    const loop = async (): Promise<void> => {
      do {
        this.#again = false;
        await fn();
      } while (this.#again);
    };
    this.#running = loop().finally(() => {
      this.#running = null;
    });
    await this.#running;
  }
}
