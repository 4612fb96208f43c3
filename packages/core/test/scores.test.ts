import { describe, expect, it } from 'vitest';
import { checkScoreConfig, mapScore, scoreOf, scoreRange, summarizeScores, validateScore, voteSlot, type ScoreConfig, type ScoreEvent } from '../src/index.js';

const config = (over: Partial<ScoreConfig>): ScoreConfig => ({ id: 'sc_1', name: 'x', dataType: 'numeric', mapsTo: 'none', weight: 0, archived: false, ...over });
const event = (payload: ScoreEvent['payload']): ScoreEvent => ({ responseId: 'r', userId: 'u', type: 'score', payload }) as ScoreEvent;

describe('validateScore', () => {
  it('checks a numeric range and completes the config id', () => {
    const c = config({ name: 'help', min: 0, max: 1 });
    expect(validateScore({ name: 'help', value: 0.5 }, c)).toEqual({ ok: true, payload: { name: 'help', value: 0.5, configId: 'sc_1' } });
    expect(validateScore({ name: 'help', value: 1.01 }, c)).toMatchObject({ ok: false, error: { code: 'FEEDLOOP_ERR_SCORE_INVALID', field: 'value' } });
    expect(validateScore({ name: 'help', value: -0.01 }, c)).toMatchObject({ ok: false, error: { field: 'value' } });
    expect(validateScore({ name: 'help', stringValue: 'high' }, c)).toMatchObject({ ok: false, error: { field: 'value' } });
    expect(validateScore({ name: 'help', value: 0.5, configId: 'sc_2' }, c)).toMatchObject({ ok: false, error: { field: 'configId' } });
  });

  it('accepts booleans as 1/0 or true/false in any case, and nothing else', () => {
    const c = config({ dataType: 'boolean', mapsTo: 'thumbs' });
    expect(validateScore({ name: 'x', stringValue: 'True' }, c)).toEqual({ ok: true, payload: { name: 'x', value: 1, stringValue: 'true', configId: 'sc_1' } });
    expect(validateScore({ name: 'x', value: 0 }, c)).toEqual({ ok: true, payload: { name: 'x', value: 0, stringValue: 'false', configId: 'sc_1' } });
    expect(validateScore({ name: 'x', value: 0.5 }, c)).toMatchObject({ ok: false, error: { field: 'value' } });
    expect(validateScore({ name: 'x', stringValue: 'yes' }, c)).toMatchObject({ ok: false, error: { field: 'stringValue' } });
  });

  it('finds a category by label or value, which must agree', () => {
    const c = config({ dataType: 'categorical', categories: [{ value: 0, label: 'bad' }, { value: 2, label: 'good' }] });
    expect(validateScore({ name: 'x', value: 2 }, c)).toMatchObject({ ok: true, payload: { value: 2, stringValue: 'good' } });
    expect(validateScore({ name: 'x', stringValue: 'bad' }, c)).toMatchObject({ ok: true, payload: { value: 0, stringValue: 'bad' } });
    expect(validateScore({ name: 'x', value: 1 }, c)).toMatchObject({ ok: false, error: { field: 'value' } });
    expect(validateScore({ name: 'x', value: 2, stringValue: 'bad' }, c)).toMatchObject({ ok: false, error: { field: 'stringValue' } });
  });

  it('wants whole stars for a rating-mapped config', () => {
    const c = config({ name: 'rating', min: 1, max: 5, mapsTo: 'rating' });
    expect(validateScore({ name: 'rating', value: 4.5 }, c)).toMatchObject({ ok: false, error: { field: 'value' } });
  });
});

