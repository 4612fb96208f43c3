import { describe, expect, it } from 'vitest';
import { FEEDBACK_EVENT_TYPES, type FeedbackEventType } from '../src/event-types.js';
import { changedPercent, classify } from '../src/signals/classify.js';
import type { Classification } from '../src/signals/signal-types.js';
import { SAMPLE_PAYLOADS, enrichedEvent, settingsWith, type StoredFields } from './signals-fixtures.js';

const settings = settingsWith();

function classifyOne(type: FeedbackEventType, payload: unknown, overrides: Partial<StoredFields> = {}, s = settings): Classification {
  return classify(enrichedEvent(type, payload, overrides), s);
}

/** The expected classification of each type's SAMPLE_PAYLOADS entry (edits and corrections at the distance below). */
const EXPECTED: Record<FeedbackEventType, Classification> = {
  thumbs_up: { polarity: 'positive', severity: 'none', categories: [], signalClass: 'explicit_positive', value: 1, firstPass: true },
  thumbs_down: { polarity: 'negative', severity: 'medium', categories: ['accuracy'], signalClass: 'explicit_negative', value: -1, firstPass: false },
  rating: { polarity: 'positive', severity: 'none', categories: [], signalClass: 'explicit_positive', value: 0.5, firstPass: true },
  skip: { polarity: 'neutral', severity: 'none', categories: [], signalClass: 'explicit_neutral', value: 0, firstPass: null },
  comment: { polarity: 'neutral', severity: 'none', categories: [], signalClass: 'explicit_neutral', value: 0, firstPass: null },
  error_categories: {
    polarity: 'negative',
    severity: 'high',
    categories: ['hallucination', 'other'],
    signalClass: 'explicit_negative',
    value: -1,
    firstPass: false,
  },
  quality_scores: { polarity: 'positive', severity: 'none', categories: [], signalClass: 'explicit_positive', value: 0.6, firstPass: null },
  review: { polarity: 'negative', severity: 'medium', categories: ['style_issue'], signalClass: 'explicit_negative', value: -0.5, firstPass: false },
  correction: { polarity: 'negative', severity: 'medium', categories: [], signalClass: 'explicit_negative', value: -0.7, firstPass: false },
  escalation: { polarity: 'negative', severity: 'high', categories: [], signalClass: 'explicit_negative', value: -1, firstPass: false },
  correct_label: { polarity: 'negative', severity: 'low', categories: [], signalClass: 'explicit_negative', value: -0.5, firstPass: null },
  flag_irrelevant: { polarity: 'negative', severity: 'low', categories: [], signalClass: 'explicit_negative', value: -0.5, firstPass: null },
  flag_missing: { polarity: 'negative', severity: 'low', categories: [], signalClass: 'explicit_negative', value: -0.5, firstPass: null },
  correct_citation: { polarity: 'negative', severity: 'low', categories: [], signalClass: 'explicit_negative', value: -0.3, firstPass: null },
  rate_usefulness: { polarity: 'negative', severity: 'low', categories: [], signalClass: 'explicit_negative', value: -0.5, firstPass: false },
  add_note: { polarity: 'neutral', severity: 'none', categories: [], signalClass: 'explicit_neutral', value: 0, firstPass: null },
  score: { polarity: 'neutral', severity: 'none', categories: [], signalClass: 'explicit_neutral', value: 0, firstPass: null },
  preference: { polarity: 'neutral', severity: 'none', categories: [], signalClass: 'explicit_neutral', value: 0, firstPass: null },
  edit: { polarity: 'negative', severity: 'low', categories: [], signalClass: 'immediate_edit', value: -0.6, firstPass: false },
  retry: { polarity: 'negative', severity: 'low', categories: [], signalClass: 'retry', value: -1, firstPass: false },
  abandon: { polarity: 'negative', severity: 'low', categories: [], signalClass: 'abandonment', value: -1, firstPass: null },
  continue: { polarity: 'positive', severity: 'none', categories: [], signalClass: 'continued_use', value: 1, firstPass: null },
  implicit_accept: { polarity: 'positive', severity: 'none', categories: [], signalClass: 'continued_use', value: 1, firstPass: true },
  implicit_reject: { polarity: 'negative', severity: 'low', categories: [], signalClass: 'retry', value: -1, firstPass: false },
  outcome: { polarity: 'positive', severity: 'none', categories: [], signalClass: 'outcome', value: 1, firstPass: null },
};

