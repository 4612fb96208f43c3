/**
 * The training-data export formats, their options and the tally every export keeps of what it
 * wrote and what it left out (see docs/exports.md).
 */

/** Every format `GET /v1/exports/:format` serves; the names are the API's. */
export const EXPORT_FORMATS = ['openai-chat', 'openai-preference', 'trl-sft', 'trl-dpo', 'trl-kto', 'learning-signals', 'nli', 'anonymized'] as const;
/** One of {@link EXPORT_FORMATS}. */
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** TRL's two dataset formats: plain strings, or lists of role/content messages. */
export const TRL_STYLES = ['standard', 'conversational'] as const;
/** The rows `learning-signals` writes: one per event, one per response, or reward-model pairs. */
export const SIGNAL_KINDS = ['event', 'response', 'pair'] as const;

/**
 * The cookbook's limit of one chat fine-tuning example (OpenAI, "Data preparation and analysis for
 * chat model fine-tuning": 16,385 tokens); longer examples are reported by the validator.
 */
export const DEFAULT_MAX_EXAMPLE_TOKENS = 16_385;
/** ADR-016's MAX_TOKENS when the request names no context budget. */
export const DEFAULT_TOKEN_BUDGET = 8_192;

/** How rows are built, beyond which responses are read. */
export interface ExportOptions {
  /** The system message of the chat formats; none when absent. */
  system?: string;
  /** TRL's dataset format for `trl-sft`. */
  style: (typeof TRL_STYLES)[number];
  /** Which rows `learning-signals` writes. */
  kind: (typeof SIGNAL_KINDS)[number];
  /** Keep one row per normalized prompt (and per format's key, see docs/exports.md). */
  dedup: boolean;
  /** Events whose pipeline weight is below this (or not computed yet) are left out; nli compares its sample weight. */
  minWeight?: number;
  /** The context budget `anonymized` divides the context token count by. */
  tokenBudget: number;
}

/** The options of a request that names none. */
export const DEFAULT_EXPORT_OPTIONS: ExportOptions = { style: 'standard', kind: 'event', dedup: true, tokenBudget: DEFAULT_TOKEN_BUDGET };

/** Why candidate rows were not written. */
export interface ExcludedCounts {
  /** A 3-star rating (neither side), or a pair whose two texts are the same. */
  tie: number;
  /** An answer voted both up and down: neither chosen nor rejected, nor an SFT target. */
  contradictory: number;
  /** A row with the same normalized prompt (and key) as one already written. */
  duplicate: number;
  /**
   * `nli`: a label correction whose premise or hypothesis is unknown (its target not registered
   * with its texts, and no texts in the event), left out rather than written blank. Present only
   * once an export met one, so the other formats' reports keep their three counts.
   */
  missingText?: number;
  /**
   * Of `tie`: the pairs (a correction, or a positive and a negative answer) whose two texts are the
   * same once trimmed, so the rest of `tie` is 3-star ratings. Present only once an export met one.
   */
  sameText?: number;
  /**
   * Preference formats: judged answers left without an opposite answer to the same prompt to pair
   * with (a prompt with 9 positive answers and 2 negative ones pairs 2 and leaves 7). Present only
   * once an export met one.
   */
  unpaired?: number;
  /**
   * Preference formats: pairs of `preference` events (a user's, a reviewer's or a judge's "which
   * answer is better") left without a line: every vote a tie (`tieVotes`), as many votes for each
   * side (`noMajority`), or the other response not in the same prompt group (`otherPrompt`: the
   * two answer different queries). Present only once an export met one.
   */
  preferenceTie?: number;
  preferenceNoMajority?: number;
  preferenceOtherPrompt?: number;
}

/** What an export wrote and left out. */
export interface ExportTally {
  rows: number;
  excluded: ExcludedCounts;
}

/**
 * A fresh tally.
 *
 * @example
 * const tally = emptyTally(); for (const row of buildRows(...)) tally.rows++;
 */
export function emptyTally(): ExportTally {
  return { rows: 0, excluded: { tie: 0, contradictory: 0, duplicate: 0 } };
}

/**
 * Tells whether a string names an export format.
 *
 * @example
 * isExportFormat('trl-dpo') // true
 */
export function isExportFormat(value: string): value is ExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(value);
}
