import { describe, expect, it } from 'vitest';
import { FEEDBACK_EVENT_TYPES, LABEL_ACTION_TYPES, sourceOfType, validateFeedbackEvent, validateResponse, type FeedbackEventType } from '../src/index.js';

/** One valid payload per type, and one broken one with the field it breaks. */
const EXAMPLES: Record<FeedbackEventType, { ok: unknown; bad: [unknown, string] }> = {
  thumbs_up: { ok: { comment: 'great', category: 'accuracy' }, bad: [{ category: 'vibes' }, 'payload.category'] },
  thumbs_down: { ok: undefined, bad: [{ comment: '' }, 'payload.comment'] },
  rating: { ok: { rating: 5, aspect: 'clarity' }, bad: [{ rating: 2.5 }, 'payload.rating'] },
  skip: { ok: {}, bad: [{ why: 'x' }, 'payload.why'] },
  comment: { ok: { comment: 'too long' }, bad: [{}, 'payload.comment'] },
  error_categories: {
    ok: { categories: ['hallucination', 'missing_context'], missingContext: 'the Q3 report' },
    bad: [{ categories: [] }, 'payload.categories'],
  },
  quality_scores: { ok: { accuracy: 90, styleMatch: 40 }, bad: [{ accuracy: 101 }, 'payload.accuracy'] },
  review: { ok: { verdict: 'changes_requested', issues: ['security_concern'] }, bad: [{ verdict: 'meh' }, 'payload.verdict'] },
  correction: { ok: { original: 'SELECT 1', corrected: 'SELECT 2', format: 'sql' }, bad: [{ original: 'x' }, 'payload.corrected'] },
  escalation: { ok: { reason: 'wants a human' }, bad: [{ reason: 7 }, 'payload.reason'] },
  correct_label: { ok: { correct_relation: 'SUPPORTS', original_relation: 'NEUTRAL', confidence: 0.95 }, bad: [{ correct_relation: 'SUPPORTS', confidence: 2 }, 'payload.confidence'] },
  flag_irrelevant: { ok: { reason: 'an advert' }, bad: [{ reason: '' }, 'payload.reason'] },
  flag_missing: { ok: { missing_text: 'Figure 3 shows…', location_hint: 'Results' }, bad: [{ location_hint: 'x' }, 'payload.missing_text'] },
  correct_citation: { ok: { cited_fragment_id: 'frag_target', correction_type: 'remove' }, bad: [{ cited_fragment_id: 'f', correction_type: 'swap' }, 'payload.correction_type'] },
  rate_usefulness: { ok: { rating: 1, aspect: 'credibility' }, bad: [{ rating: 3, aspect: 'taste' }, 'payload.aspect'] },
  add_note: { ok: { note: 'overturned since 2023' }, bad: [{ note: '' }, 'payload.note'] },
  score: { ok: { name: 'helpfulness', value: 0.7, comment: 'mostly' }, bad: [{ name: 'helpfulness' }, 'payload.value'] },
  preference: { ok: { pair: ['r1', 'r2'], preferred: 'r2', shown: ['r2', 'r1'], reason: 'shorter' }, bad: [{ pair: ['r1', 'r2'], preferred: 'r3' }, 'payload.preferred'] },
  edit: { ok: { edited: 'new text', phase: 'long_term', elapsedMs: 5000 }, bad: [{ edited: 'x', elapsedMs: -1 }, 'payload.elapsedMs'] },
  retry: { ok: { rephrasedQuery: 'sales in the US last month' }, bad: [{}, 'payload.rephrasedQuery'] },
  abandon: { ok: { stage: 'reading' }, bad: [{ stage: 3 }, 'payload.stage'] },
  continue: { ok: { action: 'copy' }, bad: [{ action: '' }, 'payload.action'] },
  implicit_accept: { ok: { action: 'executed_sql', details: { rows: 12 } }, bad: [{ details: 'rows' }, 'payload.details'] },
  implicit_reject: { ok: { followUpQuery: 'no, by region' }, bad: [{ reason: '' }, 'payload.reason'] },
  outcome: { ok: { metric: 'conversion', value: 0.12, source: 'integration' }, bad: [{ metric: 'm', value: 1, source: 'rumour' }, 'payload.source'] },
};

const labelled = new Set<string>(LABEL_ACTION_TYPES);

