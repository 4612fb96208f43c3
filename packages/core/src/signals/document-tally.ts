/**
 * ADR-016 `updateContextEffectiveness`: how the signals on responses reflect on the context
 * documents those responses were built from. A batch of signals is folded into one tally per
 * document, which the server adds onto the stored totals in a single upsert per document.
 *
 * @module
 */
import type { Polarity } from './signal-types.js';

/** One document's share of a batch of signals (or, once stored, of all signals so far). */
export interface DocumentTally {
  documentId: string;
  /** Signals of each polarity on responses that used this document. */
  positive: number;
  negative: number;
  neutral: number;
  /** Sum of weight · value over those signals; divided by {@link DocumentTally.weight} it is the document's effectiveness. */
  weightedValue: number;
  /** Sum of the signals' weights. */
  weight: number;
  /** Error category → negative signals naming it, on responses that used this document. */
  errorCategoryCounts: Record<string, number>;
}

/** One classified, weighed signal together with its response's context documents. */
export interface DocumentSignal {
  /** The response's context document ids; repeats count once. */
  documentIds: readonly string[];
  polarity: Polarity;
  /** The signal's value in [-1, 1]. */
  value: number;
  /** The signal's weight (0 for signals that carry none, e.g. a comment). */
  weight: number;
  /** The signal's error categories; counted on negative signals only. */
  categories: readonly string[];
}

/** A tally while it is being built: categories in a Map so any category name is safe as a key. */
interface OpenTally {
  positive: number;
  negative: number;
  neutral: number;
  weightedValue: number;
  weight: number;
  categories: Map<string, number>;
}

/**
 * Folds a batch of signals into one tally per context document. Every distinct document of a
 * signal's response gets +1 in the signal's polarity, `weight · value` in `weightedValue` and
 * `weight` in `weight`; a negative signal also adds 1 to each of its (distinct) categories.
 * Repeated ids within one response count once, so listing a document twice does not double its
 * say. Sorted by `documentId` (code-unit order): the adapter upserts in this order, and since
 * every transaction takes the row locks in the same order, two concurrent batches never deadlock.
 *
 * @example
 * documentTallies([
 *   { documentIds: ['d2', 'd1', 'd1'], polarity: 'negative', value: -1, weight: 0.5, categories: ['wrong_context'] },
 *   { documentIds: ['d1'], polarity: 'positive', value: 1, weight: 1, categories: [] },
 * ])
 * // [{ documentId: 'd1', positive: 1, negative: 1, neutral: 0, weightedValue: 0.5, weight: 1.5, errorCategoryCounts: { wrong_context: 1 } },
 * //  { documentId: 'd2', positive: 0, negative: 1, neutral: 0, weightedValue: -0.5, weight: 0.5, errorCategoryCounts: { wrong_context: 1 } }]
 */
export function documentTallies(items: ReadonlyArray<DocumentSignal>): DocumentTally[] {
  const open = new Map<string, OpenTally>();
  for (const item of items) {
    const categories = item.polarity === 'negative' ? new Set(item.categories) : new Set<string>();
    for (const documentId of new Set(item.documentIds)) {
      let tally = open.get(documentId);
      if (tally === undefined) {
        tally = { positive: 0, negative: 0, neutral: 0, weightedValue: 0, weight: 0, categories: new Map() };
        open.set(documentId, tally);
      }
      tally[item.polarity] += 1;
      tally.weightedValue += item.weight * item.value;
      tally.weight += item.weight;
      for (const category of categories) tally.categories.set(category, (tally.categories.get(category) ?? 0) + 1);
    }
  }
  return [...open]
    .sort(([a], [b]) => compareCodeUnits(a, b))
    .map(([documentId, t]) => ({
      documentId,
      positive: t.positive,
      negative: t.negative,
      neutral: t.neutral,
      weightedValue: t.weightedValue,
      weight: t.weight,
      errorCategoryCounts: Object.fromEntries([...t.categories].sort(([a], [b]) => compareCodeUnits(a, b))),
    }));
}

/**
 * A document's effectiveness: the weighted mean value, in [-1, 1], of the signals on responses
 * that used it. `null` when no weight stands behind it (no signals, or only weightless ones):
 * "no evidence" must not read as a neutral 0.
 *
 * @example
 * effectiveness({ weightedValue: 0.5, weight: 2 }) // 0.25
 * effectiveness({ weightedValue: 0, weight: 0 }) // null
 */
export function effectiveness(t: Pick<DocumentTally, 'weightedValue' | 'weight'>): number | null {
  return t.weight === 0 ? null : t.weightedValue / t.weight;
}

/** Plain code-unit order, independent of locale, so every process sorts ids identically. */
function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
