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

const TOKEN = /[\p{L}]+(?:['’][\p{L}]+)*|[^\p{L}\s]+/gu;

/**
 * The distinct phrases of one comment: runs of up to {@link MAX_PHRASE_WORDS} consecutive words
 * that cross no stop word, number or punctuation (RAKE-style: those split phrases), lower case.
 * Words of one letter are ignored.
 *
 * @example
 * commentPhrases('The SQL was wrong, wrong join!') // ['sql', 'wrong', 'wrong join', 'join']
 */
export function commentPhrases(text: string): string[] {
  const runs: string[][] = [[]];
  for (const token of text.toLowerCase().replace(/’/g, "'").match(TOKEN) ?? []) {
    const isWord = /^\p{L}/u.test(token);
    if (!isWord || STOP_WORDS.has(token) || token.length < 2) {
      if (runs[runs.length - 1]!.length > 0) runs.push([]);
      continue;
    }
    runs[runs.length - 1]!.push(token);
  }
  const phrases = new Set<string>();
  for (const run of runs) {
    for (let i = 0; i < run.length; i++) {
      for (let n = 1; n <= MAX_PHRASE_WORDS && i + n <= run.length; n++) phrases.add(run.slice(i, i + n).join(' '));
    }
  }
  return [...phrases];
}

function documentFrequency(comments: readonly CommentText[]): Map<string, string[]> {
  const df = new Map<string, string[]>();
  for (const c of comments) {
    for (const p of commentPhrases(c.text)) {
      const ids = df.get(p);
      if (ids) ids.push(c.eventId);
      else df.set(p, [c.eventId]);
    }
  }
  return df;
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
  const now = documentFrequency(current);
  const before = documentFrequency(previous);
  const themes: RisingTheme[] = [];
  for (const [phrase, ids] of now) {
    const c1 = ids.length;
    if (c1 < minSupport) continue;
    const c0 = before.get(phrase)?.length ?? 0;
    const growth = Math.log((c1 + 1) / (n1 + 2)) - Math.log((c0 + 1) / (n0 + 2));
    if (!(growth > 0)) continue;
    const z = twoProportionZ(c1, n1, c0, n0);
    themes.push({
      phrase,
      current: c1,
      previous: c0,
      currentShare: (100 * c1) / n1,
      previousShare: n0 === 0 ? 0 : (100 * c0) / n0,
      growth,
      z,
      pValue: z === null ? null : 1 - normalCdf(z),
      eventIds: ids,
    });
  }
  themes.sort((a, b) => b.growth - a.growth || b.current - a.current || a.phrase.localeCompare(b.phrase));
  const kept = themes.filter(
    (t) => !themes.some((longer) => longer !== t && longer.current === t.current && ` ${longer.phrase} `.includes(` ${t.phrase} `)),
  );
  return options.limit === undefined ? kept : kept.slice(0, options.limit);
}

/** (p1 - p0) / sqrt(p (1 - p) (1/n1 + 1/n0)) with the pooled p; null when undefined. */
function twoProportionZ(c1: number, n1: number, c0: number, n0: number): number | null {
  if (n1 === 0 || n0 === 0) return null;
  const p = (c1 + c0) / (n1 + n0);
  const se = Math.sqrt(p * (1 - p) * (1 / n1 + 1 / n0));
  return se === 0 ? null : (c1 / n1 - c0 / n0) / se;
}
