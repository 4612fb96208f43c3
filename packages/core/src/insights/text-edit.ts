/**
 * What a text correction did to an answer, as edit kinds a team can act on ("users keep removing
 * the hedging", "users keep fixing numbers"). Each kind is a simple, documented rule over the two
 * texts (docs/insights.md); one correction may show several kinds.
 *
 * @module
 */
import { lcsLength } from '../edit-distance.js';

/** The edit kinds, in the order they are reported. */
export const TEXT_EDIT_KINDS = [
  'number_changed',
  'hedging_removed',
  'hedging_added',
  'list_formatting',
  'emoji_removed',
  'emoji_added',
  'tone_changed',
  'shortened',
  'lengthened',
  'rewritten',
  'minor_fix',
  'reworded',
] as const;

/** One of {@link TEXT_EDIT_KINDS}. */
export type TextEditKind = (typeof TEXT_EDIT_KINDS)[number];

/** Word count ratios beyond which a correction shortened (< 0.8) or lengthened (> 1.25) the text. */
const SHORTER = 0.8;
const LONGER = 1.25;
/** ...and by at least this many words, so "Yes." → "Yes, it is." is not "lengthened". */
const MIN_LENGTH_CHANGE_WORDS = 3;
/** Word-level similarity (Dice over the LCS) under which the correction is a rewrite. */
const REWRITE_SIMILARITY = 0.3;
/** Texts shorter than this (in words) are never called rewritten: two short answers share little by nature. */
const REWRITE_MIN_WORDS = 5;
/** A fix of at most this many changed words (or 5 % of the words, whichever is more) is minor. */
const MINOR_WORDS = 2;
const MINOR_SHARE = 0.05;

const WORD = /[\p{L}\p{N}]+(?:['’.,][\p{L}\p{N}]+)*/gu;
const NUMBER = /(?<![\p{L}\d])\d+(?:[.,]\d+)*(?![\p{L}\d])/gu;
const EMOJI = /\p{Extended_Pictographic}/gu;
const LIST_ITEM = /^[ \t]*(?:[-*•+]|\d{1,3}[.)])[ \t]+\S/gmu;
/** Phrases that soften a claim. */
const HEDGES =
  /\b(?:i think|i believe|i guess|i'm not sure|i am not sure|not sure|probably|possibly|perhaps|maybe|might|could be|it seems|seems to|it appears|appears to|likely|unlikely|arguably|as an ai(?: language model)?|i cannot be certain|to my knowledge)\b/giu;
/** Markers of tone: exclamations, apologies and courtesy, casual words. */
const TONE = /!|\b(?:please|sorry|apologi[sz]e|unfortunately|kindly|thank(?:s| you)|hey|awesome|cool|great|lol|gonna|wanna|dear)\b/giu;

function count(text: string, pattern: RegExp): number {
  return text.match(pattern)?.length ?? 0;
}

function tally(items: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of items) m.set(x, (m.get(x) ?? 0) + 1);
  return m;
}

/** Whether some item of `a` is missing (as often) from `b`. */
function lostFrom(a: Map<string, number>, b: Map<string, number>): boolean {
  for (const [x, n] of a) if ((b.get(x) ?? 0) < n) return true;
  return false;
}

/**
 * The words of a text, lower case: letters and digits, keeping inner apostrophes, dots and
 * commas (`don't`, `3.14`, `1,000`).
 *
 * @example
 * words("Don't pay 1,000 EUR.") // ["don't", 'pay', '1,000', 'eur']
 */
export function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/**
 * Length of the longest common subsequence of two word lists, through the bit-parallel
 * character LCS: each distinct word becomes one astral code point, so a word is one token.
 *
 * @example
 * wordLcsLength(['the', 'cat', 'sat'], ['the', 'dog', 'sat']) // 2
 */
export function wordLcsLength(a: readonly string[], b: readonly string[]): number {
  const ids = new Map<string, string>();
  const encode = (ws: readonly string[]) =>
    ws
      .map((w) => {
        let c = ids.get(w);
        if (c === undefined) ids.set(w, (c = String.fromCodePoint(0x10000 + ids.size)));
        return c;
      })
      .join('');
  return lcsLength(encode(a), encode(b));
}

/**
 * The edit kinds a correction shows, in {@link TEXT_EDIT_KINDS} order; `[]` when the texts are
 * equal. When no specific rule matches, the correction is `minor_fix` (a few words) or
 * `reworded`.
 *
 * @example
 * textEditKinds('I think the total is probably 22.', 'The total is 8.') // ['number_changed', 'hedging_removed', 'shortened']
 */
export function textEditKinds(original: string, corrected: string): TextEditKind[] {
  if (original === corrected) return [];
  const kinds: TextEditKind[] = [];
  const numbersA = tally((original.match(NUMBER) ?? []).map((n) => n.replace(/,/g, '')));
  const numbersB = tally((corrected.match(NUMBER) ?? []).map((n) => n.replace(/,/g, '')));
  // A replaced number (one lost, another gained), not merely a number added or dropped.
  if (lostFrom(numbersA, numbersB) && lostFrom(numbersB, numbersA)) kinds.push('number_changed');
  const hedgesA = count(original, HEDGES);
  const hedgesB = count(corrected, HEDGES);
  if (hedgesB < hedgesA) kinds.push('hedging_removed');
  if (hedgesB > hedgesA) kinds.push('hedging_added');
  // A list made from prose or prose from a list; items added to a list are content, not format.
  if (count(original, LIST_ITEM) === 0 !== (count(corrected, LIST_ITEM) === 0)) kinds.push('list_formatting');
  const emojiA = count(original, EMOJI);
  const emojiB = count(corrected, EMOJI);
  if (emojiB < emojiA) kinds.push('emoji_removed');
  if (emojiB > emojiA) kinds.push('emoji_added');
  const toneA = tally((original.match(TONE) ?? []).map((t) => t.toLowerCase()));
  const toneB = tally((corrected.match(TONE) ?? []).map((t) => t.toLowerCase()));
  if (toneDifference(toneA, toneB) >= 2 || (toneA.size === 0) !== (toneB.size === 0)) kinds.push('tone_changed');
  const wa = words(original);
  const wb = words(corrected);
  if (wb.length < wa.length * SHORTER && wa.length - wb.length >= MIN_LENGTH_CHANGE_WORDS) kinds.push('shortened');
  if (wb.length > wa.length * LONGER && wb.length - wa.length >= MIN_LENGTH_CHANGE_WORDS) kinds.push('lengthened');
  const lcs = wordLcsLength(wa, wb);
  const total = wa.length + wb.length;
  const similarity = total === 0 ? 1 : (2 * lcs) / total;
  if (similarity < REWRITE_SIMILARITY && wa.length >= REWRITE_MIN_WORDS && wb.length >= REWRITE_MIN_WORDS) kinds.push('rewritten');
  if (kinds.length === 0) kinds.push(total - 2 * lcs <= Math.max(MINOR_WORDS, MINOR_SHARE * total) ? 'minor_fix' : 'reworded');
  return kinds;
}

function toneDifference(a: Map<string, number>, b: Map<string, number>): number {
  let d = 0;
  for (const key of new Set([...a.keys(), ...b.keys()])) d += Math.abs((a.get(key) ?? 0) - (b.get(key) ?? 0));
  return d;
}
