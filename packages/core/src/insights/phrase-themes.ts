/**
 * Rising themes as phrases, complaints apart from praise: each comment's phrases (see
 * phrase-chunks.ts) are counted once per comment, near-duplicate phrases ("outdated policy",
 * "cite outdated policy") are merged into one theme, and each theme carries the distinct users
 * who said it and a one-sided two-proportion z-test of its rise against the previous period of
 * equal length. A comment is a complaint or praise by its feedback's own polarity (a thumbs down
 * with "perfect" in it is still a complaint).
 *
 * @module
 */
import { normalCdf } from '../stats/distributions.js';

/** One comment with its phrases and its feedback's polarity. */
export interface PhraseComment {
  eventId: string;
  userId: string | null;
  polarity: 'positive' | 'negative' | 'neutral';
  phrases: readonly string[];
}

/** A theme of one polarity. Shares are percentages of that polarity's comments in the period. */
export interface PhraseTheme {
  /** The theme's most said phrase. */
  phrase: string;
  /** Every phrase merged into it, most said first. */
  variants: string[];
  /** Comments with the theme now, and in the previous period. */
  current: number;
  previous: number;
  /** Distinct users among the current comments (comments without a user count as one each). */
  users: number;
  currentShare: number;
  previousShare: number;
  /** Log-ratio of the shares with add-one smoothing (> 0: it grew). */
  growth: number;
  /** Pooled two-proportion z, and its one-sided p-value; null when a period has no comments. */
  z: number | null;
  pValue: number | null;
  /** The rise is significant: p below the level and at least two users. */
  rose: boolean;
  eventIds: string[];
}

/** Significance level of a theme's rise. */
export const THEME_RISE_ALPHA = 0.05;
/** Comments of the current period a theme needs, by default. */
export const DEFAULT_PHRASE_THEME_SUPPORT = 3;
/** Word-set overlap (Jaccard) from which two phrases are one theme. */
export const NEAR_DUPLICATE_JACCARD = 0.6;

const wordsOf = (phrase: string): Set<string> => new Set(phrase.split(' '));

/**
 * Whether two phrases are near-duplicates: one's words contain the other's (which has at least
 * two words, or one that is not a bare negation), or their word sets overlap by at least
 * {@link NEAR_DUPLICATE_JACCARD}. "not exist" and "exist" differ by the negation: never merged.
 *
 * @example
 * nearDuplicates('outdated policy', 'cite outdated policy') // true
 * nearDuplicates('not exist', 'exist') // false
 */
export function nearDuplicates(a: string, b: string): boolean {
  const wa = wordsOf(a);
  const wb = wordsOf(b);
  if (wa.has('not') !== wb.has('not')) return false;
  let shared = 0;
  for (const w of wa) if (wb.has(w)) shared++;
  const [small, large] = wa.size <= wb.size ? [wa, wb] : [wb, wa];
  if (shared === small.size && small.size >= 2 && large.size > 0) return true;
  return shared / (wa.size + wb.size - shared) >= NEAR_DUPLICATE_JACCARD;
}

/**
 * Complaint and praise themes of the current comments against the previous ones, each list
 * ranked: risen first (significant), then by growth, then by comments. Themes need
 * `minSupport` current comments and growth > 0.
 *
 * @example
 * phraseThemes(now, before).complaints[0] // { phrase: 'cite outdated policy', users: 4, rose: true, ... }
 */
export function phraseThemes(
  current: readonly PhraseComment[],
  previous: readonly PhraseComment[],
  options: ThemeOptions = {},
): { complaints: PhraseTheme[]; praise: PhraseTheme[] } {
  const pick = (polarity: 'negative' | 'positive') => themesOf(current.filter((c) => c.polarity === polarity), previous.filter((c) => c.polarity === polarity), options);
  return { complaints: pick('negative'), praise: pick('positive') };
}

/** How {@link phraseThemes} ranks and merges. */
export interface ThemeOptions {
  minSupport?: number;
  limit?: number;
  alpha?: number;
  /**
   * Two phrases are one theme beyond the lexical test (e.g. {@link semanticSameTheme} over an
   * operator's embeddings): "sluggish response" with "too slow".
   */
  sameTheme?: (a: string, b: string) => boolean;
}

/** Cosine similarity from which two embedded phrases are one theme. */
export const SEMANTIC_THEME_COSINE = 0.85;

/**
 * A `sameTheme` test from phrase embeddings: cosine similarity at least `threshold`, never
 * across a negation; phrases without a vector are never merged this way.
 *
 * @example
 * const same = semanticSameTheme(new Map([['too slow', [1, 0]], ['sluggish response', [0.95, 0.1]]]));
 * same('too slow', 'sluggish response') // true
 */
