/**
 * Why an export wrote fewer rows than it read: its exclusion counts turned into reasons a reader
 * can act on, split into rows dropped as duplicates of a written row and candidates left out for
 * what they are (issue 23: "5 DPO rows from 266 corrections" must say how many and why).
 */
import type { ExcludedCounts, ExportFormat, ExportOptions } from './export-formats.js';

/** Why rows were dropped as duplicates: each format's dedup key (build-rows.ts). */
export const DEDUP_REASONS = {
  /** One row per normalized prompt: the first (best) row of a prompt is kept. */
  samePrompt: 'a row for the same normalized prompt was already written (one row per prompt; dedup=false keeps them)',
  /** trl-kto: one row per prompt, answer and label. */
  sameAnswerAndLabel: 'the same answer with the same label for the same prompt was already written (dedup=false keeps them)',
  /** nli: one row per premise, hypothesis and label. */
  sameSample: 'the same premise, hypothesis and label was already written (dedup=false keeps them)',
} as const;

/** Why candidates were left out. */
export const LEFT_OUT_REASONS = {
  neutralRating: 'answers judged only by a 3-star rating: neither good nor bad',
  sameText: 'pairs whose two texts are the same (a correction that changed nothing, or a good and a bad answer with one text)',
  contradictory: 'answers voted both up and down',
  unpaired: 'judged answers with no opposite answer to the same prompt to pair with',
  missingText: 'label corrections whose premise or hypothesis is unknown',
} as const;

/** Counts by reason; a reason with nothing to count is absent. */
export type ReasonCounts<R extends string> = Partial<Record<R, number>>;

/** The dedup reason of a format's rows, or null when the format keeps every row. */
function dedupReason(format: ExportFormat, options: Pick<ExportOptions, 'kind'>): keyof typeof DEDUP_REASONS | null {
  if (format === 'trl-kto') return 'sameAnswerAndLabel';
  if (format === 'nli') return 'sameSample';
  if (format === 'anonymized' || (format === 'learning-signals' && options.kind !== 'pair')) return null;
  return 'samePrompt';
}

const positive = <R extends string>(counts: Record<R, number>): ReasonCounts<R> =>
  Object.fromEntries(Object.entries(counts).filter(([, n]) => (n as number) > 0)) as ReasonCounts<R>;

/**
 * An export's exclusions by reason: `deduplicated` (rows like one already written) and `leftOut`
 * (candidates that make no row). Only reasons that occurred are present.
 *
 * @example
 * exclusionReasons('trl-dpo', { kind: 'event' }, { tie: 9, contradictory: 0, duplicate: 258, sameText: 7, unpaired: 40 })
 * // { deduplicated: { samePrompt: 258 }, leftOut: { neutralRating: 2, sameText: 7, unpaired: 40 } }
 */
export function exclusionReasons(
  format: ExportFormat,
  options: Pick<ExportOptions, 'kind'>,
  excluded: ExcludedCounts,
): { deduplicated: ReasonCounts<keyof typeof DEDUP_REASONS>; leftOut: ReasonCounts<keyof typeof LEFT_OUT_REASONS> } {
  const reason = dedupReason(format, options);
  const sameText = excluded.sameText ?? 0;
  return {
    deduplicated: reason === null ? {} : positive({ [reason]: excluded.duplicate } as Record<keyof typeof DEDUP_REASONS, number>),
    leftOut: positive({
      neutralRating: excluded.tie - sameText,
      sameText,
      contradictory: excluded.contradictory,
      unpaired: excluded.unpaired ?? 0,
      missingText: excluded.missingText ?? 0,
    }),
  };
}