describe('mapScore', () => {
  it('turns a thumbs-mapped score into a vote that keeps the score and the comment', () => {
    const c = config({ name: 'thumbs', dataType: 'boolean', mapsTo: 'thumbs' });
    const mapped = mapScore(event({ name: 'thumbs', value: 0, stringValue: 'false', configId: 'sc_1', comment: 'no' }), c);
    expect(mapped).toEqual({ responseId: 'r', userId: 'u', type: 'thumbs_down', payload: { comment: 'no', score: { name: 'thumbs', value: 0, stringValue: 'false', configId: 'sc_1' } } });
    expect(voteSlot(mapped)).toBe('thumbs:""');
    expect(scoreOf(mapped)).toEqual({ name: 'thumbs', value: 0, stringValue: 'false', configId: 'sc_1' });
  });

  it('turns a rating-mapped score into a rating, its aspect the name', () => {
    const c = config({ name: 'clarity', min: 1, max: 5, mapsTo: 'rating' });
    const mapped = mapScore(event({ name: 'clarity', value: 4, configId: 'sc_1' }), c);
    expect(mapped).toMatchObject({ type: 'rating', payload: { rating: 4, aspect: 'clarity', score: { name: 'clarity', value: 4 } } });
    expect(voteSlot(mapped)).toBe('rating:"clarity"');
  });

  it('keeps a reviewer’s or a judge’s source through the mapping, and drops a user source for the new type’s', () => {
    const c = config({ name: 'thumbs', dataType: 'boolean', mapsTo: 'thumbs' });
    const judged = { ...event({ name: 'thumbs', value: 1 }), source: 'judge', metadata: { evaluatorId: 'e1' } } as ScoreEvent;
    expect(mapScore(judged, c)).toMatchObject({ type: 'thumbs_up', source: 'judge', metadata: { evaluatorId: 'e1' } });
    expect(mapScore({ ...event({ name: 'thumbs', value: 0 }), source: 'review' } as ScoreEvent, c)).toMatchObject({ type: 'thumbs_down', source: 'review' });
    expect('source' in mapScore({ ...event({ name: 'thumbs', value: 0 }), source: 'explicit' } as ScoreEvent, c)).toBe(false);
  });

  it('leaves an unmapped score a score, in its own slot per name', () => {
    const e = event({ name: 'help', value: 0.3 });
    expect(mapScore(e, config({ name: 'help' }))).toEqual(e);
    expect(voteSlot(e)).toBe('score:"help":""');
    expect(scoreOf(e)).toEqual({ name: 'help', value: 0.3 });
  });
});

describe('checkScoreConfig', () => {
  it('refuses fields that disagree, naming the field', () => {
    expect(checkScoreConfig({ name: 'a', dataType: 'numeric' })).toBeUndefined();
    expect(checkScoreConfig({ name: 'a', dataType: 'numeric', mapsTo: 'rating', min: 0 })?.field).toBe('mapsTo');
    expect(checkScoreConfig({ name: 'a', dataType: 'categorical' })?.field).toBe('categories');
    expect(checkScoreConfig({ name: 'a', dataType: 'boolean', max: 1 })?.field).toBe('max');
  });
});

describe('score intervals within the config range', () => {
  it("keeps a mean's interval within the values its config allows", () => {
    const sums = [{ name: 'tone', count: 2, valued: 2, sum: 1, sumSquares: 1, labels: { polite: 1, rude: 1 } }];
    const [open] = summarizeScores(sums);
    expect(open!.interval!.lower).toBeLessThan(-5);
    const [kept] = summarizeScores(sums, new Map([['tone', scoreRange({ dataType: 'boolean' })]]));
    expect(kept).toMatchObject({ mean: 0.5, interval: { lower: 0, upper: 1 } });
  });

  it('reads the range of each kind of config', () => {
    expect(scoreRange({ dataType: 'numeric', min: 1 })).toEqual({ min: 1 });
    expect(scoreRange({ dataType: 'numeric', min: 1, max: 5 })).toEqual({ min: 1, max: 5 });
    expect(scoreRange({ dataType: 'categorical', categories: [{ value: 2, label: 'b' }, { value: -1, label: 'a' }] })).toEqual({ min: -1, max: 2 });
    expect(scoreRange({ dataType: 'categorical', categories: [] })).toEqual({});
  });
});
