/**
 * One entry point for every format: a prompt group in, the format's rows out, deduplicated and
 * tallied. The server streams groups through it page by page; it holds nothing between groups.
 */
import { anonymizedFeedback } from './anonymized.js';
import type { ExportFormat, ExportOptions, ExportTally } from './export-formats.js';
import { ktoRows } from './kto.js';
import { nliSamples } from './nli.js';
import { openaiPreferenceRow, preferencePairs, trlDpoRow } from './preference.js';
import { eventSignals, responseSignal, rewardPairRow } from './reward.js';
import { openaiChatRow, sftExamples, trlSftRow } from './sft.js';
import type { PromptGroup } from './training-facts.js';

/** A row's dedup key within its prompt group; `null`: the format keeps every row. */
type DedupKey<T> = ((row: T) => string) | null;

/** One row per prompt group: the first is the best (the builders order their rows). */
const ONE_PER_PROMPT = (): string => '';

/** Keeps the first row of each key, counting the others as duplicates. */
function dedupe<T>(rows: T[], key: DedupKey<T>, options: ExportOptions, tally: ExportTally): T[] {
  if (!options.dedup || key === null) return rows;
  const seen = new Set<string>();
  return rows.filter((row) => {
    const k = key(row);
    if (seen.has(k)) {
      tally.excluded.duplicate++;
      return false;
    }
    seen.add(k);
    return true;
  });
}

/** The group without the events lighter than `minWeight` (or not weighed yet). */
function withMinWeight(group: PromptGroup, minWeight: number): PromptGroup {
  return {
    key: group.key,
    responses: group.responses.map((facts) => ({ ...facts, events: facts.events.filter((e) => e.weight !== null && e.weight >= minWeight) })),
  };
}

/** The rows of a group in one format, before dedup, with each format's dedup key. */
function candidateRows(format: ExportFormat, group: PromptGroup, options: ExportOptions, tally: ExportTally): { rows: unknown[]; key: DedupKey<never> } {
  const { excluded } = tally;
  switch (format) {
    case 'openai-chat':
      return { rows: sftExamples(group, excluded).map((e) => openaiChatRow(e, options.system)), key: ONE_PER_PROMPT };
    case 'trl-sft':
      return { rows: sftExamples(group, excluded).map((e) => trlSftRow(e, options.style, options.system)), key: ONE_PER_PROMPT };
    case 'openai-preference':
      return { rows: preferencePairs(group, excluded).map((p) => openaiPreferenceRow(p, options.system)), key: ONE_PER_PROMPT };
    case 'trl-dpo':
      return { rows: preferencePairs(group, excluded).map(trlDpoRow), key: ONE_PER_PROMPT };
    case 'trl-kto':
      return { rows: ktoRows(group, excluded), key: KTO_DEDUP_KEY };
    case 'learning-signals':
      if (options.kind === 'event') return { rows: eventSignals(group), key: null };
      if (options.kind === 'response') return { rows: group.responses.flatMap((f) => responseSignal(f) ?? []), key: null };
      return { rows: preferencePairs(group, excluded).map(rewardPairRow), key: ONE_PER_PROMPT };
    case 'nli': {
      const samples = nliSamples(group, excluded).filter((s) => options.minWeight === undefined || s.weight >= options.minWeight);
      return { rows: samples, key: (s: { premise: string; hypothesis: string; label: string }) => `${s.label}\u0000${s.hypothesis}\u0000${s.premise}` };
    }
    case 'anonymized':
      return { rows: group.responses.flatMap((f) => anonymizedFeedback(f, options.tokenBudget) ?? []), key: null };
  }
}

/** Where a row's feedback came from (issue 22): the counted events of its prompt group by trust. */
export interface RowProvenance {
  /** `verified` when every event is (secret key, or a token naming the user), `unverified` when none is, else `mixed`; `none` without events. */
  trust: 'verified' | 'unverified' | 'mixed' | 'none';
  verifiedEvents: number;
  unverifiedEvents: number;
}

/**
 * The provenance of a group's rows: how many of its events are verified and how many are not.
 *
 * @example
 * groupProvenance(group) // { trust: 'verified', verifiedEvents: 3, unverifiedEvents: 0 }
 */
export function groupProvenance(group: PromptGroup): RowProvenance {
  let verifiedEvents = 0;
  let unverifiedEvents = 0;
  for (const r of group.responses) for (const e of r.events) e.verified === false ? unverifiedEvents++ : verifiedEvents++;
  const trust = verifiedEvents + unverifiedEvents === 0 ? 'none' : unverifiedEvents === 0 ? 'verified' : verifiedEvents === 0 ? 'unverified' : 'mixed';
  return { trust, verifiedEvents, unverifiedEvents };
}

/**
 * The rows of one prompt group in `format`: built, filtered by `minWeight` (events lighter than it
 * are ignored; in `nli` samples lighter than it), deduplicated within the group, and counted in
 * `tally` (rows written, and why others were left out).
 *
 * @example
 * const tally = emptyTally();
 * buildRows('trl-dpo', group, DEFAULT_EXPORT_OPTIONS, tally) // [{ prompt, chosen, rejected, provenance }]
 */
export function buildRows(format: ExportFormat, group: PromptGroup, options: ExportOptions, tally: ExportTally): unknown[] {
  const weighed = options.minWeight === undefined || format === 'nli' ? group : withMinWeight(group, options.minWeight);
  const { rows, key } = candidateRows(format, weighed, options, tally);
  return keepRows(rows, key as DedupKey<unknown>, weighed, options, tally);
}

/**
 * The last steps every builder's candidate rows take: deduplicated by `key` (null: every row
 * kept), counted in `tally`, and each given the provenance of `group`'s feedback. For builders
 * outside {@link buildRows} (a dataset's KTO rows) that must end as its rows do.
 *
 * @example
 * keepRows(rows, (r) => `${r.label}\u0000${r.completion}`, group, options, tally)
 */
export function keepRows<T>(rows: T[], key: ((row: T) => string) | null, group: PromptGroup, options: ExportOptions, tally: ExportTally): unknown[] {
  const kept = dedupe(rows, key, options, tally);
  tally.rows += kept.length;
  if (kept.length === 0) return kept;
  // Every row says where its feedback came from, so a trainer can weigh or drop it (issue 22).
  const provenance = groupProvenance(group);
  return kept.map((row) => (typeof row === 'object' && row !== null ? { ...row, provenance } : row));
}

/** The dedup key of `trl-kto` rows: label and completion within a prompt group. */
export const KTO_DEDUP_KEY = (r: { completion: string; label: boolean }): string => `${r.label}\u0000${r.completion}`;
