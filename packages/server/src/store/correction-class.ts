/**
 * A correction's classification (core's classifyCorrection: SQL clause changes or text edit
 * kinds) as the pipeline stores it in `feedback_signals.correction` (migration 0021) and the
 * insights report reads it back. Classifying costs about 1-2 ms for a short SQL correction (two
 * parses and the clauses printed back) and up to about 100 ms for one of 10,000 characters: paid
 * once when the event is processed rather than on every report.
 *
 * The texts are the report's: `original` (else the response's answer) and `corrected`, each cut
 * at {@link CORRECTION_TEXT_CHARS} characters, so a stored classification is the one the report
 * would compute from what it reads.
 */
import { createHash } from 'node:crypto';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { classifyCorrection, isSqlCorrection, loadSqlGrammars, type ClassifiedCorrection, type CorrectionText, type SqlGrammars } from '@feedloop/core';

/**
 * The classifier's version in each stored classification. Raise it when core's classification
 * changes: stored ones of another version are then classified again by the report (and cached in
 * its process) instead of being read.
 */
export const CORRECTION_CLASS_VERSION = 1;
/** Characters of a correction's texts classified (longer texts are compared on their start). */
export const CORRECTION_TEXT_CHARS = 10_000;
/** Classification work between two yields to the event loop, so other requests are served meanwhile. */
const SLICE_MS = 10;

/** A classification as stored (`feedback_signals.correction`), without its event id. */
export interface StoredCorrectionClass {
  v: number;
  format: ClassifiedCorrection['format'];
  parsed: boolean;
  kinds: ClassifiedCorrection['kinds'];
  tables: string[];
}

/**
 * The first `chars` characters of a text, counted in code points as Postgres' `left()` counts
 * them (a UTF-16 slice could split a surrogate pair, and would cut longer texts elsewhere than the
 * report's read does).
 *
 * @example
 * cutText('a😀b', 2) // 'a😀'
 */
export function cutText(text: string, chars = CORRECTION_TEXT_CHARS): string {
  // Every code point is 1-2 UTF-16 units: a text of at most `chars` units needs no counting.
  if (text.length <= chars) return text;
  let units = 0;
  let points = 0;
  while (units < text.length && points < chars) {
    const code = text.codePointAt(units) ?? 0;
    units += code > 0xffff ? 2 : 1;
    points++;
  }
  return text.slice(0, units);
}

/**
 * The stored form of a classification.
 *
 * @example
 * toStoredClass(classifyCorrection(c, sql)) // { v: 1, format: 'sql', parsed: true, kinds: ['filter_added'], tables: ['sales'] }
 */
export function toStoredClass(c: ClassifiedCorrection): StoredCorrectionClass {
  return { v: CORRECTION_CLASS_VERSION, format: c.format, parsed: c.parsed, kinds: c.kinds, tables: c.tables };
}

/**
 * A stored classification back as core's {@link ClassifiedCorrection} of an event.
 *
 * @example
 * fromStoredClass('e1', { v: 1, format: 'text', parsed: false, kinds: ['shortened'], tables: [] })
 */
export function fromStoredClass(eventId: string, s: StoredCorrectionClass): ClassifiedCorrection {
  return { eventId, format: s.format, parsed: s.parsed, kinds: s.kinds, tables: s.tables };
}

/**
 * Classifies corrections (texts already cut as the report reads them), yielding to the event
 * loop every few milliseconds of work. The SQL grammars are loaded only when one of them is SQL.
 * A correction whose classification throws gets `null` (the report then classifies it itself).
 *
 * @example
 * const [cls] = await classifyCorrections([{ eventId: 'e1', original: 'SELECT 1', corrected: 'SELECT 2', format: 'sql' }]);
 */
export async function classifyCorrections(corrections: readonly CorrectionText[]): Promise<Array<ClassifiedCorrection | null>> {
  const out: Array<ClassifiedCorrection | null> = [];
  let sql: SqlGrammars = [];
  if (corrections.some((c) => isSqlCorrection(c))) sql = await loadSqlGrammars();
  let sliceStart = performance.now();
  for (const c of corrections) {
    if (performance.now() - sliceStart > SLICE_MS) {
      await yieldToEventLoop();
      sliceStart = performance.now();
    }
    try {
      out.push(classifyCorrection(c, sql));
    } catch {
      out.push(null);
    }
  }
  return out;
}

/**
 * Classifications by the texts they were computed from, least recently used dropped first: the
 * report's fallback for corrections with no stored classification (processed before migration
 * 0020, or not processed yet) classifies each text once per process. Keyed by a hash of the
 * format and both texts, so it is never stale (a classification depends on nothing else) and
 * identical corrections share an entry.
 */
export class CorrectionClassCache {
  readonly #entries = new Map<string, StoredCorrectionClass>();
  readonly #capacity: number;

  /** @param capacity entries kept at most (each a few hundred bytes). */
  constructor(capacity = 20_000) {
    this.#capacity = capacity;
  }

  /** Entries held. */
  get size(): number {
    return this.#entries.size;
  }

  /** Whether a correction's texts and format are held. */
  has(c: CorrectionText): boolean {
    return this.#entries.has(keyOf(c));
  }

  /**
   * Classifies the corrections, each text once: cached ones are read, the others classified
   * (with yields, see {@link classifyCorrections}) and kept.
   *
   * @example
   * const classified = await cache.classify(corrections); // same order as given
   */
  async classify(corrections: readonly CorrectionText[]): Promise<ClassifiedCorrection[]> {
    const keys = corrections.map(keyOf);
    const missing = new Map<string, CorrectionText>();
    for (const [i, key] of keys.entries()) if (!this.#entries.has(key) && !missing.has(key)) missing.set(key, corrections[i] as CorrectionText);
    const fresh = await classifyCorrections([...missing.values()]);
    const computed = new Map<string, StoredCorrectionClass>();
    for (const [i, [key, c]] of [...missing].entries()) {
      const cls = fresh[i];
      if (cls) {
        computed.set(key, toStoredClass(cls));
        this.#remember(key, toStoredClass(cls));
      } else {
        // One that threw is reported without kinds, like an unchanged one, and not kept.
        computed.set(key, { v: CORRECTION_CLASS_VERSION, format: isSqlCorrection(c) ? 'sql' : 'text', parsed: false, kinds: [], tables: [] });
      }
    }
    return corrections.map((c, i) => {
      const key = keys[i] as string;
      const kept = this.#entries.get(key);
      if (kept) this.#remember(key, kept);
      return fromStoredClass(c.eventId, kept ?? (computed.get(key) as StoredCorrectionClass));
    });
  }

  #remember(key: string, value: StoredCorrectionClass): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    while (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }
}

/** The hash of the format and both texts; the original's length first, so no two pairs of texts give one input. */
function keyOf(c: CorrectionText): string {
  return createHash('sha256').update(`${c.format ?? ''}\u0000${c.original.length}\u0000${c.original}${c.corrected}`).digest('base64');
}
