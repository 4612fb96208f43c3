/**
 * The NLP library behind comment phrases: wink-nlp with its English lite model (MIT, no install
 * scripts), which tags each token's part of speech, lemma and negation and scores a text's
 * sentiment. Loaded on first use, not at import: the model costs ~60 MB resident and ~0.2 s, and
 * only the insights report and user memory need it (docs/insights.md, "Phrases").
 */
import { createRequire } from 'node:module';
import { chunkPhrases, type TaggedToken } from '@feedloop/core';

/** The parts of wink-nlp this module uses. */
interface WinkDoc {
  tokens(): { out(what: unknown): unknown[] };
  out(what: unknown): unknown;
}
interface Wink {
  readDoc(text: string): WinkDoc;
  its: { value: unknown; lemma: unknown; pos: unknown; negationFlag: unknown; sentiment: unknown };
}

let wink: Wink | undefined;

function nlp(): Wink {
  if (wink === undefined) {
    const require = createRequire(import.meta.url);
    const winkNLP = require('wink-nlp') as (model: unknown) => Wink;
    wink = winkNLP(require('wink-eng-lite-web-model'));
  }
  return wink;
}

/**
 * The tokens of a text, tagged.
 *
 * @example
 * tagText('does not exist').map((t) => t.pos) // ['AUX', 'PART', 'VERB']
 */
export function tagText(text: string): TaggedToken[] {
  const w = nlp();
  // Lower case: a short comment's first word is often tagged a proper noun for its capital
  // ("Wrong join again": PROPN VERB), which splits the phrase; comments rarely hang on case.
  const tokens = w.readDoc(text.toLowerCase()).tokens();
  const values = tokens.out(w.its.value) as string[];
  const lemmas = tokens.out(w.its.lemma) as string[];
  const pos = tokens.out(w.its.pos) as string[];
  const negated = tokens.out(w.its.negationFlag) as boolean[];
  return values.map((v, i) => ({ text: v, lemma: lemmas[i] ?? v, pos: pos[i] ?? 'X', negated: negated[i] === true }));
}

/**
 * A comment's phrases (core's `chunkPhrases` over the tagged tokens).
 *
 * @example
 * commentPhrasesOf('This cites an outdated policy') // ['cite outdated policy']
 */
export function commentPhrasesOf(text: string): string[] {
  return chunkPhrases(tagText(text));
}

/**
 * The sentiment of a text, −1 (negative) to 1 (positive): how a comment that is neither a vote
 * nor a rating is sorted into complaints or praise.
 *
 * @example
 * sentimentOf('Perfect, thanks!') > 0 // true
 */
export function sentimentOf(text: string): number {
  const w = nlp();
  const s = Number(w.readDoc(text).out(w.its.sentiment));
  return Number.isFinite(s) ? s : 0;
}
