import { describe, expect, it } from 'vitest';
import {
  ATTRIBUTABLE_TYPES,
  FEEDBACK_EVENT_TYPES,
  LABEL_ACTION_TYPES,
  SIGNAL_SOURCES,
  allowedSources,
  isUserSource,
  sourceClaimError,
  sourceOfEvent,
  sourceOfType,
  validateFeedbackEvent,
  type FeedbackEventType,
} from '../src/index.js';

/** A valid payload for each type (undefined: the type takes none). */
const PAYLOADS: Record<FeedbackEventType, unknown> = {
  thumbs_up: undefined,
  thumbs_down: undefined,
  rating: { rating: 4 },
  skip: undefined,
  comment: { comment: 'fine' },
  error_categories: { categories: ['hallucination'] },
  quality_scores: { accuracy: 80 },
  review: { verdict: 'approved' },
  correction: { corrected: 'better' },
  escalation: undefined,
  correct_label: { correct_relation: 'SUPPORTS' },
  flag_irrelevant: undefined,
  flag_missing: { missing_text: 'x' },
  correct_citation: { cited_fragment_id: 'f', correction_type: 'add' },
  rate_usefulness: { rating: 3 },
  add_note: { note: 'n' },
  score: { name: 'helpfulness', value: 1 },
  preference: { pair: ['r1', 'r2'], preferred: 'r1' },
  edit: { edited: 'e' },
  retry: { rephrasedQuery: 'q' },
  abandon: undefined,
  continue: undefined,
  implicit_accept: undefined,
  implicit_reject: undefined,
  outcome: { metric: 'm', value: 1, source: 'integration' },
};

const labelled = new Set<string>(LABEL_ACTION_TYPES);
const attributable = new Set<string>(ATTRIBUTABLE_TYPES);

function event(type: FeedbackEventType, source?: string, metadata?: Record<string, unknown>) {
  const payload = PAYLOADS[type];
  return {
    responseId: 'r1',
    type,
    ...(labelled.has(type) ? { targetId: 't1' } : {}),
    ...(payload === undefined ? {} : { payload }),
    ...(source === undefined ? {} : { source }),
    ...(metadata === undefined ? {} : { metadata }),
  };
}

describe('signal sources', () => {
  it('lists the five sources, review and judge among them', () => {
    expect([...SIGNAL_SOURCES]).toEqual(['explicit', 'implicit', 'outcome', 'review', 'judge']);
  });

  it('takes the brief’s explicit-judgement types (and only explicit ones) as attributable', () => {
    for (const type of ['thumbs_up', 'thumbs_down', 'rating', 'score', 'review', 'quality_scores', 'correction', 'comment', 'error_categories', 'preference']) {
      expect(attributable.has(type)).toBe(true);
    }
    for (const type of ATTRIBUTABLE_TYPES) expect(sourceOfType(type)).toBe('explicit');
  });

  // Every (type, source) pair: allowed exactly when it is the type's own source, or review/judge
  // on an attributable type; a refusal is a 400 naming `source`.
  for (const type of FEEDBACK_EVENT_TYPES) {
    for (const source of SIGNAL_SOURCES) {
      const allowed = source === sourceOfType(type) || (attributable.has(type) && (source === 'review' || source === 'judge'));
      it(`${allowed ? 'accepts' : 'refuses'} ${type} with source ${source}`, () => {
        const meta = source === 'judge' ? { evaluatorId: 'ev-1' } : undefined;
        const v = validateFeedbackEvent(event(type, source, meta));
        if (allowed) {
          expect(v.ok).toBe(true);
          if (v.ok) expect(sourceOfEvent(v.value)).toBe(source);
        } else {
          expect(v).toMatchObject({ ok: false, error: { code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field: 'source' } });
          if (!v.ok) expect(v.error.message).toMatch(/^source: /);
        }
        expect(allowedSources(type).includes(source)).toBe(allowed);
      });
    }
  }

  it('derives the source from the type when absent', () => {
    const v = validateFeedbackEvent(event('retry'));
    expect(v.ok && sourceOfEvent(v.value)).toBe('implicit');
    const p = validateFeedbackEvent(event('preference'));
    expect(p.ok && sourceOfEvent(p.value)).toBe('explicit');
  });

  it('needs a judge event to name its evaluator in metadata.evaluatorId', () => {
    expect(validateFeedbackEvent(event('thumbs_up', 'judge'))).toMatchObject({ ok: false, error: { field: 'metadata.evaluatorId' } });
    expect(validateFeedbackEvent(event('thumbs_up', 'judge', { evaluatorId: '' }))).toMatchObject({ ok: false, error: { field: 'metadata.evaluatorId' } });
    expect(validateFeedbackEvent(event('thumbs_up', 'judge', { evaluatorId: 7 }))).toMatchObject({ ok: false, error: { field: 'metadata.evaluatorId' } });
    expect(validateFeedbackEvent(event('thumbs_up', 'judge', { evaluatorId: 'x'.repeat(201) }))).toMatchObject({ ok: false, error: { field: 'metadata.evaluatorId' } });
    expect(validateFeedbackEvent(event('thumbs_up', 'judge', { evaluatorId: 'gpt-judge' })).ok).toBe(true);
    // A reviewer needs no evaluator.
    expect(validateFeedbackEvent(event('thumbs_up', 'review')).ok).toBe(true);
  });

  it('tells user sources from a reviewer’s and a judge’s', () => {
    expect(SIGNAL_SOURCES.filter(isUserSource)).toEqual(['explicit', 'implicit', 'outcome']);
  });
});

