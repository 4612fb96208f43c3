/**
 * Issue 28's pure parts: which changes make a new evaluator version, how a judge's answer becomes
 * its event, and the labels a judge is calibrated on (human majority rules, judge labels).
 */
import { describe, expect, it } from 'vitest';
import { calibrationPairs, humanPairLabel, humanRating, humanResponseLabel, judgeLabel } from '../src/evaluators/calibration-labels.js';
import { versionChanges, type EvaluatorAnswerSettings } from '../src/evaluators/evaluator-definition.js';
import { judgeEventId, readJudgeAnswer, type AnswerContext } from '../src/evaluators/judge-answer.js';

const settings: EvaluatorAnswerSettings = { url: 'https://judge.example/', kind: 'pointwise', output: 'thumbs', scoreConfigId: null, filter: { agent: 'a', model: 'm' } };
const thumbs: AnswerContext = { kind: 'pointwise', output: 'thumbs', scoreName: 'judge', scoreConfigId: null };

describe('versionChanges', () => {
  it('changes the version for url, kind, output, score config and filter, not for key order', () => {
    expect(versionChanges(settings, { ...settings })).toBe(false);
    expect(versionChanges(settings, { ...settings, filter: { model: 'm', agent: 'a' } })).toBe(false);
    expect(versionChanges(settings, { ...settings, filter: { agent: 'b', model: 'm' } })).toBe(true);
    expect(versionChanges(settings, { ...settings, url: 'https://judge.example/v2' })).toBe(true);
    expect(versionChanges(settings, { ...settings, kind: 'pairwise' })).toBe(true);
    expect(versionChanges(settings, { ...settings, output: 'rating' })).toBe(true);
    expect(versionChanges(settings, { ...settings, scoreConfigId: 'sc_1' })).toBe(true);
  });
});

describe('readJudgeAnswer', () => {
  it('reads thumbs, ratings and scores with their label and rationale', () => {
    expect(readJudgeAnswer({ thumbs: 'up', label: 'ok', rationale: 'why' }, thumbs)).toEqual({ ok: true, part: { type: 'thumbs_up', payload: {}, label: 'ok', rationale: 'why' } });
    expect(readJudgeAnswer({ thumbs: false }, thumbs)).toEqual({ ok: true, part: { type: 'thumbs_down', payload: {} } });
    expect(readJudgeAnswer({ rating: 4 }, { ...thumbs, output: 'rating' })).toEqual({ ok: true, part: { type: 'rating', payload: { rating: 4 } } });
    expect(readJudgeAnswer({ score: 0.25 }, { ...thumbs, output: 'score', scoreConfigId: 'sc_1' })).toEqual({
      ok: true,
      part: { type: 'score', payload: { name: 'judge', value: 0.25, configId: 'sc_1' } },
    });
  });

  it('refuses what is not an answer, naming the field', () => {
    expect(readJudgeAnswer('up', thumbs)).toMatchObject({ ok: false });
    expect(readJudgeAnswer({ thumbs: 'sideways' }, thumbs)).toMatchObject({ ok: false, message: expect.stringMatching(/^thumbs:/) });
    expect(readJudgeAnswer({ rating: 6 }, { ...thumbs, output: 'rating' })).toMatchObject({ ok: false, message: expect.stringMatching(/^rating:/) });
    expect(readJudgeAnswer({ score: 'high' }, { ...thumbs, output: 'score' })).toMatchObject({ ok: false, message: expect.stringMatching(/^score:/) });
    expect(readJudgeAnswer({ thumbs: 'up', label: '' }, thumbs)).toMatchObject({ ok: false, message: expect.stringMatching(/^label:/) });
  });

  it('reads a pairwise preference by response id or tie, never by position', () => {
    const pair: AnswerContext = { ...thumbs, kind: 'pairwise', pair: ['r1', 'r2'] };
    expect(readJudgeAnswer({ preferred: 'r2' }, pair)).toEqual({ ok: true, part: { type: 'preference', payload: { pair: ['r1', 'r2'], preferred: 'r2', shown: ['r1', 'r2'] } } });
    expect(readJudgeAnswer({ preferred: 'tie' }, pair)).toMatchObject({ ok: true, part: { payload: { preferred: 'tie' } } });
    expect(readJudgeAnswer({ preferred: 'first' }, pair)).toMatchObject({ ok: false, message: expect.stringMatching(/^preferred:/) });
  });

  it('names the event after the call, the same on every attempt', () => {
    expect(judgeEventId('ev_1', 42)).toBe('jd:ev_1:42');
  });
});

