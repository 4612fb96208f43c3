/**
 * Rising feedback themes: the 1-3 word phrases of comments (stop words removed) that grew most
 * against the previous period of equal length. Counted per comment (a phrase said ten times in
 * one comment counts once), so one long comment cannot make a theme.
 *
 * @module
 */
import { normalCdf } from '../stats/distributions.js';
import { STOP_WORDS } from './stop-words.js';

/** Longest phrase, in words. */
export const MAX_PHRASE_WORDS = 3;
/** Default minimum number of comments of the current period a theme must appear in. */
export const DEFAULT_MIN_THEME_SUPPORT = 3;

/** One comment: its event and its text. */
export interface CommentText {
  eventId: string;
  text: string;
}

/** A phrase that grew. Shares are percentages of the period's comments. */
export interface RisingTheme {
  phrase: string;
  /** Comments of the current period with the phrase, and of the previous one. */
  current: number;
  previous: number;
  currentShare: number;
  previousShare: number;
  /**
   * ln(((current + 1) / (currentComments + 2)) / ((previous + 1) / (previousComments + 2))): the log-ratio of the
   * two shares with Laplace's add-one smoothing (finite when the phrase is new, damped when counts are small); > 0 means it grew.
   */
  growth: number;
  /** Two-proportion z statistic (pooled), null when a period has no comments; and its one-sided p-value. */
  z: number | null;
  pValue: number | null;
  /** The comments of the current period with the phrase. */
  eventIds: string[];
}

/** A word (letters, inner apostrophes: group 1), or a run of other non-space characters. */
const TOKEN = /([\p{L}]+(?:['’][\p{L}]+)*)|[^\p{L}\s]+/gu;

/**
 * The distinct phrases of one comment: runs of up to {@link MAX_PHRASE_WORDS} consecutive words
 * that cross no stop word, number or punctuation (RAKE-style: those split phrases), lower case.
 * Words of one letter are ignored.
 *
 * @example
 * commentPhrases('The SQL was wrong, wrong join!') // ['sql', 'wrong', 'wrong join', 'join']
 */
export function commentPhrases(text: string): string[] {
  const table = new PhraseTable();
  const ids: number[] = [];
  // A Set, not ids.includes: a long comment of many distinct words made that quadratic.
  const seen = new Set<number>();
  table.eachPhrase(text, (id) => {
    if (seen.has(id)) return;
    seen.add(id);
    ids.push(id);
  });
  return ids.map((id) => table.text(id));
}

/**
 * Phrases as small integers. The report reads up to 10,000 comments of up to 2,000 characters,
 * some 9 million phrase occurrences at worst: keyed by strings (built by slicing and joining
 * words, then hashed) they took 2-4 s; here each word is looked up once, and a phrase of two or
 * three words is found from the phrase of its first words by its last word's id (1-2 s).
 */
class PhraseTable {
  readonly #words = new Map<string, number>();
  /** Per phrase id: the phrase of its first words (-1 for one word), and its last word's id. */
  readonly #prefix: number[] = [];
  readonly #last: number[] = [];
  readonly #wordText: string[] = [];
  /** One-word phrase id by word id; a longer phrase by its first words' phrase, then its last word. */
  readonly #single: number[] = [];
  readonly #children: Array<Map<number, number> | undefined> = [];

  /**
   * Calls `visit` with the id of every phrase occurrence of a text, in order (repeats included).
   * With `grow` false, phrases the table does not hold are skipped (no id is made for them): a
   * word it has never seen ends the run, as no phrase it holds contains that word.
   */
  eachPhrase(text: string, visit: (id: number) => void, grow = true): void {
    const run: number[] = [];
    const flush = (): void => {
      for (let i = 0; i < run.length; i++) {
        let phrase: number | undefined = this.#singleOf(run[i] as number, grow);
        for (let n = 1; phrase !== undefined; n++) {
          visit(phrase);
          if (n >= MAX_PHRASE_WORDS || i + n >= run.length) break;
          phrase = this.#extend(phrase, run[i + n] as number, grow);
        }
      }
      run.length = 0;
    };
    TOKEN.lastIndex = 0;
    const lower = text.toLowerCase().replace(/’/g, "'");
    for (let m = TOKEN.exec(lower); m !== null; m = TOKEN.exec(lower)) {
      const word = m[1];
      const id = word === undefined || word.length < 2 || STOP_WORDS.has(word) ? undefined : this.#wordId(word, grow);
      if (id === undefined) flush();
      else run.push(id);
    }
    flush();
  }

  /** The phrase's words, space-separated. */
  text(id: number): string {
    const prefix = this.#prefix[id] as number;
    const last = this.#wordText[this.#last[id] as number] as string;
    return prefix < 0 ? last : `${this.text(prefix)} ${last}`;
  }

  #wordId(word: string, grow: boolean): number | undefined {
    let id = this.#words.get(word);
    if (id === undefined && grow) {
      id = this.#wordText.length;
      this.#words.set(word, id);
      this.#wordText.push(word);
    }
    return id;
  }

  #singleOf(word: number, grow: boolean): number | undefined {
    let id = this.#single[word];
    if (id === undefined && grow) {
      id = this.#add(-1, word);
      this.#single[word] = id;
    }
    return id;
  }

  #extend(prefix: number, word: number, grow: boolean): number | undefined {
    let children = this.#children[prefix];
    if (children === undefined) {
      if (!grow) return undefined;
      children = new Map();
      this.#children[prefix] = children;
    }
    let id = children.get(word);
    if (id === undefined && grow) {
      id = this.#add(prefix, word);
      children.set(word, id);
    }
    return id;
  }

  #add(prefix: number, word: number): number {
    this.#prefix.push(prefix);
    this.#last.push(word);
    return this.#prefix.length - 1;
  }
}

