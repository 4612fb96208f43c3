import { describe, expect, it } from 'vitest';
import { mapRagFeedbackEntry } from '../src/compat/rag-feedback-entry.js';
import { mapRlhfEvent, renameErrorField, RLHF_FIELD_NAMES, rlhfEventSchema } from '../src/compat/rlhf-event.js';
import { summarizeSession, type SessionFeedbackEvent } from '../src/compat/session-summary.js';
import { SEED_RLHF_EVENT as SEED_EVENT } from './seed-fixtures.js';


const errorOf = (result: { ok: boolean; error?: unknown }) => (result.ok ? undefined : result.error);

describe('mapRlhfEvent', () => {
  it("maps the seed's own example onto a feedloop correction", () => {
    expect(mapRlhfEvent(SEED_EVENT)).toEqual({
      ok: true,
      value: {
        id: 'fb-abc123',
        responseId: 'resp-001',
        userId: 'user-456',
        sessionId: 'sess-xyz789',
        occurredAt: '2025-03-15T10:05:00Z',
        source: 'explicit',
        type: 'correction',
        payload: {
          original: 'SELECT * FROM sales',
          corrected: "SELECT * FROM sales WHERE region = 'US'",
          comment: 'Need to filter by US region',
          format: 'sql',
        },
        metadata: { tenant_id: 'acme-corp' },
      },
    });
  });

  it('maps the data of every seed type to that type\'s payload', () => {
    const cases: Array<[string, unknown, unknown]> = [
      ['thumbs_up', undefined, {}],
      ['thumbs_down', { comment: 'wrong table' }, { comment: 'wrong table' }],
      ['correction', { original: 'Paris is in Spain', corrected: 'Paris is in France' }, { original: 'Paris is in Spain', corrected: 'Paris is in France' }],
      ['rating', { score: 4, aspect: 'clarity', comment: 'ok' }, { rating: 4, aspect: 'clarity', comment: 'ok' }],
      ['rating', { rating: 2 }, { rating: 2 }],
      ['implicit_accept', { action: 'executed', rows: 12 }, { action: 'executed', details: { rows: 12 } }],
      ['implicit_accept', { rows: 3 }, { details: { rows: 3 } }],
      ['implicit_accept', null, {}],
      ['implicit_reject', { reason: 'rephrased', follow_up_query: 'sales in US only' }, { reason: 'rephrased', followUpQuery: 'sales in US only' }],
      ['escalation', { reason: 'stuck', channel: 'slack' }, { reason: 'stuck', channel: 'slack' }],
    ];
    for (const [type, data, payload] of cases) {
      const result = mapRlhfEvent({ response_id: 'r1', feedback_type: type, ...(data === undefined ? {} : { data }) });
      expect(result, `${type} ${JSON.stringify(data)}`).toEqual({ ok: true, value: { responseId: 'r1', type, payload } });
    }
  });

  it('treats a blank comment as none, and only the _sql keys mark a correction as SQL', () => {
    const r = mapRlhfEvent({ response_id: 'r1', feedback_type: 'thumbs_down', data: { comment: '' } });
    expect(r.ok && r.value.payload).toEqual({});
    const mixed = mapRlhfEvent({ response_id: 'r1', feedback_type: 'correction', data: { original: 'a', corrected_sql: 'SELECT 1' } });
    expect(mixed.ok && mixed.value.payload).toEqual({ original: 'a', corrected: 'SELECT 1', format: 'sql' });
  });

  it('fills in the type of a typed endpoint and refuses a contradicting one', () => {
    const filled = mapRlhfEvent({ response_id: 'r1', data: { score: 5 } }, 'rating');
    expect(filled.ok && filled.value.type).toBe('rating');
    expect(errorOf(mapRlhfEvent({ response_id: 'r1', feedback_type: 'thumbs_up' }, 'rating'))).toMatchObject({
      code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD',
      field: 'feedback_type',
    });
    expect(errorOf(mapRlhfEvent({ response_id: 'r1' }))).toMatchObject({ field: 'feedback_type', message: expect.stringContaining('required') });
  });

  it('names bad fields in the seed\'s terms', () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ response_id: 'r1', feedback_type: 'like' }, 'FEEDLOOP_ERR_VALIDATION_UNKNOWN_TYPE', 'feedback_type'],
      [{ response_id: 'r1', feedback_type: 'comment', data: { comment: 'x' } }, 'FEEDLOOP_ERR_VALIDATION_UNKNOWN_TYPE', 'feedback_type'],
      [{ feedback_type: 'thumbs_up' }, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'response_id'],
      [{ response_id: 'bad id', feedback_type: 'thumbs_up' }, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'response_id'],
      [{ response_id: 'r1', feedback_type: 'thumbs_up', event_type: 'feedback.deleted' }, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'event_type'],
      [{ response_id: 'r1', feedback_type: 'thumbs_up', timestamp: 'yesterday' }, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'timestamp'],
      [{ response_id: 'r1', feedback_type: 'thumbs_up', responseId: 'r1' }, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'responseId'],
      [{ response_id: 'r1', feedback_type: 'implicit_accept', feedback_source: 'explicit' }, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'feedback_source'],
      [{ response_id: 'r1', feedback_type: 'rating', data: { rating: 6 } }, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'data.rating'],
      [{ response_id: 'r1', feedback_type: 'rating', data: { score: 0 } }, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'data.score'],
      [{ response_id: 'r1', feedback_type: 'rating', data: { rating: 4, score: 4 } }, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'data.score'],
      [{ response_id: 'r1', feedback_type: 'rating', data: {} }, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'data.rating'],
      [{ response_id: 'r1', feedback_type: 'rating', data: { rating: '4' } }, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'data.rating'],
      [{ response_id: 'r1', feedback_type: 'correction', data: { original_sql: 'SELECT 1' } }, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'data.corrected_sql'],
      [{ response_id: 'r1', feedback_type: 'correction', data: { corrected_sql: '' } }, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'data.corrected_sql'],
      [{ response_id: 'r1', feedback_type: 'correction', data: { corrected: '' } }, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'data.corrected'],
      [{ response_id: 'r1', feedback_type: 'correction', data: { corrected: 'a', diff: '+a' } }, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'data.diff'],
      [{ response_id: 'r1', feedback_type: 'thumbs_up', data: 'nice' }, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'data'],
      [{ response_id: 'r1', feedback_type: 'thumbs_up', data: { comment: 'x'.repeat(10_001) } }, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'data.comment'],
      [{ response_id: 'r1', feedback_type: 'implicit_reject', data: { follow_up_query: 'x'.repeat(200_001) } }, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'data.follow_up_query'],
      [{ response_id: 'r1', feedback_type: 'implicit_accept', data: { action: 'x'.repeat(201) } }, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'data.action'],
    ];
    for (const [input, code, field] of cases) {
      const error = errorOf(mapRlhfEvent(input)) as { code: string; field: string; message: string } | undefined;
      expect({ code: error?.code, field: error?.field }, JSON.stringify(input).slice(0, 120)).toEqual({ code, field });
      expect(error?.message.startsWith(`${field}:`)).toBe(true);
    }
    expect(errorOf(mapRlhfEvent([SEED_EVENT]))).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD' });
  });

  it('renames ingest errors by the longest matching prefix', () => {
    const renamed = renameErrorField(
      { code: 'FEEDLOOP_ERR_FEEDBACK_WINDOW_CLOSED', field: 'responseId', message: 'responseId: explicit feedback is accepted for 24 h' },
      RLHF_FIELD_NAMES,
    );
    expect(renamed).toEqual({ code: 'FEEDLOOP_ERR_FEEDBACK_WINDOW_CLOSED', field: 'response_id', message: 'response_id: explicit feedback is accepted for 24 h' });
    expect(renameErrorField({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field: 'payload.x[2]', message: 'm' }, { payload: 'data', 'payload.x': 'data.y' })).toEqual({
      code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD',
      field: 'data.y[2]',
      message: 'm',
    });
    // A field that merely starts with the same letters is not renamed.
    expect(renameErrorField({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field: 'payloadx', message: 'm' }, { payload: 'data' }).field).toBe('payloadx');
  });

  it('documents feedback_type as optional only on typed endpoints', () => {
    expect(rlhfEventSchema().shape.feedback_type.safeParse(undefined).success).toBe(false);
    expect(rlhfEventSchema('correction').shape.feedback_type.safeParse(undefined).success).toBe(true);
  });
});

