import { describe, expect, it } from 'vitest';
import { langfuseConfigInput, langfuseConfigView, langfuseEventOrder, langfuseScoreView, langfuseTracePiece, mapLangfuseScore } from '../src/index.js';

describe('Langfuse trace pieces', () => {
  it('map a trace: texts, ids, experiment keys of the metadata, trace fields, timestamp', () => {
    expect(
      langfuseTracePiece('trace-create', {
        id: 't1',
        timestamp: '2026-01-01T00:00:00.000Z',
        input: { messages: [{ role: 'user', content: 'Hi?' }] },
        output: null,
        userId: 'u1',
        sessionId: null,
        metadata: { experimentId: 'e1', variant: 'B' },
        tags: [],
        release: 'r1',
        environment: 'prod',
      }),
    ).toEqual({ id: 't1', query: 'Hi?', userId: 'u1', metadata: { experimentId: 'e1', variant: 'B' }, experimentId: 'e1', variant: 'B', release: 'r1', environment: 'prod', createdAt: '2026-01-01T00:00:00.000Z' });
    expect(langfuseTracePiece('trace-create', { input: 'no id' })).toBeUndefined();
    expect(langfuseTracePiece('trace-create', { id: 't2', metadata: 'plain' })).toEqual({ id: 't2', metadata: { metadata: 'plain' } });
  });

  it('map a generation fill-only with its model, a span to its bare trace, an update through its create', () => {
    expect(langfuseTracePiece('generation-create', { id: 'g1', traceId: 't1', model: 'm', output: { role: 'assistant', content: 'ok' } })).toEqual({
      id: 't1',
      fillOnly: true,
      answer: 'ok',
      model: 'm',
    });
    expect(langfuseTracePiece('span-create', { id: 's1', traceId: 't1', input: 'ignored' })).toEqual({ id: 't1', fillOnly: true });
    expect(langfuseTracePiece('generation-update', { id: 'g1', model: 'm2' }, new Map([['g1', 't1']]))).toEqual({ id: 't1', fillOnly: true, model: 'm2' });
    expect(langfuseTracePiece('generation-update', { id: 'g9', model: 'm2' })).toBeUndefined();
  });

  it('order creates before updates, scores last', () => {
    const types = ['score-create', 'generation-update', 'span-create', 'trace-create'] as const;
    expect([...types].sort((a, b) => langfuseEventOrder(a) - langfuseEventOrder(b))).toEqual(['trace-create', 'span-create', 'generation-update', 'score-create']);
  });
});

