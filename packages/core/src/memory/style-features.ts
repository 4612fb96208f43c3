/**
 * Style features of a text and the style changes an edit makes (ADR-004 style learning): length,
 * hedging, emoji, list formatting, code blocks and formality. Pure and cheap: a few regular
 * expressions over the text, so a user's whole history can be read on every context request.
 *
 * @module
 */

/** What one text looks like, in the measures style learning compares. */
export interface StyleFeatures {
  words: number;
  /** Hedging phrases ("I think", "perhaps", "it seems", ...). */
  hedges: number;
  emoji: number;
  /** Lines that start a bullet or numbered list item. */
  listItems: number;
  /** Fenced code blocks. */
  codeBlocks: number;
  /** Casual markers: contractions, slang, exclamation marks. */
  casual: number;
}

/** A style dimension and the way an edit moved it. */
export type StyleChange =
  | 'length:shorter'
  | 'length:longer'
  | 'hedging:remove'
  | 'hedging:add'
  | 'emoji:remove'
  | 'emoji:add'
  | 'lists:to_prose'
  | 'lists:to_list'
  | 'code:add_blocks'
  | 'code:remove_blocks'
  | 'formality:formal'
  | 'formality:casual';

const HEDGES =
  /\b(i think|i believe|i guess|perhaps|maybe|possibly|probably|might|it seems|seems to|could be|arguably|generally speaking|in some cases|it is possible|not sure|likely)\b/giu;
const EMOJI = /\p{Extended_Pictographic}/gu;
const LIST_ITEM = /^\s*(?:[-*•]|\d{1,3}[.)])\s+\S/gmu;
const FENCE = /^\s*```/gmu;
const CASUAL = /\b(?:\w+n't|\w+'re|\w+'ll|\w+'ve|i'm|hey|gonna|wanna|yeah|yep|cool|awesome|lol|btw|stuff|kinda)\b|!/giu;

const count = (text: string, re: RegExp): number => text.match(re)?.length ?? 0;

/**
 * Measures a text.
 *
 * @example
 * styleFeatures('Hey! I think this works 🎉') // { words: 5, hedges: 1, emoji: 1, listItems: 0, codeBlocks: 0, casual: 2 }
 */
export function styleFeatures(text: string): StyleFeatures {
  const normalized = text.replace(/’/g, "'");
  return {
    words: normalized.split(/\s+/u).filter((w) => /[\p{L}\p{N}]/u.test(w)).length,
    hedges: count(normalized, HEDGES),
    emoji: count(normalized, EMOJI),
    listItems: count(normalized, LIST_ITEM),
    codeBlocks: Math.floor(count(normalized, FENCE) / 2),
    casual: count(normalized, CASUAL),
  };
}

/** An edit shorter than this share of the original's words shortened it; longer than its inverse lengthened it. */
export const SHORTENED_RATIO = 0.8;
/** Words an edit must add or remove before its length says anything. */
const MIN_WORDS_MOVED = 3;
/** Fewer list items than this is prose. */
const LIST_MIN_ITEMS = 2;

/**
 * The style changes an edit made: what the user removed or added when they rewrote the answer.
 * An edit that leaves a dimension alone says nothing about it.
 *
 * @example
 * styleChanges('- a\n- b\n- c 😀', 'A, b and c.') // ['emoji:remove', 'lists:to_prose'] (and 'length:…' when the length moved)
 */
export function styleChanges(original: string, edited: string): StyleChange[] {
  const a = styleFeatures(original);
  const b = styleFeatures(edited);
  const out: StyleChange[] = [];
  // A few words either way is rewording, not a length preference.
  const moved = Math.abs(b.words - a.words) >= MIN_WORDS_MOVED;
  if (moved && b.words <= a.words * SHORTENED_RATIO) out.push('length:shorter');
  else if (moved && a.words > 0 && b.words >= a.words / SHORTENED_RATIO) out.push('length:longer');
  if (a.hedges > 0 && b.hedges === 0) out.push('hedging:remove');
  else if (a.hedges === 0 && b.hedges > 0) out.push('hedging:add');
  if (a.emoji > 0 && b.emoji === 0) out.push('emoji:remove');
  else if (a.emoji === 0 && b.emoji > 0) out.push('emoji:add');
  if (a.listItems >= LIST_MIN_ITEMS && b.listItems < LIST_MIN_ITEMS) out.push('lists:to_prose');
  else if (a.listItems < LIST_MIN_ITEMS && b.listItems >= LIST_MIN_ITEMS) out.push('lists:to_list');
  if (a.codeBlocks === 0 && b.codeBlocks > 0) out.push('code:add_blocks');
  else if (a.codeBlocks > 0 && b.codeBlocks === 0) out.push('code:remove_blocks');
  if (a.casual > 0 && b.casual === 0) out.push('formality:formal');
  else if (a.casual === 0 && b.casual > 0) out.push('formality:casual');
  return out;
}

/** The instruction each learned style change becomes in the context block. */
export const STYLE_INSTRUCTIONS: Record<StyleChange, string> = {
  'length:shorter': 'Keep answers short: this user cuts them down',
  'length:longer': 'Give fuller answers: this user expands them',
  'hedging:remove': 'State answers directly, without hedging ("I think", "perhaps")',
  'hedging:add': 'Qualify uncertain statements: this user adds caveats',
  'emoji:remove': 'Do not use emoji',
  'emoji:add': 'Emoji are welcome',
  'lists:to_prose': 'Write prose, not bullet lists',
  'lists:to_list': 'Use bullet lists rather than paragraphs',
  'code:add_blocks': 'Put code in fenced code blocks',
  'code:remove_blocks': 'Avoid code blocks; explain in prose',
  'formality:formal': 'Use a formal tone (no contractions, slang or exclamation marks)',
  'formality:casual': 'A casual, conversational tone is preferred',
};