describe('mapRagFeedbackEntry', () => {
  it('maps a positive entry to thumbs_up and keeps the informational fields in metadata', () => {
    const result = mapRagFeedbackEntry({
      id: 'fe-1',
      queryId: 'q-1',
      query: 'What is RAG?',
      answer: 'Retrieval-augmented generation.',
      rating: 'positive',
      category: 'relevance',
      comment: 'spot on',
      sources: ['https://example.com/rag'],
      timestamp: '2026-01-01T10:00:00Z',
      experimentId: 'exp-1',
      variant: 'B',
      userId: 'anon-7',
      metadata: { page: '/help', variant: 'B' },
    });
    expect(result).toEqual({
      ok: true,
      value: {
        id: 'fe-1',
        responseId: 'q-1',
        userId: 'anon-7',
        occurredAt: '2026-01-01T10:00:00Z',
        type: 'thumbs_up',
        payload: { category: 'relevance', comment: 'spot on' },
        metadata: {
          page: '/help',
          query: 'What is RAG?',
          answer: 'Retrieval-augmented generation.',
          sources: ['https://example.com/rag'],
          experimentId: 'exp-1',
          variant: 'B',
        },
      },
    });
  });

  it('maps a negative entry to thumbs_down; a blank comment is none', () => {
    expect(mapRagFeedbackEntry({ queryId: 'q-1', rating: 'negative', category: 'accuracy', comment: '' })).toEqual({
      ok: true,
      value: { responseId: 'q-1', type: 'thumbs_down', payload: { category: 'accuracy' } },
    });
  });

  it("names bad fields in the entry's terms", () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ rating: 'positive' }, 'queryId'],
      [{ queryId: 'q-1', rating: 'meh' }, 'rating'],
      [{ queryId: 'q-1' }, 'rating'],
      [{ queryId: 'q-1', rating: 'negative', category: 'tone' }, 'category'],
      [{ queryId: 'q-1', rating: 'negative', comment: 'x'.repeat(10_001) }, 'comment'],
      [{ queryId: 'q-1', rating: 'negative', sources: 'https://a' }, 'sources'],
      [{ queryId: 'q-1', rating: 'negative', timestamp: '15/03/2025' }, 'timestamp'],
      [{ queryId: 'q-1', rating: 'negative', stars: 3 }, 'stars'],
      [{ queryId: 'q-1', rating: 'negative', variant: 'A', metadata: { variant: 'B' } }, 'metadata.variant'],
    ];
    for (const [input, field] of cases) {
      expect((errorOf(mapRagFeedbackEntry(input)) as { field?: string } | undefined)?.field, JSON.stringify(input).slice(0, 80)).toBe(field);
    }
  });
});