describe('calibration labels', () => {
  const e = (type: string, payload: Record<string, unknown> = {}) => ({ type, payload });

  it('takes the reviews’ majority verdict over the votes, and leaves a split out', () => {
    expect(humanResponseLabel([e('review', { verdict: 'approved' }), e('review', { verdict: 'approved' }), e('review', { verdict: 'rejected' })], [e('thumbs_down')])).toBe('positive');
    expect(humanResponseLabel([e('review', { verdict: 'changes_requested' })], [e('thumbs_up')])).toBe('negative');
    expect(humanResponseLabel([e('review', { verdict: 'approved' }), e('review', { verdict: 'rejected' })], [e('thumbs_up')])).toBeNull();
  });

  it('nets the explicit votes: a rating ≥ 4 is positive, ≤ 2 negative, 3 neither', () => {
    expect(humanResponseLabel([], [e('thumbs_up'), e('rating', { rating: 2 }), e('rating', { rating: 5 })])).toBe('positive');
    expect(humanResponseLabel([], [e('thumbs_up'), e('thumbs_down')])).toBeNull();
    expect(humanResponseLabel([], [e('rating', { rating: 3 })])).toBeNull();
    expect(humanResponseLabel([], [])).toBeNull();
    expect(humanRating([e('rating', { rating: 4 }), e('rating', { rating: 5 }), e('thumbs_up')])).toBe(5);
  });

  it('positions pairwise verdicts in the item’s order; tie is a label, no majority is none', () => {
    const pair = ['a', 'b'] as const;
    expect(humanPairLabel([e('preference', { preferred: 'b' }), e('preference', { preferred: 'b' }), e('preference', { preferred: 'a' })], pair)).toBe('second');
    expect(humanPairLabel([e('preference', { preferred: 'tie' })], pair)).toBe('tie');
    expect(humanPairLabel([e('preference', { preferred: 'a' }), e('preference', { preferred: 'b' })], pair)).toBeNull();
    expect(judgeLabel(e('preference', { preferred: 'a' }), 'nominal', pair)).toBe('first');
  });

  it('labels a judge’s own answers on the scale of its kind', () => {
    expect(judgeLabel(e('thumbs_down'), 'binary')).toBe('negative');
    expect(judgeLabel(e('rating', { rating: 3 }), 'binary')).toBeNull();
    expect(judgeLabel(e('rating', { rating: 3 }), 'rating')).toBe(3);
    expect(judgeLabel(e('score', { name: 'j', value: 0.7 }), 'binary')).toBe('positive');
  });

  it('pairs only the units both sides labelled', () => {
    const unit = (id: string, judge: ReturnType<typeof e>, votes: Array<ReturnType<typeof e>>) => ({ unitId: id, responseId: id, week: '2026-11-23', judge, reviews: [], votes, preferences: [] });
    expect(calibrationPairs([unit('r1', e('thumbs_up'), [e('thumbs_down')]), unit('r2', e('thumbs_up'), []), unit('r3', e('rating', { rating: 3 }), [e('thumbs_up')])], 'binary')).toEqual([
      { unitId: 'r1', judge: 'positive', human: 'negative', week: '2026-11-23', kind: 'binary' },
    ]);
  });
});
