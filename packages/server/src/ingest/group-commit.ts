/**
 * Group commit: concurrent callers' items are written together in shared transactions, and each
 * caller is answered after the transaction holding its item has committed. Under load a flush
 * carries everything that arrived while the previous one was writing, so the number of commits
 * stays small while every acknowledgement still means "committed".
 *
 * A shared transaction must not let one caller's item fail everyone's: when a flush fails and
 * the failure may be an item's doing (the committer is told which failures are, e.g. a value
 * the database refuses, as opposed to a database that is down), the batch is written again in
 * halves, recursively, until the items that fail alone are found. Only those get the failure
 * (through `failedAlone`); every other item is committed and answered. The splitting happens only
 * after a failure, so the normal path costs nothing more. Each retry writes a batch whose
 * transaction rolled back, so nothing of it was stored: no item is written twice.
 */

/** Writes a batch; returns one result per item, in order. Throwing fails every item of the batch. */
export type FlushFn<I, O> = (items: I[]) => Promise<O[]>;

/** Tuning of a committer. */
export interface GroupCommitOptions<I = unknown, O = unknown> {
  /** Items in one transaction at most; more wait for the next flush. */
  maxBatch: number;
  /** Flushes in flight at once: 1 for a single-connection database, a few for a server. */
  concurrency: number;
  /**
   * While a flush is in flight, another starts only when at least this share of the batch last
   * started is waiting (0 to 1; default 0: at once). A flush costs its round trips and its
   * statement's planning whatever its size, so under load an extra flush for the one or two
   * requests that arrived just after the previous one started pays that fixed cost for little;
   * they wait for the flushes in flight instead and go with everything that arrived meanwhile. Relative
   * to the last batch, so light load (batches of 1 or 2) still overlaps at once; with nothing in
   * flight a flush always starts at once, so a lone request never waits.
   */
  overlapShare?: number;
  /**
   * Whether a flush failure may be caused by some item of the batch, so the batch is split and
   * retried to find it. Absent or false (e.g. the database is unreachable): every item fails.
   */
  splitOnFailure?: (err: unknown) => boolean;
  /**
   * The answer for an item whose flush failed with it alone: an outcome (e.g. a rejection with
   * a 4xx code), or throw to fail the item's promise. Absent: the item's promise fails with `err`.
   */
  failedAlone?: (item: I, err: unknown) => O;
}

interface Pending<I, O> {
  item: I;
  resolve: (o: O) => void;
  reject: (e: unknown) => void;
}

/**
 * Batches items from concurrent callers into flushes.
 *
 * @example
 * const committer = new GroupCommitter(async (rows) => insertAll(rows), { maxBatch: 5000, concurrency: 1 });
 * const result = await committer.submit(row); // resolves after the commit that holds row
 */
export class GroupCommitter<I, O> {
  readonly #flush: FlushFn<I, O>;
  readonly #options: GroupCommitOptions<I, O>;
  #queue: Pending<I, O>[] = [];
  #inFlight = 0;
  #scheduled = false;
  #idle: Array<() => void> = [];
  #flushes = 0;
  /** Size of the batch last started: the yardstick of {@link GroupCommitOptions.overlapShare}. */
  #lastBatch = 0;

  constructor(flush: FlushFn<I, O>, options: GroupCommitOptions<I, O>) {
    this.#flush = flush;
    this.#options = options;
  }

  /** Flushes run so far (for metrics and tests). */
  get flushes(): number {
    return this.#flushes;
  }

  /** Submits one item; resolves with its result once committed. */
  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#schedule();
    });
  }

  /** Submits several items; they may be split across flushes but each is answered after its commit. */
  submitMany(items: readonly I[]): Promise<O[]> {
    return Promise.all(items.map((item) => this.submit(item)));
  }

  /** Resolves when nothing is queued or being written (graceful shutdown). */
  drain(): Promise<void> {
    if (this.#queue.length === 0 && this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #schedule(): void {
    if (this.#scheduled || this.#inFlight >= this.#options.concurrency) return;
    if (!this.#worthStarting()) return;
    this.#scheduled = true;
    // Let the current tick's requests join the batch before writing.
    setImmediate(() => {
      this.#scheduled = false;
      this.#run();
    });
  }

  #run(): void {
    while (this.#queue.length > 0 && this.#inFlight < this.#options.concurrency && this.#worthStarting()) {
      const batch = this.#queue.splice(0, this.#options.maxBatch);
      this.#lastBatch = batch.length;
      this.#inFlight++;
      this.#flushes++;
      void this.#write(batch).finally(() => {
        this.#inFlight--;
        if (this.#queue.length > 0) this.#run();
        else if (this.#inFlight === 0) for (const done of this.#idle.splice(0)) done();
      });
    }
  }

  /** Whether the queue is worth a flush now: nothing in flight, or enough waiting to overlap. */
  #worthStarting(): boolean {
    if (this.#inFlight === 0) return true;
    // An in-flight flush takes the others when it ends.
    return this.#queue.length >= Math.max(1, Math.ceil(this.#lastBatch * (this.#options.overlapShare ?? 0)));
  }

  async #write(batch: Pending<I, O>[]): Promise<void> {
    let results: O[];
    try {
      results = await this.#flush(batch.map((p) => p.item));
    } catch (err) {
      await this.#isolate(batch, err);
      return;
    }
    if (results.length !== batch.length) {
      const err = new Error(`flush returned ${results.length} results for ${batch.length} items`);
      for (const p of batch) p.reject(err);
      return;
    }
    batch.forEach((p, i) => p.resolve(results[i] as O));
  }

  /** After a failed flush: fail everyone, or split and retry to find the items at fault. */
  async #isolate(batch: Pending<I, O>[], err: unknown): Promise<void> {
    if (!(this.#options.splitOnFailure?.(err) ?? false)) {
      for (const p of batch) p.reject(err);
      return;
    }
    if (batch.length === 1) {
      const [p] = batch as [Pending<I, O>];
      const failedAlone = this.#options.failedAlone;
      if (!failedAlone) return p.reject(err);
      try {
        p.resolve(failedAlone(p.item, err));
      } catch (e) {
        p.reject(e);
      }
      return;
    }
    // Halves one after the other: a good half commits, a failing one is split again.
    const half = Math.ceil(batch.length / 2);
    this.#flushes++;
    await this.#write(batch.slice(0, half));
    this.#flushes++;
    await this.#write(batch.slice(half));
  }
}
