/**
 * Group commit: concurrent callers' items are written together in shared transactions, and each
 * caller is answered after the transaction holding its item has committed. Under load a flush
 * carries everything that arrived while the previous one was writing, so the number of commits
 * stays small while every acknowledgement still means "committed".
 */

/** Writes a batch; returns one result per item, in order. Throwing fails every item of the batch. */
export type FlushFn<I, O> = (items: I[]) => Promise<O[]>;

/** Tuning of a committer. */
export interface GroupCommitOptions {
  /** Items in one transaction at most; more wait for the next flush. */
  maxBatch: number;
  /** Flushes in flight at once: 1 for a single-connection database, a few for a server. */
  concurrency: number;
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
  readonly #options: GroupCommitOptions;
  #queue: Pending<I, O>[] = [];
  #inFlight = 0;
  #scheduled = false;
  #idle: Array<() => void> = [];
  #flushes = 0;

  constructor(flush: FlushFn<I, O>, options: GroupCommitOptions) {
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
    this.#scheduled = true;
    // Let the current tick's requests join the batch before writing.
    setImmediate(() => {
      this.#scheduled = false;
      this.#run();
    });
  }

  #run(): void {
    while (this.#queue.length > 0 && this.#inFlight < this.#options.concurrency) {
      const batch = this.#queue.splice(0, this.#options.maxBatch);
      this.#inFlight++;
      this.#flushes++;
      void this.#write(batch).finally(() => {
        this.#inFlight--;
        if (this.#queue.length > 0) this.#run();
        else if (this.#inFlight === 0) for (const done of this.#idle.splice(0)) done();
      });
    }
  }

  async #write(batch: Pending<I, O>[]): Promise<void> {
    try {
      const results = await this.#flush(batch.map((p) => p.item));
      if (results.length !== batch.length) throw new Error(`flush returned ${results.length} results for ${batch.length} items`);
      batch.forEach((p, i) => p.resolve(results[i] as O));
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  }
}
