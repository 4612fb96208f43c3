import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalCdf } from '../src/stats/distributions.js';
import { STOP_WORDS } from '../src/insights/stop-words.js';
import { commentPhrases, risingThemes, type CommentText } from '../src/insights/themes.js';
import { DATASETS_DIR, readJsonLines } from './datasets.js';

const comments = (texts: string[], prefix: string): CommentText[] => texts.map((text, i) => ({ eventId: `${prefix}${i}`, text }));

describe('commentPhrases', () => {
  it('makes 1-3 word phrases that cross no stop word, number or punctuation', () => {
    expect(commentPhrases('The SQL was wrong, wrong join!')).toEqual(['sql', 'wrong', 'wrong join', 'join']);
    expect(commentPhrases('Missing the date filter on 2024 orders')).toEqual(['missing', 'date', 'date filter', 'filter', 'orders']);
    expect(commentPhrases('not helpful at all')).toEqual(['not', 'not helpful', 'helpful']);
  });

  it('counts a phrase once per comment', () => {
    expect(commentPhrases('slow slow slow')).toEqual(['slow', 'slow slow', 'slow slow slow']);
  });
});

describe('risingThemes', () => {
  it('ranks by smoothed log-ratio against the previous period and names the comments', () => {
    const current = comments(
      ['wrong join again', 'the join is wrong join key', 'wrong join on customers', 'too slow', 'too slow today', 'nice', 'too slow'],
      'c',
    );
    const previous = comments(['too slow', 'too slow', 'slow answers', 'fine', 'too slow', 'slow'], 'p');
    const themes = risingThemes(current, previous, { minSupport: 3 });
    expect(themes.map((t) => t.phrase)).toEqual(['wrong join']); // 'wrong' and 'join': the same 3 comments
    const top = themes[0]!;
    expect(top).toMatchObject({ current: 3, previous: 0, eventIds: ['c0', 'c1', 'c2'] });
    // ln((3 + 1) / (7 + 2)) - ln((0 + 1) / (6 + 2)) = ln(32 / 9)
    expect(top.growth).toBeCloseTo(Math.log(32 / 9), 10);
    expect(top.currentShare).toBeCloseTo((100 * 3) / 7, 10);
    // Pooled two-proportion z: p = 3/13; (3/7 - 0) / sqrt(0.17751 × 0.30952) = 0.42857 / 0.23440 = 1.8283
    expect(top.z).toBeCloseTo(1.8283, 3);
    // "slow" was already there: it did not rise (it fell), so it is not listed.
    expect(themes.some((t) => t.phrase === 'slow')).toBe(false);
  });

  it('needs the minimum support and drops a phrase inside a longer one with the same comments', () => {
    const current = comments(['date filter missing', 'date filter missing', 'date filter'], 'c');
    const previous = comments(['fine', 'good answer'], 'p');
    expect(risingThemes(current, previous, { minSupport: 4 })).toEqual([]);
    const phrases = risingThemes(current, previous, { minSupport: 2 }).map((t) => t.phrase);
    expect(phrases).toContain('date filter');
    expect(phrases).toContain('date filter missing');
    expect(phrases).not.toContain('date'); // same 3 comments as "date filter"
    expect(phrases).not.toContain('filter missing'); // same 2 comments as "date filter missing"
  });

  // Shepherd (facebookresearch/Shepherd, CC BY-NC 4.0): annotators' critiques. Critiques of
  // GSM8K (maths word problems) against critiques of every other dataset as the previous
  // period: the themes that rise are about arithmetic, and no theme is made of stop words.
  describe.skipIf(DATASETS_DIR === undefined)('on Shepherd critiques', () => {
    interface Record {
      id: number;
      dataset: string;
      feedback: string;
    }
    const records = readJsonLines<Record>('shepherd-human-feedback/human_data_for_model.jsonl');
    const maths = records.filter((r) => r.dataset === 'GSM8K').map((r) => ({ eventId: String(r.id), text: r.feedback }));
    const others = records.filter((r) => r.dataset !== 'GSM8K').map((r) => ({ eventId: String(r.id), text: r.feedback }));

    it('surfaces calculation themes for the maths critiques', () => {
      const themes = risingThemes(maths, others, { minSupport: 10, limit: 20 });
      expect(themes.length).toBe(20);
      const words = themes.flatMap((t) => t.phrase.split(' '));
      expect(words.some((w) => /^(calculat|math|multipl|subtract|add|divid|total|equation)/.test(w))).toBe(true);
      for (const t of themes) {
        expect(t.phrase.split(' ').every((w) => !STOP_WORDS.has(w))).toBe(true);
        expect(t.current).toBeGreaterThanOrEqual(10);
        expect(t.currentShare).toBeGreaterThan(t.previousShare);
        expect(t.eventIds.length).toBe(t.current);
      }
    });
  });
});