describe('Langfuse scores', () => {
  it('map each data type onto its feedback type, keeping source, observation and id in the metadata', () => {
    expect(mapLangfuseScore({ id: 's1', name: 'h', value: 0.5, traceId: 't1', observationId: 'o1', source: 'EVAL' })).toEqual({
      ok: true,
      responseId: 't1',
      // EVAL is an evaluator's: a judge, named by the score when the score's metadata names none.
      event: {
        type: 'score',
        responseId: 't1',
        source: 'judge',
        payload: { name: 'h', value: 0.5 },
        metadata: { source: 'EVAL', dataType: 'NUMERIC', observationId: 'o1', scoreId: 's1', evaluatorId: 'langfuse:h' },
      },
    });
    expect(mapLangfuseScore({ name: 'tone', value: 'dry', traceId: 't1' })).toMatchObject({ ok: true, event: { type: 'score', payload: { name: 'tone', stringValue: 'dry' } } });
    expect(mapLangfuseScore({ name: 'ok', value: true, dataType: 'BOOLEAN', traceId: 't1' })).toMatchObject({ ok: true, event: { payload: { value: 1 } } });
    expect(mapLangfuseScore({ name: 'n', value: 'text', dataType: 'TEXT', traceId: 't1', comment: 'c' })).toMatchObject({
      ok: true,
      event: { type: 'comment', payload: { comment: 'text' }, metadata: { scoreName: 'n', scoreComment: 'c' } },
    });
    expect(mapLangfuseScore({ name: 'fix', value: 'better', dataType: 'CORRECTION', traceId: 't1' })).toMatchObject({ ok: true, event: { type: 'correction', payload: { corrected: 'better' } } });
  });

  it('take EVAL as a judge (its own evaluatorId kept), ANNOTATION as a review, API or none as the type’s source', () => {
    const named = mapLangfuseScore({ name: 'h', value: 1, traceId: 't1', source: 'EVAL', metadata: { evaluatorId: 'ragas-faithfulness' } });
    expect(named).toMatchObject({ ok: true, event: { source: 'judge', metadata: { evaluatorId: 'ragas-faithfulness', source: 'EVAL' } } });
    expect(mapLangfuseScore({ name: 'h', value: 1, traceId: 't1', source: 'ANNOTATION' })).toMatchObject({ ok: true, event: { source: 'review', metadata: { source: 'ANNOTATION' } } });
    for (const source of ['API', undefined] as const) {
      const m = mapLangfuseScore({ name: 'h', value: 1, traceId: 't1', ...(source ? { source } : {}) });
      expect(m.ok && 'source' in m.event).toBe(false);
    }
  });

  it('aim a session score at the session, and refuse dataset runs, missing targets and mistyped values', () => {
    expect(mapLangfuseScore({ name: 'n', value: 1, sessionId: 's9' })).toMatchObject({ ok: true, responseId: 'session:s9', sessionTarget: 's9', event: { sessionId: 's9' } });
    expect(mapLangfuseScore({ name: 'n', value: 1, traceId: 't', datasetRunId: 'r' })).toMatchObject({ ok: false, status: 422, error: { code: 'FEEDLOOP_ERR_COMPAT_UNSUPPORTED', field: 'datasetRunId' } });
    expect(mapLangfuseScore({ name: 'n', value: 1 })).toMatchObject({ ok: false, status: 400, error: { field: 'traceId' } });
    expect(mapLangfuseScore({ name: 'n', value: 2, dataType: 'BOOLEAN', traceId: 't' })).toMatchObject({ ok: false, error: { field: 'value' } });
    expect(mapLangfuseScore({ name: 'n', value: 2, dataType: 'TEXT', traceId: 't' })).toMatchObject({ ok: false, error: { field: 'value' } });
  });

  it('read a stored score back in Langfuse shape, a mapped thumbs vote included', () => {
    const at = '2026-01-01T00:00:00.000Z';
    expect(
      langfuseScoreView('s1', {
        responseId: 't1',
        type: 'thumbs_down',
        payload: { score: { name: 'thumbs', value: 0 } },
        metadata: { source: 'API', dataType: 'BOOLEAN', scoreId: 's1', compatVersion: 'x', team: 'a' },
        occurredAt: at,
        updatedAt: at,
      }),
    ).toMatchObject({ id: 's1', traceId: 't1', sessionId: null, name: 'thumbs', value: 0, stringValue: 'False', dataType: 'BOOLEAN', metadata: { team: 'a' } });
    expect(langfuseScoreView('s2', { responseId: 'session:s9', type: 'comment', payload: { comment: 'hi' }, metadata: { dataType: 'TEXT', scoreName: 'note' }, occurredAt: at, updatedAt: at })).toMatchObject({
      traceId: null,
      sessionId: 's9',
      name: 'note',
      value: null,
      stringValue: 'hi',
      comment: null,
    });
  });
});

describe('Langfuse score configs', () => {
  it("map onto feedloop's and back", () => {
    expect(langfuseConfigInput({ name: 'g', dataType: 'NUMERIC', minValue: 0, maxValue: 1, categories: null })).toEqual({ name: 'g', dataType: 'numeric', min: 0, max: 1 });
    expect(langfuseConfigInput({ name: 'b', dataType: 'BOOLEAN', categories: [{ label: 'yes', value: 1 }] })).toEqual({ name: 'b', dataType: 'boolean' });
    const view = langfuseConfigView({ id: 'sc_1', name: 'c', dataType: 'categorical', categories: [{ value: 1, label: 'one' }], mapsTo: 'none', weight: 0, archived: true }, 'ws', 'a', 'b');
    expect(view).toMatchObject({ id: 'sc_1', dataType: 'CATEGORICAL', isArchived: true, categories: [{ value: 1, label: 'one' }], minValue: null, projectId: 'ws' });
  });
});