/**
 * Per phrase id, the comments holding it (each comment once): their indexes when `current` (the
 * table then takes in their phrases), else only how many, of the phrases the table holds already.
 */
function countComments(table: PhraseTable, comments: readonly CommentText[], current: boolean): { counts: number[]; indexes: number[][] } {
  const counts: number[] = [];
  const indexes: number[][] = [];
  const lastSeen: number[] = [];
  for (const [c, comment] of comments.entries()) {
    table.eachPhrase(
      comment.text,
      (id) => {
        if (lastSeen[id] === c) return;
        lastSeen[id] = c;
        counts[id] = (counts[id] ?? 0) + 1;
        if (current) (indexes[id] ??= []).push(c);
      },
      current,
    );
  }
  return { counts, indexes };
}

/**
 * Themes of `current` comments that grew against `previous` ones (the period before, of equal
 * length), best first: growth > 0, at least `minSupport` current comments, ranked by `growth`
 * (ties: more current comments first, then the phrase). A phrase inside a longer listed phrase
 * with the same current comments is left out (the longer one says more).
 *
 * @example
 * risingThemes([{ eventId: 'e1', text: 'wrong join' }, ...], [], { minSupport: 2 })[0].phrase // 'wrong join'
 */
export function risingThemes(
  current: readonly CommentText[],
  previous: readonly CommentText[],
  options: { minSupport?: number; limit?: number } = {},
): RisingTheme[] {
  const minSupport = options.minSupport ?? DEFAULT_MIN_THEME_SUPPORT;
  const n1 = current.length;
  const n0 = previous.length;
  const table = new PhraseTable();
  const now = countComments(table, current, true);
  // Only phrases of the range can be themes: the previous period is counted for those alone.
  const before = countComments(table, previous, false);
  const themes: RisingTheme[] = [];
  for (const [id, c1] of now.counts.entries()) {
    if (c1 === undefined || c1 < minSupport) continue;
    const c0 = before.counts[id] ?? 0;
    const growth = Math.log((c1 + 1) / (n1 + 2)) - Math.log((c0 + 1) / (n0 + 2));
    if (!(growth > 0)) continue;
    const z = twoProportionZ(c1, n1, c0, n0);
    themes.push({
      phrase: table.text(id),
      current: c1,
      previous: c0,
      currentShare: (100 * c1) / n1,
      previousShare: n0 === 0 ? 0 : (100 * c0) / n0,
      growth,
      z,
      pValue: z === null ? null : 1 - normalCdf(z),
      eventIds: (now.indexes[id] ?? []).map((c) => (current[c] as CommentText).eventId),
    });
  }
  themes.sort((a, b) => b.growth - a.growth || b.current - a.current || a.phrase.localeCompare(b.phrase));
  // A phrase is inside a longer one when it is one of its shorter runs of consecutive words;
  // phrases have at most three words, so each names its few shorter runs (not a scan of all pairs).
  const inLonger = new Set<string>();
  for (const t of themes) {
    const words = t.phrase.split(' ');
    for (let n = 1; n < words.length; n++) {
      for (let i = 0; i + n <= words.length; i++) inLonger.add(`${t.current} ${words.slice(i, i + n).join(' ')}`);
    }
  }
  const kept = themes.filter((t) => !inLonger.has(`${t.current} ${t.phrase}`));
  return options.limit === undefined ? kept : kept.slice(0, options.limit);
}

/** (p1 - p0) / sqrt(p (1 - p) (1/n1 + 1/n0)) with the pooled p; null when undefined. */
function twoProportionZ(c1: number, n1: number, c0: number, n0: number): number | null {
  if (n1 === 0 || n0 === 0) return null;
  const p = (c1 + c0) / (n1 + n0);
  const se = Math.sqrt(p * (1 - p) * (1 / n1 + 1 / n0));
  return se === 0 ? null : (c1 / n1 - c0 / n0) / se;
}