/** Edit distances given to the sample edit (60 %) and correction (60 %: -(0.25 + 0.75 × 0.6) = -0.7). */
const SAMPLE_EDIT_DISTANCE = 60;

describe('classify', () => {
  it.each(FEEDBACK_EVENT_TYPES)('classifies a sample %s event', (type) => {
    const result = classifyOne(type, SAMPLE_PAYLOADS[type], { editDistance: SAMPLE_EDIT_DISTANCE });
    expect(result.polarity).toBe(EXPECTED[type].polarity);
    expect(result.signalClass).toBe(EXPECTED[type].signalClass);
    expect(result.value).toBeCloseTo(EXPECTED[type].value, 12);
    expect({ ...result, value: EXPECTED[type].value }).toEqual(EXPECTED[type]);
    expect(result.value).toBeGreaterThanOrEqual(-1);
    expect(result.value).toBeLessThanOrEqual(1);
  });

  it('covers every event type in the expectations', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...FEEDBACK_EVENT_TYPES].sort());
  });

  it('keeps a thumbs up’s category (Phase 4.1 byCategory.positive) and a vote without one empty', () => {
    expect(classifyOne('thumbs_up', { category: 'relevance' }).categories).toEqual(['relevance']);
    expect(classifyOne('thumbs_up', {}).categories).toEqual([]);
    expect(classifyOne('thumbs_down', {}).categories).toEqual([]);
  });

  it.each([
    [1, 'negative', 'explicit_negative', -1, 'medium', false],
    [2, 'negative', 'explicit_negative', -0.5, 'low', false],
    [3, 'neutral', 'explicit_neutral', 0, 'none', null],
    [4, 'positive', 'explicit_positive', 0.5, 'none', true],
    [5, 'positive', 'explicit_positive', 1, 'none', true],
  ] as const)('maps %i stars (rating and rate_usefulness) to %s, value %d', (stars, polarity, signalClass, value, severity, firstPass) => {
    for (const type of ['rating', 'rate_usefulness'] as const) {
      expect(classifyOne(type, { rating: stars })).toEqual({ polarity, severity, categories: [], signalClass, value, firstPass });
    }
  });

  it('marks error categories high only for hallucinations', () => {
    expect(classifyOne('error_categories', { categories: ['missing_context', 'style_mismatch'] })).toMatchObject({
      severity: 'medium',
      categories: ['missing_context', 'style_mismatch'],
    });
  });

  it.each([
    [{ accuracy: 70 }, 'positive', 'explicit_positive', 0.4, 'none'],
    [{ accuracy: 69 }, 'neutral', 'explicit_neutral', 0.38, 'none'],
    [{ accuracy: 40 }, 'neutral', 'explicit_neutral', -0.2, 'none'],
    [{ accuracy: 39 }, 'negative', 'explicit_negative', -0.22, 'low'],
    [{ accuracy: 100, completeness: 0, styleMatch: 50 }, 'neutral', 'explicit_neutral', 0, 'none'],
    [{ styleMatch: 0 }, 'negative', 'explicit_negative', -1, 'low'],
  ] as const)('scores quality %o by its mean', (scores, polarity, signalClass, value, severity) => {
    const result = classifyOne('quality_scores', scores);
    expect(result).toMatchObject({ polarity, signalClass, severity, firstPass: null });
    expect(result.value).toBeCloseTo(value, 12);
  });

  it('classifies review verdicts and escalates hallucinations and security concerns', () => {
    expect(classifyOne('review', { verdict: 'approved' })).toEqual({
      polarity: 'positive',
      severity: 'none',
      categories: [],
      signalClass: 'explicit_positive',
      value: 1,
      firstPass: true,
    });
    expect(classifyOne('review', { verdict: 'rejected', issues: ['missed_requirement'] })).toEqual({
      polarity: 'negative',
      severity: 'high',
      categories: ['missed_requirement'],
      signalClass: 'explicit_negative',
      value: -1,
      firstPass: false,
    });
    expect(classifyOne('review', { verdict: 'changes_requested', issues: ['security_concern', 'style_issue'] })).toMatchObject({
      severity: 'high',
      value: -0.5,
      categories: ['security_concern', 'style_issue'],
    });
    expect(classifyOne('review', { verdict: 'approved', issues: ['hallucination'] })).toMatchObject({ polarity: 'positive', severity: 'high' });
  });

  it('prices a correction by how much it changed: a one-third rewrite is about -0.5 (the seed example)', () => {
    const correct = (editDistance: number | null) => classifyOne('correction', { corrected: 'x' }, { editDistance }).value;
    expect(correct(100 / 3)).toBeCloseTo(-0.5, 12);
    expect(correct(33)).toBeCloseTo(-0.4975, 12);
    expect(correct(0)).toBe(-0.25);
    expect(correct(100)).toBe(-1);
    expect(correct(null)).toBe(-1);
    expect(classifyOne('correction', { corrected: 'x' }, { editDistance: 90 })).toMatchObject({ severity: 'medium', firstPass: false });
  });

  it('treats small edits as refinements and heavy ones as rejecting the first pass', () => {
    const edit = (editDistance: number | null, phase?: 'immediate' | 'long_term', s = settings) =>
      classifyOne('edit', { edited: 'y', ...(phase ? { phase } : {}) }, { editDistance }, s);
    expect(edit(null)).toEqual({ polarity: 'neutral', severity: 'none', categories: [], signalClass: 'immediate_edit', value: 0, firstPass: null });
    expect(edit(9)).toMatchObject({ polarity: 'neutral', severity: 'none', value: -0.09, firstPass: null });
    expect(edit(10)).toMatchObject({ polarity: 'negative', severity: 'low', value: -0.1, firstPass: null });
    expect(edit(29)).toMatchObject({ polarity: 'negative', firstPass: null });
    expect(edit(30)).toMatchObject({ polarity: 'negative', value: -0.3, firstPass: false });
    expect(edit(30, undefined, settingsWith({ heavyEditPercent: 50 }))).toMatchObject({ firstPass: null });
    expect(edit(100, 'long_term')).toMatchObject({ signalClass: 'long_term_edit', value: -1, firstPass: false });
    expect(Object.is(edit(0).value, 0)).toBe(true);
  });

  it('clamps outcomes to [-1, 1] and takes their polarity from the sign', () => {
    const outcome = (value: number) => classifyOne('outcome', { metric: 'm', value, source: 'user_report' });
    expect(outcome(0.25)).toMatchObject({ polarity: 'positive', value: 0.25, severity: 'none' });
    expect(outcome(-5)).toMatchObject({ polarity: 'negative', value: -1, severity: 'low', signalClass: 'outcome' });
    expect(outcome(0)).toMatchObject({ polarity: 'neutral', value: 0, severity: 'none' });
    expect(Object.is(outcome(-0).value, 0)).toBe(true);
  });

  it('tells how much an edit or correction changed, with the defaults classify uses', () => {
    expect(changedPercent('correction', null)).toBe(100);
    expect(changedPercent('correction', 12)).toBe(12);
    expect(changedPercent('edit', null)).toBe(0);
    expect(changedPercent('edit', 60)).toBe(60);
    expect(changedPercent('review', 60)).toBeNull();
  });

  it('is pure: the same event gives the same classification', () => {
    const event = enrichedEvent('error_categories', SAMPLE_PAYLOADS.error_categories);
    expect(classify(event, settings)).toEqual(classify(event, settings));
  });
});
