/**
 * Comments as phrases: from tokens tagged by an NLP library (part of speech, lemma, negation),
 * the phrases a person would quote: noun phrases ("outdated policy"), verb phrases with their
 * object ("cite outdated policy", "make up setting"), negated verbs ("not exist") and predicate
 * adjectives with their negation or degree ("not correct", "too long"). Lemmas, lower case, so
 * "cites" and "cited" are one phrase. Pure: the server tags (wink-nlp, server/src/nlp.ts), this
 * chunks, so core stays free of the library and its ~60 MB model.
 *
 * @module
 */

/** One token as the tagger gives it (Universal Dependencies part-of-speech tags). */
export interface TaggedToken {
  text: string;
  lemma: string;
  /** `NOUN`, `PROPN`, `ADJ`, `VERB`, `AUX`, `ADV`, `PART`, `ADP`, `DET`, `PRON`, `PUNCT`, ... */
  pos: string;
  /** The tagger marks the token as negated ("does not exist": exist). */
  negated: boolean;
}

/** Longest noun phrase kept, in words (longer runs keep their last words). */
const MAX_NOUN_WORDS = 3;
/** Verbs that say nothing alone ("is", "have", "do"): kept only with an object. */
const LIGHT_VERBS: ReadonlySet<string> = new Set(['be', 'have', 'do', 'get', 'make', 'go', 'say', 'use', 'give', 'want', 'need', 'try', 'let', 'seem', 'look', 'ask', 'know', 'think', 'see', 'take', 'come', 'work']);
/** Degree adverbs that belong to the adjective they modify ("too long"). */
const DEGREE: ReadonlySet<string> = new Set(['too', 'very', 'so', 'overly', 'really', 'quite', 'way', 'much']);
/**
 * Words that are no phrase alone: determiner-like adjectives, fillers, times, and the nouns every
 * comment on an AI answer shares ("the answer", "the response"), which name nothing to fix.
 */
const EMPTY_ALONE: ReadonlySet<string> = new Set([
  'such', 'other', 'same', 'own', 'many', 'much', 'more', 'few', 'last', 'next', 'way', 'lot', 'bit', 'thing', 'stuff', 'today', 'time',
  'yesterday', 'now', 'again', 'kind', 'sort', 'answer', 'response', 'question', 'output', 'reply', 'result',
]);
/** Negation particles, as a tagger may leave them unflagged. */
const NEGATIONS: ReadonlySet<string> = new Set(['not', "n't", 'no', 'never']);
const isNoun = (t: TaggedToken | undefined): boolean => t !== undefined && (t.pos === 'NOUN' || t.pos === 'PROPN');
const isWord = (s: string): boolean => /\p{L}/u.test(s) && s.length > 1;
const norm = (t: TaggedToken): string => (t.lemma || t.text).toLowerCase();

/**
 * The maximal phrases of one tagged text, in order, distinct. A verb phrase that takes a noun
 * phrase as its object is one phrase, not two: "this cites an outdated policy" is
 * `cite outdated policy`, never `cites`, `outdated`, `policy`.
 *
 * @example
 * // "The query made up a setting that does not exist"
 * chunkPhrases(tagged) // ['query', 'make up setting', 'not exist']
 */
export function chunkPhrases(tokens: readonly TaggedToken[]): string[] {
  const out: string[] = [];
  const push = (words: string[]): void => {
    const kept = words.filter(isWord);
    const phrase = kept.join(' ');
    if (phrase && !(kept.length === 1 && EMPTY_ALONE.has(phrase)) && !out.includes(phrase)) out.push(phrase);
  };
  let i = 0;
  while (i < tokens.length) {
    const t = tokens[i] as TaggedToken;
    const negated = t.negated || NEGATIONS.has(norm(tokens[i - 1] ?? t)) || (tokens[i - 1]?.pos === 'AUX' && NEGATIONS.has(norm(tokens[i - 2] ?? t)));
    if (t.pos === 'VERB') {
      const words = [...(negated ? ['not'] : []), norm(t)];
      let j = i + 1;
      // A particle or preposition that belongs to the verb ("made up", "asked for").
      while (j < tokens.length && (tokens[j]?.pos === 'ADP' || (tokens[j]?.pos === 'PART' && !NEGATIONS.has(norm(tokens[j] as TaggedToken)))) && j - i <= 2) words.push(norm(tokens[j++] as TaggedToken));
      while (j < tokens.length && (tokens[j]?.pos === 'DET' || tokens[j]?.pos === 'NUM')) j++;
      const [object, end] = nounPhraseAt(tokens, j);
      if (object.length > 0) {
        push([...words, ...object]);
        i = end;
        continue;
      }
      if (negated || !LIGHT_VERBS.has(norm(t))) push(words.slice(0, negated ? 2 : 1));
      i += 1;
      continue;
    }
    if (t.pos === 'ADJ' || isNoun(t)) {
      const [np, end] = nounPhraseAt(tokens, i);
      if (np.length > 0) {
        push(np);
        i = end;
        continue;
      }
      if (t.pos === 'ADJ') {
        const before = tokens[i - 1];
        const degree = before && before.pos === 'ADV' && DEGREE.has(norm(before)) ? [norm(before)] : [];
        push([...(negated ? ['not'] : []), ...degree, norm(t)]);
      }
    }
    i += 1;
  }
  return out;
}

/** The noun phrase starting at `i` (adjectives then nouns, ending in a noun), and the index after it. */
function nounPhraseAt(tokens: readonly TaggedToken[], i: number): [string[], number] {
  let j = i;
  while (j < tokens.length && tokens[j]?.pos === 'ADJ') j++;
  const nounStart = j;
  while (j < tokens.length && isNoun(tokens[j])) j++;
  if (j === nounStart) return [[], i];
  const words = tokens.slice(i, j).map((t) => norm(t));
  return [words.slice(-MAX_NOUN_WORDS), j];
}
