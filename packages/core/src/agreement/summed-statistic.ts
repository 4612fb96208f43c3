/**
 * The shape every agreement statistic takes so that it can be bootstrapped cheaply: a function of
 * the sum of small per-unit vectors (a contingency table, a coincidence matrix, sums of values
 * and squares). Resampling units then only re-adds rows; nothing is re-sorted or re-grouped per
 * resample, which keeps 1,000 resamples of 10,000 items within tens of milliseconds.
 *
 * @module
 */

/**
 * Per-unit contributions as sparse rows, plus the statistic computed from their sum. Units with
 * identical rows share one pattern (a kappa over 10,000 items has at most k² patterns), so a
 * resample adds each pattern once, times its multiplicity.
 */
export interface SummedStatistic {
  /** Length of the totals vector `finish` reads. */
  readonly size: number;
  /**
   * The pattern of each unit (length units); a unit that does not count has the spare pattern
   * number `offsets.length - 1`, which has no entries (so the resampling loop needs no branch).
   */
  readonly patternOf: Uint32Array;
  /** Pattern row starts: pattern p owns entries offsets[p] .. offsets[p + 1] - 1. */
  readonly offsets: Uint32Array;
  /** The totals cell each entry adds to. */
  readonly cells: Uint32Array;
  /** The amount each entry adds. */
  readonly values: Float64Array;
  /**
   * The same rows by column, one value per unit (0 for a unit that does not count), kept when
   * size is small: a resample then sums each column in one sequential pass.
   */
  readonly columns: readonly Float64Array[] | null;
  /** The statistic from totals (each drawn unit's row added once per draw); null when undefined. */
  finish(totals: Float64Array): number | null;
}

// Statistics this narrow (alpha's interval sums, percent agreement) are summed column by column:
// a sequential pass with the running sum in a register beats scattering into totals per unit.
const COLUMN_LIMIT = 8;

/** One unit's contribution: pairs of [cell, amount]; an empty row means the unit does not count. */
export type UnitRow = ReadonlyArray<readonly [number, number]>;

/**
 * Packs per-unit rows into a {@link SummedStatistic}.
 *
 * @example
 * // percent of units whose two labels agree: totals [agreeing, units]
 * summedStatistic(2, [[[0, 1], [1, 1]], [[1, 1]]], (t) => (t[1] ? t[0] / t[1] : null));
 */
export function summedStatistic(size: number, rows: readonly UnitRow[], finish: (totals: Float64Array) => number | null): SummedStatistic {
  const none = new Set<number>();
  const patternOf = new Uint32Array(rows.length);
  const patterns = new PatternTrie();
  const patternRows: UnitRow[] = [];
  // Identical rows share a pattern while that pays (few distinct rows, as in a kappa's table);
  // once distinct rows pass a quarter of the units, the rest get a pattern each without a key, so
  // building 10,000 unique rows (interval alpha) does not build 10,000 keys.
  const dedupeUpTo = Math.max(64, rows.length / 4);
  rows.forEach((row, unit) => {
    if (row.length === 0) {
      none.add(unit);
      return;
    }
    for (const [cell] of row) if (!(Number.isInteger(cell) && cell >= 0 && cell < size)) throw new RangeError(`cell ${cell} is outside 0..${size - 1}`);
    let pattern: number | undefined;
    if (patternRows.length <= dedupeUpTo) {
      pattern = patterns.find(row, patternRows.length);
      if (pattern === patternRows.length) patternRows.push(row);
    } else {
      pattern = patternRows.length;
      patternRows.push(row);
    }
    patternOf[unit] = pattern;
  });
  let entries = 0;
  for (const row of patternRows) entries += row.length;
  const offsets = new Uint32Array(patternRows.length + 1);
  const cells = new Uint32Array(entries);
  const values = new Float64Array(entries);
  let at = 0;
  patternRows.forEach((row, pattern) => {
    offsets[pattern] = at;
    for (const [cell, value] of row) {
      cells[at] = cell;
      values[at] = value;
      at += 1;
    }
  });
  offsets[patternRows.length] = at;
  for (const unit of none) patternOf[unit] = patternRows.length;
  let columns: Float64Array[] | null = null;
  if (size <= COLUMN_LIMIT) {
    const byColumn = Array.from({ length: size }, () => new Float64Array(rows.length));
    rows.forEach((row, unit) => {
      for (const [cell, value] of row) byColumn[cell]![unit]! += value;
    });
    columns = byColumn;
  }
  return { size, patternOf, offsets, cells, values, columns, finish };
}