/**
 * The definition of docs/insights.md written plainly (phrases as sliced and joined strings, every
 * pair of themes compared), as the report computed it before phrases became integer ids.
 */
function referenceThemes(current: readonly CommentText[], previous: readonly CommentText[], minSupport: number) {
  const phrases = (text: string): Set<string> => new Set(referencePhrases(text));
  const df = (cs: readonly CommentText[]) => {
    const m = new Map<string, string[]>();
    for (const c of cs) for (const p of phrases(c.text)) m.set(p, [...(m.get(p) ?? []), c.eventId]);
    return m;
  };
  const [n1, n0] = [current.length, previous.length];
  const before = df(previous);
  const themes = [...df(current)]
    .map(([phrase, ids]) => {
      const [c1, c0] = [ids.length, before.get(phrase)?.length ?? 0];
      const p = (c1 + c0) / (n1 + n0);
      const se = Math.sqrt(p * (1 - p) * (1 / n1 + 1 / n0));
      const z = n1 === 0 || n0 === 0 || se === 0 ? null : (c1 / n1 - c0 / n0) / se;
      const growth = Math.log((c1 + 1) / (n1 + 2)) - Math.log((c0 + 1) / (n0 + 2));
      return { phrase, current: c1, previous: c0, currentShare: (100 * c1) / n1, previousShare: n0 === 0 ? 0 : (100 * c0) / n0, growth, z, pValue: z === null ? null : 1 - normalCdf(z), eventIds: ids };
    })
    .filter((t) => t.current >= minSupport && t.growth > 0)
    .sort((a, b) => b.growth - a.growth || b.current - a.current || a.phrase.localeCompare(b.phrase));
  return themes.filter((t) => !themes.some((l) => l !== t && l.current === t.current && ` ${l.phrase} `.includes(` ${t.phrase} `)));
}

describe('risingThemes against the plain definition', () => {
  const word = fc.constantFrom('wrong', 'join', 'slow', 'the', 'not', 'helpful', 'a', 'x', "can't", 'don’t', 'Über', 'naïve', '42', '3.14', '!!', '--', 'wrong-join', 'SQL', 'é');
  const comment = fc.array(word, { maxLength: 25 }).chain((words) => fc.constantFrom(' ', ', ', '  ', '\n').map((sep) => words.join(sep)));
  const period = (prefix: string) => fc.array(comment, { maxLength: 40 }).map((texts) => comments(texts, prefix));

  it('gives the same themes, in the same order, with the same comments', () => {
    fc.assert(
      fc.property(period('c'), period('p'), fc.integer({ min: 1, max: 4 }), (current, previous, minSupport) => {
        expect(risingThemes(current, previous, { minSupport })).toEqual(referenceThemes(current, previous, minSupport));
        for (const c of current.slice(0, 5)) expect(commentPhrases(c.text)).toEqual(referencePhrases(c.text));
      }),
      { numRuns: 300 },
    );
  });
});

/** A comment's distinct phrases, as the plain definition makes them: runs of words, sliced and joined. */
function referencePhrases(text: string): string[] {
  const runs: string[][] = [[]];
  for (const token of text.toLowerCase().replace(/’/g, "'").match(/[\p{L}]+(?:['’][\p{L}]+)*|[^\p{L}\s]+/gu) ?? []) {
    if (!/^\p{L}/u.test(token) || STOP_WORDS.has(token) || token.length < 2) {
      if ((runs.at(-1) ?? []).length > 0) runs.push([]);
    } else runs.at(-1)?.push(token);
  }
  const out = new Set<string>();
  for (const run of runs) for (let i = 0; i < run.length; i++) for (let n = 1; n <= 3 && i + n <= run.length; n++) out.add(run.slice(i, i + n).join(' '));
  return [...out];
}
