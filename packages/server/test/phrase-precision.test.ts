/**
 * Issue 23's measurement: precision of rising themes and user-memory complaint items on 200 real
 * human critiques (Shepherd), before (core's word runs) and after (wink-nlp phrases), against a
 * reviewer's judgement of every item listed, kept in test/data/phrase-precision.json (which says
 * the rule, the source and why the texts are read from ../shared/datasets, not copied here).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { memoryFacts, memoryFromFacts, phraseThemes, risingThemes } from '@feedloop/core';
import { describe, expect, it } from 'vitest';
import { commentPhrasesOf } from '../src/nlp.js';
import { DATASETS_DIR, datasetsAvailable } from './datasets.js';

interface Judged { judgements: Record<'themes' | 'memory', Record<'before' | 'after', Record<string, boolean>>> }
const LABELS = JSON.parse(readFileSync(new URL('./data/phrase-precision.json', import.meta.url), 'utf8')) as Judged;
const LISTED = 20;

describe.skipIf(!datasetsAvailable())('phrase precision on 200 Shepherd critiques', () => {
  const rows = readFileSync(join(DATASETS_DIR, 'shepherd-human-feedback/human_data_for_model.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: number; dataset: string; feedback?: string })
    .filter((r) => typeof r.feedback === 'string' && r.feedback.trim().length > 0)
    .slice(0, 200);
  const previous = rows.slice(0, 100);
  const current = rows.slice(100);
  const now = new Date();

  /** Precision of the listed items against the judgements; an unjudged item fails the test. */
  const precision = (items: readonly string[], judged: Record<string, boolean>, what: string) => {
    const unjudged = items.filter((i) => !(i in judged));
    expect(unjudged, `${what}: items no reviewer judged yet (add them to test/data/phrase-precision.json)`).toEqual([]);
    return items.filter((i) => judged[i]).length / items.length;
  };
  const memoryItems = (phrasesOf?: (text: string) => string[]) =>
    [...new Set(rows.map((r) => r.dataset))].flatMap((ds) => {
      const facts = rows
        .filter((r) => r.dataset === ds)
        .map((r) => memoryFacts({ id: String(r.id), type: 'thumbs_down', payload: { comment: r.feedback ?? '' }, occurredAt: now, answer: null, queryType: null, responseId: `r${r.id}` }, phrasesOf));
      return memoryFromFacts(facts, now).items.filter((i) => i.key === 'complaint').map((i) => `${ds}:${i.value}`);
    });

  it('has 200 comments, and phrases beat word runs for themes and memory items', () => {
    expect(rows).toHaveLength(200);
    const asText = (r: (typeof rows)[number]) => ({ eventId: String(r.id), text: r.feedback ?? '' });
    const asPhrases = (r: (typeof rows)[number]) => ({ eventId: String(r.id), userId: `u${r.id % 40}`, polarity: 'negative' as const, phrases: commentPhrasesOf(r.feedback ?? '') });
    const themesBefore = risingThemes(current.map(asText), previous.map(asText), { limit: LISTED }).map((t) => t.phrase);
    const themesAfter = phraseThemes(current.map(asPhrases), previous.map(asPhrases), { limit: LISTED }).complaints.map((t) => t.phrase);
    const memBefore = memoryItems();
    const memAfter = memoryItems(commentPhrasesOf);
    const figures = {
      themes: { before: precision(themesBefore, LABELS.judgements.themes.before, 'themes before'), after: precision(themesAfter, LABELS.judgements.themes.after, 'themes after') },
      memory: { before: precision(memBefore, LABELS.judgements.memory.before, 'memory before'), after: precision(memAfter, LABELS.judgements.memory.after, 'memory after') },
    };
    console.info(`phrase precision: themes ${figures.themes.before.toFixed(2)} → ${figures.themes.after.toFixed(2)} (${themesAfter.length} listed); memory items ${figures.memory.before.toFixed(2)} → ${figures.memory.after.toFixed(2)} (${memAfter.length} listed)`);
    expect(figures.themes.after).toBeGreaterThan(figures.themes.before + 0.15);
    expect(figures.memory.after).toBeGreaterThan(figures.memory.before + 0.1);
    // Phrases, not words torn apart: no memory item is a bare negation.
    expect(memAfter.some((i) => i.endsWith(':not'))).toBe(false);
  });
});
