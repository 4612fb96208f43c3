import { describe, expect, it } from 'vitest';
import { chunkPhrases, type TaggedToken } from '../src/insights/phrase-chunks.js';
import { commentPolarity, nearDuplicates, phraseThemes, type PhraseComment } from '../src/insights/phrase-themes.js';

/** Tokens as wink-nlp tags them: `word/POS/lemma`, `!` marks a negated token. */
const tag = (s: string): TaggedToken[] =>
  s.split(' ').map((w) => {
    const [text, pos, lemma] = w.replace(/^!/, '').split('/') as [string, string, string | undefined];
    return { text, pos, lemma: lemma ?? text.toLowerCase(), negated: w.startsWith('!') };
  });

describe('chunkPhrases', () => {
  it('keeps a complaint as one phrase, never its words', () => {
    expect(chunkPhrases(tag('this/PRON cites/VERB/cite an/DET outdated/ADJ policy/NOUN'))).toEqual(['cite outdated policy']);
  });

  it('keeps verbs with particles, negation and predicate adjectives', () => {
    expect(chunkPhrases(tag('The/DET query/NOUN made/VERB/make up/ADP a/DET setting/NOUN that/PRON does/AUX/do not/PART !exist/VERB'))).toEqual([
      'query',
      'make up setting',
      'not exist',
    ]);
    expect(chunkPhrases(tag('too/ADV long/ADJ ,/PUNCT I/PRON asked/VERB/ask for/ADP a/DET short/ADJ answer/NOUN'))).toEqual(['too long', 'ask for short answer']);
    expect(chunkPhrases(tag('the/DET numbers/NOUN/number were/AUX/be not/PART !correct/ADJ'))).toEqual(['number', 'not correct']);
    // A light verb alone says nothing.
    expect(chunkPhrases(tag('it/PRON is/AUX/be what/PRON I/PRON have/VERB'))).toEqual([]);
  });
});

describe('phraseThemes', () => {
  const c = (eventId: string, userId: string | null, polarity: PhraseComment['polarity'], ...phrases: string[]): PhraseComment => ({ eventId, userId, polarity, phrases });

  it('merges near-duplicates, never a phrase with its negation', () => {
    expect(nearDuplicates('outdated policy', 'cite outdated policy')).toBe(true);
    expect(nearDuplicates('wrong join', 'wrong join condition')).toBe(true);
    expect(nearDuplicates('not exist', 'exist')).toBe(false);
    expect(nearDuplicates('policy', 'cite outdated policy')).toBe(false);
  });

  it('separates complaints from praise by polarity, counts distinct users and tests the rise', () => {
    const current = [
      c('e1', 'u1', 'negative', 'cite outdated policy'),
      c('e2', 'u2', 'negative', 'outdated policy'),
      c('e3', 'u3', 'negative', 'cite outdated policy', 'too long'),
      c('e4', 'u3', 'negative', 'outdated policy'),
      c('e5', 'u4', 'negative', 'too long'),
      c('e6', 'u5', 'negative', 'slow'),
      c('e7', 'u6', 'positive', 'perfect'),
      c('e8', 'u7', 'positive', 'perfect'),
      c('e9', 'u8', 'positive', 'perfect'),
    ];
    const previous = [
      ...Array.from({ length: 8 }, (_, i) => c(`p${i}`, `v${i}`, 'negative', 'too long')),
      c('p9', 'v9', 'negative', 'slow'),
      c('p10', 'v10', 'positive', 'perfect'),
    ];
    const { complaints, praise } = phraseThemes(current, previous);
    expect(complaints.map((t) => t.phrase)).toEqual(['cite outdated policy']);
    expect(complaints[0]).toMatchObject({ variants: ['cite outdated policy', 'outdated policy'], current: 4, previous: 0, users: 3, rose: true, eventIds: ['e1', 'e2', 'e3', 'e4'] });
    expect(complaints[0]?.pValue).toBeLessThan(0.05);
    // "perfect" is praise, never a complaint; it grew but 3 of 3 against 1 of 1 is no evidence.
    expect(praise.map((t) => [t.phrase, t.users, t.rose])).toEqual([['perfect', 3, false]]);
  });

  it('does not call one user saying a phrase three times a rise', () => {
    const current = [c('e1', 'u1', 'negative', 'wrong join'), c('e2', 'u1', 'negative', 'wrong join'), c('e3', 'u1', 'negative', 'wrong join'), ...Array.from({ length: 5 }, (_, i) => c(`x${i}`, `w${i}`, 'negative', 'other'))];
    const previous = Array.from({ length: 20 }, (_, i) => c(`p${i}`, `v${i}`, 'negative', 'other'));
    const [theme] = phraseThemes(current, previous).complaints;
    expect(theme).toMatchObject({ phrase: 'wrong join', users: 1, rose: false });
  });

  it('sides a comment by its feedback, and a plain comment by its sentiment (praise only when it says so)', () => {
    expect(commentPolarity('thumbs_down', null, 0.9)).toBe('negative');
    expect(commentPolarity('thumbs_up', null, -0.9)).toBe('positive');
    expect(commentPolarity('rating', 5, -0.5)).toBe('positive');
    expect(commentPolarity('comment', null, 0.45)).toBe('positive');
    expect(commentPolarity('comment', null, -0.6)).toBe('negative');
    expect(commentPolarity('comment', null, 0.02)).toBe('negative');
    expect(commentPolarity('rating', 3, 0.9)).toBe('neutral');
  });
});