describe('summarizeSession', () => {
  const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 10, minute)).toISOString();
  const events: SessionFeedbackEvent[] = [
    { responseId: 'r1', type: 'thumbs_up', occurredAt: at(0), supersededBy: 'e2' },
    { responseId: 'r1', type: 'thumbs_down', occurredAt: at(1) },
    { responseId: 'r1', type: 'thumbs_up', occurredAt: at(2) },
    { responseId: 'r1', type: 'correction', occurredAt: at(3) },
    { responseId: 'r2', type: 'rating', rating: 4, occurredAt: at(4) },
    { responseId: 'r2', type: 'rating', rating: 5, occurredAt: at(5) },
    { responseId: 'r2', type: 'thumbs_up', occurredAt: at(6) },
    { responseId: 'r2', type: 'thumbs_up', occurredAt: at(7), duplicateOf: 'e7' },
    { responseId: 'r3', type: 'escalation', occurredAt: at(8) },
    { responseId: 'r3', type: 'thumbs_up', occurredAt: at(9) },
    { responseId: 'r4', type: 'rating', rating: 1, occurredAt: at(10), supersededBy: 'e12' },
    { responseId: 'r4', type: 'rating', rating: 3, occurredAt: at(11) },
  ];

  it('counts only current, distinct events and computes each rate over its own denominator', () => {
    expect(summarizeSession('s1', events)).toEqual({
      session_id: 's1',
      total: 9,
      by_type: { correction: 1, escalation: 1, rating: 3, thumbs_down: 1, thumbs_up: 3 },
      positive_rate: 75,
      correction_rate: 25,
      escalation_rate: 25,
      average_rating: 4,
      response_count: 4,
      first_feedback_at: at(1),
      last_feedback_at: at(11),
    });
  });

  it('answers null rates, not zeros, when nothing was counted', () => {
    expect(summarizeSession('empty', [{ responseId: 'r', type: 'thumbs_up', occurredAt: at(0), duplicateOf: 'x' }])).toEqual({
      session_id: 'empty',
      total: 0,
      by_type: {},
      positive_rate: null,
      correction_rate: null,
      escalation_rate: null,
      average_rating: null,
      response_count: 0,
      first_feedback_at: null,
      last_feedback_at: null,
    });
  });

  it('counts a response corrected twice once', () => {
    const s = summarizeSession('s', [
      { responseId: 'r1', type: 'correction', occurredAt: at(0) },
      { responseId: 'r1', type: 'correction', occurredAt: at(1) },
      { responseId: 'r2', type: 'comment', occurredAt: at(2) },
    ]);
    expect([s.correction_rate, s.positive_rate, s.total]).toEqual([50, null, 3]);
  });
});