describe('sourceClaimError', () => {
  it('lets a secret key claim review and judge, never a public key or a token', () => {
    for (const source of ['review', 'judge'] as const) {
      expect(sourceClaimError(source, 'secret')).toBeUndefined();
      expect(sourceClaimError(source, 'public')).toMatchObject({ code: 'FEEDLOOP_ERR_AUTH_SOURCE_FORBIDDEN', field: 'source' });
    }
    for (const source of ['explicit', 'implicit', 'outcome', undefined] as const) expect(sourceClaimError(source, 'public')).toBeUndefined();
  });
});

describe('preference payload', () => {
  const base = { responseId: 'a', type: 'preference' as const };
  it('accepts a preferred id of the pair, or a tie, with the order shown', () => {
    expect(validateFeedbackEvent({ ...base, payload: { pair: ['a', 'b'], preferred: 'b', shown: ['b', 'a'] } }).ok).toBe(true);
    expect(validateFeedbackEvent({ ...base, payload: { pair: ['a', 'b'], preferred: 'tie' } }).ok).toBe(true);
  });
  it('refuses each broken shape by its field', () => {
    const cases: Array<[unknown, string, string]> = [
      [{ pair: ['a'], preferred: 'a' }, 'payload.pair', 'one id'],
      [{ pair: ['a', 'b', 'c'], preferred: 'a' }, 'payload.pair', 'three ids'],
      [{ pair: ['a', 'a'], preferred: 'a' }, 'payload.pair', 'the same id twice'],
      [{ pair: ['a', 'tie'], preferred: 'a' }, 'payload.pair', 'the reserved word'],
      [{ pair: ['a', 'b'], preferred: 'c' }, 'payload.preferred', 'a third id'],
      [{ pair: ['a', 'b'] }, 'payload.preferred', 'no verdict'],
      [{ pair: ['a', 'b'], preferred: 'a', shown: ['a', 'c'] }, 'payload.shown', 'another response shown'],
      [{ pair: ['a', 'b'], preferred: 'a', shown: ['a', 'a'] }, 'payload.shown', 'one response shown twice'],
      [{ pair: ['a', 'b'], preferred: 'a', position: 1 }, 'payload.position', 'a position field'],
    ];
    for (const [payload, field, why] of cases) {
      const v = validateFeedbackEvent({ ...base, payload });
      expect(v, why).toMatchObject({ ok: false, error: { field } });
    }
  });
  it('is about one of its pair', () => {
    expect(validateFeedbackEvent({ ...base, responseId: 'c', payload: { pair: ['a', 'b'], preferred: 'a' } })).toMatchObject({
      ok: false,
      error: { field: 'responseId' },
    });
    expect(validateFeedbackEvent({ ...base, responseId: 'b', payload: { pair: ['a', 'b'], preferred: 'a' } }).ok).toBe(true);
  });
});
