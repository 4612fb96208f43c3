/**
 * Sizes the pipeline's transactions by time. Embedded, PGlite runs on the event loop's own
 * thread: while one statement runs, no request is read, validated or answered, so a pipeline
 * transaction of 450 ms (a rescore of 200 busy responses) became every request's p99. The sizer
 * aims each transaction at a duration instead of a row count, learning from the last one how
 * long an item takes. On Postgres the statements run in another process; a fixed size is kept.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { SqlDialect } from '../db/sql-client.js';

/** How a sizer starts and what it aims at. */
export interface BatchSizerOptions {
  /** The size of the first transaction. */
  initial: number;
  /** The largest size it ever gives. */
  max: number;
  /** Aimed duration of one transaction in ms; `undefined` keeps `initial` (no adapting). */
  targetMs?: number;
}

/** Items kept at least per transaction, so progress never stops however slow an item is. */
const MIN_ITEMS = 1;
/** Weight of the newest measurement: smooths one slow transaction (GC, a checkpoint) out. */
const SMOOTHING = 0.5;

/**
 * A transaction sizer: `size` is the next transaction's item count; `record` feeds back how long
 * the last one took.
 *
 * @example
 * const sizer = new BatchSizer({ initial: 20, max: 200, targetMs: 10 });
 * const started = performance.now(); await work(sizer.size); sizer.record(sizer.size, performance.now() - started);
 */
export class BatchSizer {
  #size: number;
  #msPerItem: number | undefined;

  constructor(private readonly options: BatchSizerOptions) {
    this.#size = Math.min(options.initial, options.max);
  }

  /** Items for the next transaction. */
  get size(): number {
    return this.#size;
  }

  /** Feeds back a finished transaction: `items` done in `elapsedMs`. */
  record(items: number, elapsedMs: number): void {
    const { targetMs, max } = this.options;
    if (targetMs === undefined || items <= 0 || !(elapsedMs > 0)) return;
    const measured = elapsedMs / items;
    this.#msPerItem = this.#msPerItem === undefined ? measured : SMOOTHING * measured + (1 - SMOOTHING) * this.#msPerItem;
    this.#size = Math.max(MIN_ITEMS, Math.min(max, Math.floor(targetMs / this.#msPerItem)));
  }
}

/** Aimed duration of one embedded pipeline transaction: requests wait at most about this long. */
export const EMBEDDED_TRANSACTION_MS = 10;

/**
 * The sizer for a store: on PGlite adapting to {@link EMBEDDED_TRANSACTION_MS} from a small
 * first size; on Postgres the fixed `max`.
 *
 * @example
 * const sizer = batchSizerFor(db.dialect, 200);
 */
export function batchSizerFor(dialect: SqlDialect, max: number): BatchSizer {
  return dialect === 'pglite'
    ? new BatchSizer({ initial: Math.min(max, 10), max, targetMs: EMBEDDED_TRANSACTION_MS })
    : new BatchSizer({ initial: max, max });
}

/**
 * Lets the event loop run what is waiting (requests, flushes) between two embedded pipeline
 * transactions; a no-op on Postgres. Awaiting a PGlite query alone resolves in microtasks, so
 * back-to-back transactions would otherwise hold the loop for a whole run.
 */
export async function yieldToRequests(dialect: SqlDialect): Promise<void> {
  if (dialect === 'pglite') await nextTurn();
}
