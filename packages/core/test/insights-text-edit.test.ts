import { describe, expect, it } from 'vitest';
import { textEditKinds, wordLcsLength, words } from '../src/insights/text-edit.js';
import { DATASETS_DIR, readJsonLines } from './datasets.js';

describe('textEditKinds', () => {
  it.each([
    ['a fact fixed', 'The Eiffel Tower is 330 metres tall and opened in 1887.', 'The Eiffel Tower is 330 metres tall and opened in 1889.', ['number_changed']],
    [
      'hedging removed',
      'I think the function might return null when the list is empty, but I am not sure.',
      'The function returns null when the list is empty.',
      ['hedging_removed', 'shortened'],
    ],
    ['hedging added', 'Restart the server to apply the change.', 'Restarting the server will probably apply the change.', ['hedging_added']],
    [
      'prose to a list',
      'You need Node 20, a Postgres database and a Redis server.',
      'You need:\n- Node 20\n- a Postgres database\n- a Redis server',
      ['list_formatting'],
    ],
    ['emoji removed', 'Great question! 🎉 The answer is yes 👍', 'The answer is yes.', ['emoji_removed', 'tone_changed']],
    [
      'tone made formal',
      'Hey! Sorry, unfortunately the export is gonna fail for big files!',
      'The export fails for files larger than the limit.',
      ['tone_changed'],
    ],
    [
      'shortened',
      'To reset your password, open the settings page, then go to the security tab, then click the reset button, and finally follow the link in the email we send you.',
      'Settings → Security → Reset, then follow the emailed link.',
      ['shortened'],
    ],
    ['lengthened', 'Use an index.', 'Use a partial index on the workspace and the time column, so the scan stays within the range.', ['lengthened']],
    ['a typo', 'The retention is ninety days for raw evnets.', 'The retention is ninety days for raw events.', ['minor_fix']],
  ])('%s', (_name, original, corrected, kinds) => {
    expect(textEditKinds(original, corrected)).toEqual(kinds);
  });

  it('finds nothing in an unchanged text', () => {
    expect(textEditKinds('same', 'same')).toEqual([]);
  });

  it('counts a word as one token in the LCS', () => {
    expect(words("Don't pay 1,000 EUR.")).toEqual(["don't", 'pay', '1,000', 'eur']);
    expect(wordLcsLength(['the', 'cat', 'sat'], ['the', 'dog', 'sat'])).toBe(2);
    expect(wordLcsLength(['a', 'b', 'c', 'd'], ['d', 'c', 'b', 'a'])).toBe(1);
  });

  // Shepherd (facebookresearch/Shepherd, CC BY-NC 4.0): a model's GSM8K answer and the gold
  // answer. Where the final answers differ, a correction from one to the other fixes a number.
  describe.skipIf(DATASETS_DIR === undefined)('on Shepherd GSM8K candidate → gold answers', () => {
    interface Raw {
      dataset: string;
      metadata: { output_candidate: string; output_correct: string };
    }
    const finalAnswer = (s: string) => /answer is\s*\$?(-?[\d,.]*\d)/i.exec(s)?.[1]?.replace(/,/g, '');
    const pairs = readJsonLines<Raw>('shepherd-human-feedback/human_data_raw.jsonl')
      .filter((r) => r.dataset === 'GSM8K')
      .map((r) => ({ candidate: r.metadata.output_candidate, gold: r.metadata.output_correct }))
      .filter((p) => finalAnswer(p.candidate) !== undefined && finalAnswer(p.gold) !== undefined);

    it('reports number_changed for (nearly) every wrong final answer, and not for every right one', () => {
      const wrong = pairs.filter((p) => finalAnswer(p.candidate) !== finalAnswer(p.gold));
      const right = pairs.filter((p) => finalAnswer(p.candidate) === finalAnswer(p.gold));
      expect(wrong.length).toBeGreaterThan(100);
      const hit = wrong.filter((p) => textEditKinds(p.candidate, p.gold).includes('number_changed')).length;
      expect(hit / wrong.length).toBeGreaterThan(0.95);
      // Right answers reworked by the gold solution still change intermediate numbers often;
      // the rule must not be "always".
      const rightHits = right.filter((p) => textEditKinds(p.candidate, p.gold).includes('number_changed')).length;
      expect(rightHits).toBeLessThan(right.length);
    });
  });
});
