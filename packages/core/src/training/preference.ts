/**
 * Preference pairs: for one prompt, an answer to prefer and one to avoid. From corrections (the
 * fixed text over the text it fixed), and from the Phase 4.1 contrast pairs: a positively judged
 * answer over a negatively judged one to the same normalized prompt, reviewed answers first.
 */
import type { ExcludedCounts } from './export-formats.js';
import { promptMessages, type ChatMessage } from './sft.js';
import { votedPairs } from './preference-votes.js';
import { corrections, judgedResponses, sameText, type PromptGroup, type ResponseRecord } from './training-facts.js';

/**
 * Where a pair comes from: a correction, two reviewed answers, a positive and a negative answer
 * (contrast), or `preference` events' majority (a user's, a reviewer's or a judge's choice).
 */
export type PairSource = 'correction' | 'review' | 'contrast' | 'preference';

/** One preference pair before it is written in a format. */
export interface PreferencePair {
  prompt: string;
  chosen: string;
  rejected: string;
  source: PairSource;
  /** The composite scores of the two responses, when both sides are scored answers. */
  chosenScore: number | null;
  rejectedScore: number | null;
}

function reviewed(facts: ResponseRecord): boolean {
  return facts.events.some((e) => e.type === 'review');
}

/** Reviewed answers first, then by score (`direction` 1: high first, -1: low first), then id. */
function contrastOrder(direction: 1 | -1) {
  return (a: ResponseRecord, b: ResponseRecord): number =>
    Number(reviewed(b)) - Number(reviewed(a)) ||
    direction * ((b.response.score ?? -direction * Infinity) - (a.response.score ?? -direction * Infinity)) ||
    (a.response.id < b.response.id ? -1 : 1);
}

/** A pair of one text twice: a tie (as before), and counted apart so a report can say which kind. */
function countSameText(excluded: ExcludedCounts): void {
  excluded.tie++;
  excluded.sameText = (excluded.sameText ?? 0) + 1;
}

/**
 * The preference pairs of a prompt group, best first: the pairs `preference` events chose by
 * majority (reviewed ones first), then one per correction (newest first), then the
 * contrast pairs, each positive answer paired with one negative answer (the best with the worst).
 * Contradictory answers, 3-star-only answers and pairs of the same text are counted in `excluded`
 * (the same-text pairs also in `sameText`), and judged answers left without a partner in `unpaired`.
 *
 * @example
 * preferencePairs(group, tally.excluded)
 * // [{ prompt: 'sales?', chosen: "SELECT … WHERE region = 'US'", rejected: 'SELECT * FROM sales', source: 'correction', … }]
 */
export function preferencePairs(group: PromptGroup, excluded: ExcludedCounts): PreferencePair[] {
  // Stated preferences first: someone compared these two answers side by side (preference-votes.ts).
  const pairs: PreferencePair[] = votedPairs(group, excluded);
  for (const facts of group.responses) {
    for (const c of corrections(facts)) {
      if (sameText(c.corrected, c.original)) countSameText(excluded);
      else pairs.push({ prompt: facts.response.query, chosen: c.corrected, rejected: c.original, source: 'correction', chosenScore: null, rejectedScore: null });
    }
  }
  const { positives, negatives } = judgedResponses(group, excluded);
  positives.sort(contrastOrder(1));
  negatives.sort(contrastOrder(-1));
  const count = Math.min(positives.length, negatives.length);
  const unpaired = positives.length + negatives.length - 2 * count;
  if (unpaired > 0) excluded.unpaired = (excluded.unpaired ?? 0) + unpaired;
  for (let i = 0; i < count; i++) {
    const good = positives[i] as ResponseRecord;
    const bad = negatives[i] as ResponseRecord;
    if (sameText(good.response.answer, bad.response.answer)) {
      countSameText(excluded);
      continue;
    }
    pairs.push({
      prompt: good.response.query,
      chosen: good.response.answer,
      rejected: bad.response.answer,
      source: reviewed(good) && reviewed(bad) ? 'review' : 'contrast',
      chosenScore: good.response.score,
      rejectedScore: bad.response.score,
    });
  }
  return pairs;
}

/** An `openai-preference` row: OpenAI's preference (DPO) fine-tuning line. */
export interface OpenAiPreferenceRow {
  input: { messages: ChatMessage[] };
  preferred_output: [{ role: 'assistant'; content: string }];
  non_preferred_output: [{ role: 'assistant'; content: string }];
}

/**
 * A pair as OpenAI's preference fine-tuning line: `input.messages` ending with the user's prompt,
 * one assistant message each in `preferred_output` and `non_preferred_output`.
 *
 * @example
 * openaiPreferenceRow(pair, undefined)
 * // { input: { messages: [{ role: 'user', content: 'sales?' }] }, preferred_output: [{ role: 'assistant', content: … }], … }
 */
export function openaiPreferenceRow(pair: PreferencePair, system: string | undefined): OpenAiPreferenceRow {
  return {
    input: { messages: promptMessages(pair.prompt, system) },
    preferred_output: [{ role: 'assistant', content: pair.chosen }],
    non_preferred_output: [{ role: 'assistant', content: pair.rejected }],
  };
}

/**
 * A pair as TRL's standard preference row (DPO, reward modelling): `prompt`, `chosen`, `rejected` strings.
 *
 * @example
 * trlDpoRow(pair) // { prompt: 'sales?', chosen: "SELECT … WHERE region = 'US'", rejected: 'SELECT * FROM sales' }
 */
export function trlDpoRow(pair: PreferencePair): { prompt: string; chosen: string; rejected: string } {
  return { prompt: pair.prompt, chosen: pair.chosen, rejected: pair.rejected };
}
