/**
 * Sizes the pipeline's transactions. Embedded, PGlite has one connection: while a pipeline
 * transaction holds it, every ingest flush waits (a 450 ms rescore transaction became every
 * request's p99). But a transaction has a fixed cost of a dozen statements, so cutting all of them
 * short starves processing: sized to ~10 ms each, a backlog drained at 17-140 events a second.
 * The sizer therefore aims each transaction at a duration, from a cost model learnt from the last
 * ones (a fixed part plus a part per item): a short one while others want the connection, a longer
 * one while it is free, and never so short that the fixed part is most of it. On Postgres the
 * statements run in a pool of connections: a fixed size is kept.
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

/** A job's items take at most about this many transactions ({@link BatchSizer.sizeFor}). */
const CATCH_UP_TRANSACTIONS = 4;
/** Items kept at least per transaction, so progress never stops however slow an item is. */
const MIN_ITEMS = 1;
/** How much the oldest measurements still count after each new one (exponential forgetting). */
const MEMORY = 0.8;
/**
 * A transaction is aimed at least at this many times its fixed cost, so the fixed cost is at most
 * a quarter of it: aiming below the fixed cost gave one item a transaction, all of it overhead.
 */
const AMORTIZE = 4;

/**
 * What a transaction costs, learnt from the last ones: `fixedMs + perItemMs × items`. Fitted by
 * least squares with exponential forgetting.
 */
export interface CostModel {
  fixedMs: number;
  perItemMs: number;
}

/**
 * A transaction sizer: `size` is the next transaction's item count; `record` feeds back how long
 * the last one took. A transaction costs a fixed part (a dozen statements to plan and run, however
 * few rows) plus a part per item; the sizer learns both, so it neither mistakes the fixed part for
 * a per-item cost (which sized every transaction to one item, all overhead) nor lets the fixed
 * part dominate. Until the sizes seen differ enough to tell the parts apart, it doubles the size.
 *
 * @example
 * const sizer = new BatchSizer({ initial: 20, max: 200, targetMs: 10 });
 * const started = performance.now(); await work(sizer.size); sizer.record(sizer.size, performance.now() - started);
 */
export class BatchSizer {
  #size: number;
  #model: CostModel | undefined;
  /** Decayed sums of the measurements: weight, items, ms, items², items × ms. */
  #w = 0;
  #x = 0;
  #y = 0;
  #xx = 0;
  #xy = 0;

  constructor(private readonly options: BatchSizerOptions) {
    this.#size = Math.min(options.initial, options.max);
  }

  /** Items for the next transaction: aimed at `idleTargetMs` while nobody else wants the database, else at `targetMs`. */
  get size(): number {
    const { contended, targetMs, idleTargetMs, max } = this.options;
    if (targetMs === undefined || this.#w === 0) return this.#size;
    const model = this.#model;
    if (model === undefined) return Math.max(MIN_ITEMS, Math.min(max, this.#size * 2));
    const wanted = idleTargetMs !== undefined && contended && !contended() ? idleTargetMs : targetMs;
    const aim = Math.max(wanted, AMORTIZE * model.fixedMs);
    return Math.max(MIN_ITEMS, Math.min(max, Math.floor((aim - model.fixedMs) / model.perItemMs)));
  }

  /**
   * Items for the next transaction of a job with `remaining` items left: {@link size}, but at
   * least a {@link CATCH_UP_TRANSACTIONS}th of what is left (up to `max`). A job with a backlog
   * (events that gathered while processing waited) then ends in a few transactions, not in dozens
   * of 10 ms ones each waiting its turn behind a rollup's page or a rescore: that way the backlog
   * of a busy minute's upkeep took seconds to clear, and the live counters fell behind
   * (docs/benchmarks.md, "Eleventh session"). A job of a few events is sized as before.
   *
   * @example
   * sizer.sizeFor(500) // 125 when size is 13 and max 200
   */
  sizeFor(remaining: number): number {
    return Math.max(this.size, Math.min(this.options.max, Math.ceil(remaining / CATCH_UP_TRANSACTIONS)));
  }

  /** The cost model learnt so far, if the sizes seen could tell its parts apart (tests, diagnostics). */
  get model(): CostModel | undefined {
    return this.#model;
  }

  /** Feeds back a finished transaction: `items` done in `elapsedMs`. */
  record(items: number, elapsedMs: number): void {
    if (this.options.targetMs === undefined || items <= 0 || !(elapsedMs > 0)) return;
    this.#w = this.#w * MEMORY + 1;
    this.#x = this.#x * MEMORY + items;
    this.#y = this.#y * MEMORY + elapsedMs;
    this.#xx = this.#xx * MEMORY + items * items;
    this.#xy = this.#xy * MEMORY + items * elapsedMs;
    this.#size = items;
    this.#model = this.fitted() ?? this.rescaled();
  }

  /**
   * While the recent sizes are alike (say all at `max`), the last model with its per-item part
   * rescaled to the recent costs: a model learnt once would otherwise never see the costs change.
   */
  private rescaled(): CostModel | undefined {
    if (this.#model === undefined) return undefined;
    const mx = this.#x / this.#w;
    const my = this.#y / this.#w;
    const fixedMs = Math.min(this.#model.fixedMs, my / 2);
    return { fixedMs, perItemMs: (my - fixedMs) / mx };
  }

  /**
   * Least squares over the decayed sums; undefined while the sizes are too alike to separate a
   * fixed part (within ~10 % of each other) or no cost grows with the items yet.
   */
  private fitted(): CostModel | undefined {
    const mx = this.#x / this.#w;
    const my = this.#y / this.#w;
    const variance = this.#xx / this.#w - mx * mx;
    if (variance <= (0.1 * mx) ** 2) return undefined;
    const slope = (this.#xy / this.#w - mx * my) / variance;
    if (!(slope > 0)) return undefined;
    const fixedMs = my - slope * mx;
    // A negative intercept is noise: the slope through the mean is then the whole cost per item.
    return fixedMs > 0 ? { fixedMs, perItemMs: slope } : { fixedMs: 0, perItemMs: my / mx };
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