// Rows → pattern numbers without building string keys (turning 10,000 fractions into text was
// most of the cost of building a statistic): a trie over the row's cells and values, by number.
class PatternTrie {
  readonly #root = new Map<number, PatternTrieNode>();

  /** The pattern of `row`, or `next` (recorded as its pattern) when the row is new. */
  find(row: UnitRow, next: number): number {
    let level = this.#root;
    let node: PatternTrieNode | undefined;
    for (const [cell, value] of row) {
      node = step(level, cell);
      node = step(node.next, value);
      level = node.next;
    }
    node!.pattern ??= next;
    return node!.pattern;
  }
}

interface PatternTrieNode {
  next: Map<number, PatternTrieNode>;
  pattern?: number;
}

function step(level: Map<number, PatternTrieNode>, key: number): PatternTrieNode {
  let node = level.get(key);
  if (!node) level.set(key, (node = { next: new Map() }));
  return node;
}

/** Number of units in a statistic (counted or not). */
export function unitCount(statistic: SummedStatistic): number {
  return statistic.patternOf.length;
}

/** Number of units that contribute (non-empty rows): the statistic's n. */
export function contributingUnits(statistic: SummedStatistic): number {
  const spare = statistic.offsets.length - 1;
  let n = 0;
  for (const pattern of statistic.patternOf) if (pattern !== spare) n += 1;
  return n;
}

/**
 * Adds each unit's row `counts[u]` times into `totals` (every unit once when `counts` is omitted)
 * and returns `totals`. `scratch` (patterns + 1 slots) saves an allocation per call.
 */
export function accumulate(statistic: SummedStatistic, totals: Float64Array, counts?: Uint32Array, scratch?: Float64Array): Float64Array {
  const { patternOf, offsets, cells, values, columns } = statistic;
  const patterns = offsets.length - 1;
  const units = patternOf.length;
  if (patterns * 4 < units || !columns) {
    // Count draws per pattern, then add each pattern once: cheap when there are few distinct
    // rows (a kappa's k² cells). Units that do not count land in the spare last slot.
    const multiplicity = scratch ?? new Float64Array(patterns + 1);
    multiplicity.fill(0);
    if (counts) for (let u = 0; u < units; u += 1) multiplicity[patternOf[u]!]! += counts[u]!;
    else for (let u = 0; u < units; u += 1) multiplicity[patternOf[u]!]! += 1;
    return addPatterns(statistic, totals, multiplicity);
  }
  totals.fill(0);
  for (let c = 0; c < columns.length; c += 1) {
    const column = columns[c]!;
    let sum = 0;
    if (counts) for (let u = 0; u < units; u += 1) sum += counts[u]! * column[u]!;
    else for (let u = 0; u < units; u += 1) sum += column[u]!;
    totals[c] = sum;
  }
  return totals;
}

/** Whether a statistic has few distinct rows (patterns), so that counting draws per pattern pays. */
export function isCompressed(statistic: SummedStatistic): boolean {
  return (statistic.offsets.length - 1) * 4 < statistic.patternOf.length || !statistic.columns;
}

/**
 * Sets `totals` to the sum of each pattern's row times its multiplicity (the spare last slot of
 * `multiplicity`, units that do not count, is ignored) and returns it.
 */
export function addPatterns(statistic: SummedStatistic, totals: Float64Array, multiplicity: Float64Array): Float64Array {
  const { offsets, cells, values } = statistic;
  totals.fill(0);
  for (let p = 0; p < offsets.length - 1; p += 1) {
    const w = multiplicity[p]!;
    if (w === 0) continue;
    for (let e = offsets[p]!; e < offsets[p + 1]!; e += 1) totals[cells[e]!]! += w * values[e]!;
  }
  return totals;
}

/** The statistic on the sample as it is (every unit once). */
export function evaluate(statistic: SummedStatistic): number | null {
  return statistic.finish(accumulate(statistic, new Float64Array(statistic.size)));
}
