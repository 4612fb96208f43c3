/**
 * Sizes the pipeline's transactions. Embedded, PGlite has one connection: while a pipeline
 * transaction holds it, every ingest flush waits (a 450 ms rescore transaction became every
 * request's p99). But a transaction has a fixed cost of a dozen statements, so cutting all of them
 * short starves processing: sized to ~10 ms each, a backlog drained at 17-140 events a second.
 * The sizer therefore aims each transaction at a duration, learnt from the last ones: a short one
 * while others want the connection, a longer one while it is free. On Postgres the statements run
 * in a pool of connections: a fixed size is kept.
 */
import type { SqlClient } from '../db/sql-client.js';

/** How a sizer starts and what it aims at. */
export interface BatchSizerOptions {
  /** The size of the first transaction. */
  initial: number;
  /** The largest size it ever gives. */
  max: number;
  /** Aimed duration of one transaction in ms while others want the database; `undefined` keeps `initial` (no adapting). */
  targetMs?: number;
  /** Aimed duration while nobody else wants the database (default `targetMs`). */
  idleTargetMs?: number;
  /** Whether others want the database now; without it, always aims at `targetMs`. */
  contended?: () => boolean;
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

  /** Items for the next transaction: aimed at `idleTargetMs` while nobody else wants the database, else at `targetMs`. */
  get size(): number {
    const { contended, targetMs, idleTargetMs, max } = this.options;
    if (targetMs === undefined || this.#msPerItem === undefined) return this.#size;
    const aim = idleTargetMs !== undefined && contended && !contended() ? idleTargetMs : targetMs;
    return Math.max(MIN_ITEMS, Math.min(max, Math.floor(aim / this.#msPerItem)));
  }

  /** Feeds back a finished transaction: `items` done in `elapsedMs`. */
  record(items: number, elapsedMs: number): void {
    if (this.options.targetMs === undefined || items <= 0 || !(elapsedMs > 0)) return;
    const measured = elapsedMs / items;
    this.#msPerItem = this.#msPerItem === undefined ? measured : SMOOTHING * measured + (1 - SMOOTHING) * this.#msPerItem;
  }
}

/** Aimed duration of one embedded pipeline transaction while requests want the database: what a request waits at most for it. */
export const EMBEDDED_TRANSACTION_MS = 10;
/**
 * Aimed duration while the database is free: long enough that a transaction's fixed dozen
 * statements cost little per event, short enough that a request arriving meanwhile waits little.
 */
export const EMBEDDED_IDLE_TRANSACTION_MS = 100;

/**
 * The sizer for a store: on PGlite aiming at {@link EMBEDDED_IDLE_TRANSACTION_MS} while the
 * connection is free and {@link EMBEDDED_TRANSACTION_MS} while others want it; on Postgres the
 * fixed `max`.
 *
 * @example
 * const sizer = batchSizerFor(db, 200);
 */
export function batchSizerFor(db: Pick<SqlClient, 'dialect' | 'inFlight'>, max: number): BatchSizer {
  if (db.dialect !== 'pglite') return new BatchSizer({ initial: max, max });
  const inFlight = db.inFlight?.bind(db);
  return new BatchSizer({
    initial: Math.min(max, 10),
    max,
    targetMs: EMBEDDED_TRANSACTION_MS,
    idleTargetMs: EMBEDDED_IDLE_TRANSACTION_MS,
    ...(inFlight ? { contended: () => inFlight() > 0 } : {}),
  });
}