describe('validateFeedbackEvent', () => {
  it('has an example for every type', () => {
    expect(Object.keys(EXAMPLES).sort()).toEqual([...FEEDBACK_EVENT_TYPES].sort());
  });

  for (const type of FEEDBACK_EVENT_TYPES) {
    it(`accepts a valid ${type} and names the field of a broken one`, () => {
      const base = { responseId: 'r1', type, ...(labelled.has(type) ? { targetId: 'frag_1' } : {}) };
      const { ok, bad } = EXAMPLES[type];
      const good = validateFeedbackEvent(ok === undefined ? base : { ...base, payload: ok });
      expect(good.ok).toBe(true);
      const broken = validateFeedbackEvent({ ...base, payload: bad[0] });
      expect(broken.ok).toBe(false);
      if (!broken.ok) {
        expect(broken.error.field).toBe(bad[1]);
        expect(broken.error.message.startsWith(`${bad[1]}:`)).toBe(true);
      }
    });
  }

  it('applies payload defaults', () => {
    const v = validateFeedbackEvent({ responseId: 'r', type: 'correct_citation', targetId: 'f', payload: { cited_fragment_id: 'g', correction_type: 'add' } });
    expect(v.ok && v.value.payload).toEqual({ cited_fragment_id: 'g', correction_type: 'add', relation: 'CITES' });
    const review = validateFeedbackEvent({ responseId: 'r', type: 'review', payload: { verdict: 'approved' } });
    expect(review.ok && review.value.payload).toEqual({ verdict: 'approved', issues: [] });
  });

  it('tells an unknown type apart from a missing one', () => {
    expect(validateFeedbackEvent({ responseId: 'r', type: 'like' })).toMatchObject({ ok: false, error: { code: 'FEEDLOOP_ERR_VALIDATION_UNKNOWN_TYPE', field: 'type' } });
    expect(validateFeedbackEvent({ responseId: 'r' })).toMatchObject({ ok: false, error: { code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field: 'type' } });
    expect(validateFeedbackEvent('thumbs_up')).toMatchObject({ ok: false });
    expect(validateFeedbackEvent(['x'])).toMatchObject({ ok: false });
  });

  it('requires the source to agree with the type', () => {
    for (const type of FEEDBACK_EVENT_TYPES) {
      const base = { responseId: 'r1', type, ...(labelled.has(type) ? { targetId: 't' } : {}) };
      const payload = EXAMPLES[type].ok;
      const withPayload = payload === undefined ? base : { ...base, payload };
      expect(validateFeedbackEvent({ ...withPayload, source: sourceOfType(type) }).ok).toBe(true);
      const wrong = sourceOfType(type) === 'explicit' ? 'implicit' : 'explicit';
      expect(validateFeedbackEvent({ ...withPayload, source: wrong })).toMatchObject({ ok: false, error: { field: 'source' } });
    }
  });

  it('rejects unknown fields, bad ids and bad timestamps by name', () => {
    expect(validateFeedbackEvent({ responseId: 'r', type: 'skip', rating: 3 })).toMatchObject({ ok: false, error: { field: 'rating' } });
    expect(validateFeedbackEvent({ responseId: 'r r', type: 'skip' })).toMatchObject({ ok: false, error: { field: 'responseId' } });
    expect(validateFeedbackEvent({ responseId: 'r', type: 'skip', id: 'x'.repeat(129) })).toMatchObject({ ok: false, error: { field: 'id' } });
    expect(validateFeedbackEvent({ responseId: 'r', type: 'skip', occurredAt: '2026-13-01' })).toMatchObject({ ok: false, error: { field: 'occurredAt' } });
    expect(validateFeedbackEvent({ responseId: 'r', type: 'skip', occurredAt: '2026-03-15T10:05:00+02:00' }).ok).toBe(true);
  });
});

describe('validateResponse', () => {
  it('accepts a full registration and names bad fields', () => {
    const full = {
      id: 'resp-001',
      sessionId: 's',
      userId: 'u',
      query: 'q',
      answer: '',
      sources: ['https://example.org/a'],
      contextDocumentIds: ['doc-1'],
      contextTokenCount: 1200,
      model: 'm',
      agent: 'a',
      queryType: 'aggregate',
      experimentId: 'exp-1',
      variant: 'B',
      traceId: 't',
      metadata: { k: 1 },
      createdAt: '2026-01-01T00:00:00Z',
    };
    expect(validateResponse(full).ok).toBe(true);
    expect(validateResponse({ ...full, query: '' })).toMatchObject({ ok: false, error: { field: 'query' } });
    expect(validateResponse({ ...full, contextTokenCount: -1 })).toMatchObject({ ok: false, error: { field: 'contextTokenCount' } });
    expect(validateResponse({ ...full, sources: [''] })).toMatchObject({ ok: false, error: { field: 'sources[0]' } });
  });
});