export function semanticSameTheme(vectors: ReadonlyMap<string, readonly number[]>, threshold = SEMANTIC_THEME_COSINE): (a: string, b: string) => boolean {
  return (a, b) => {
    const va = vectors.get(a);
    const vb = vectors.get(b);
    if (!va || !vb || va.length !== vb.length || wordsOf(a).has('not') !== wordsOf(b).has('not')) return false;
    let dot = 0;
    let na = 0;
    let nb = 0;
    for (let i = 0; i < va.length; i++) {
      dot += (va[i] ?? 0) * (vb[i] ?? 0);
      na += (va[i] ?? 0) ** 2;
      nb += (vb[i] ?? 0) ** 2;
    }
    return na > 0 && nb > 0 && dot / Math.sqrt(na * nb) >= threshold;
  };
}

function themesOf(current: readonly PhraseComment[], previous: readonly PhraseComment[], options: ThemeOptions): PhraseTheme[] {
  const minSupport = options.minSupport ?? DEFAULT_PHRASE_THEME_SUPPORT;
  const alpha = options.alpha ?? THEME_RISE_ALPHA;
  // Phrase → comments (indexes) that say it, most said first: the groups' representatives.
  const byPhrase = new Map<string, Set<number>>();
  current.forEach((c, i) => {
    for (const p of new Set(c.phrases)) byPhrase.set(p, (byPhrase.get(p) ?? new Set()).add(i));
  });
  const phrases = [...byPhrase].sort((a, b) => b[1].size - a[1].size || b[0].split(' ').length - a[0].split(' ').length || (a[0] < b[0] ? -1 : 1));
  const groups: Array<{ phrase: string; variants: string[]; comments: Set<number> }> = [];
  for (const [phrase, comments] of phrases) {
    const same = (a: string, b: string) => nearDuplicates(a, b) || (options.sameTheme?.(a, b) ?? false);
    const group = groups.find((g) => same(g.phrase, phrase));
    if (group) {
      group.variants.push(phrase);
      for (const c of comments) group.comments.add(c);
    } else groups.push({ phrase, variants: [phrase], comments: new Set(comments) });
  }
  const n1 = current.length;
  const n0 = previous.length;
  const out: PhraseTheme[] = [];
  for (const g of groups) {
    const c1 = g.comments.size;
    if (c1 < minSupport) continue;
    const c0 = previous.filter((c) => c.phrases.some((p) => g.variants.includes(p) || nearDuplicates(g.phrase, p) || (options.sameTheme?.(g.phrase, p) ?? false))).length;
    const growth = Math.log((c1 + 1) / (n1 + 2)) - Math.log((c0 + 1) / (n0 + 2));
    if (!(growth > 0)) continue;
    const members = [...g.comments].sort((a, b) => a - b).map((i) => current[i] as PhraseComment);
    const users = new Set(members.map((m) => m.userId ?? `event:${m.eventId}`)).size;
    const z = twoProportionZ(c1, n1, c0, n0);
    const pValue = z === null ? null : 1 - normalCdf(z);
    out.push({
      phrase: g.phrase,
      variants: g.variants,
      current: c1,
      previous: c0,
      users,
      currentShare: (100 * c1) / n1,
      previousShare: n0 === 0 ? 0 : (100 * c0) / n0,
      growth,
      z,
      pValue,
      rose: pValue !== null && pValue < alpha && users >= 2,
      eventIds: members.map((m) => m.eventId),
    });
  }
  out.sort((a, b) => Number(b.rose) - Number(a.rose) || b.growth - a.growth || b.current - a.current || (a.phrase < b.phrase ? -1 : 1));
  return options.limit === undefined ? out : out.slice(0, options.limit);
}

/**
 * A comment's side: the polarity of the feedback it came with (a vote, a rating, a correction);
 * a comment with no polarity of its own (a plain `comment`, a note) is praise when its text's
 * sentiment is at least {@link SENTIMENT_SIDE}, else a complaint; a 3-star rating is neither.
 *
 * @example
 * commentPolarity('thumbs_down', null, 0.9) // 'negative': the vote decides, not the words
 * commentPolarity('comment', null, 0.45) // 'positive'
 */
export function commentPolarity(type: string, rating: number | null, sentiment: number): 'positive' | 'negative' | 'neutral' {
  if (type === 'thumbs_up') return 'positive';
  if (['thumbs_down', 'error_categories', 'correction', 'escalation', 'retry', 'abandon', 'flag_irrelevant', 'flag_missing', 'implicit_reject'].includes(type)) return 'negative';
  if (rating !== null) return rating >= 4 ? 'positive' : rating <= 2 ? 'negative' : 'neutral';
  // People write a plain comment mostly to say what is wrong: praise only when the words say so.
  return sentiment >= SENTIMENT_SIDE ? 'positive' : 'negative';
}

/** Sentiment from which a comment without a polarity of its own counts as praise. */
export const SENTIMENT_SIDE = 0.1;

function twoProportionZ(c1: number, n1: number, c0: number, n0: number): number | null {
  if (n1 === 0 || n0 === 0) return null;
  const p = (c1 + c0) / (n1 + n0);
  const se = Math.sqrt(p * (1 - p) * (1 / n1 + 1 / n0));
  return se === 0 ? null : (c1 / n1 - c0 / n0) / se;
}
