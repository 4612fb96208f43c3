import { describe, expect, it } from 'vitest';
import type { FeedbackEventType } from '../src/event-types.js';
import { classify } from '../src/signals/classify.js';
import { enrich } from '../src/signals/enrich.js';
import { learningSignal } from '../src/signals/learning-signal.js';
import type { LearningSignal } from '../src/signals/signal-types.js';
import { SAMPLE_PAYLOADS, responseContext, settingsWith, storedEvent, type StoredFields } from './signals-fixtures.js';

const settings = settingsWith();
const ORIGINAL_SQL = 'SELECT * FROM sales';
const CORRECTED_SQL = "SELECT * FROM sales WHERE region = 'US'";

function signalOf(type: FeedbackEventType, payload: unknown, overrides: Partial<StoredFields> = {}, response = responseContext()): LearningSignal {
  const enriched = enrich(storedEvent(type, payload, overrides), response);
  return learningSignal(enriched, classify(enriched, settings));
}

describe('learningSignal', () => {
  it("turns the seed's SQL correction into an sql_correction; a one-third rewrite has reward -0.5", () => {
    const signal = signalOf(
      'correction',
      { original: ORIGINAL_SQL, corrected: CORRECTED_SQL, format: 'sql', comment: 'Need to filter by US region' },
      { id: 'fb-abc123', userId: 'user-456', sessionId: 'sess-xyz789', editDistance: 100 / 3, metadata: { tenant_id: 'acme-corp' } },
    );
    expect(signal).toEqual({
      signal_type: 'sql_correction',
      input: 'What were sales last month?',
      expected_output: CORRECTED_SQL,
      actual_output: ORIGINAL_SQL,
      reward: -0.5,
      context: {
        workspace_id: 'ws-1',
        response_id: 'resp-001',
        event_id: 'fb-abc123',
        event_type: 'correction',
        session_id: 'sess-xyz789',
        user_id: 'user-456',
        model: 'model-a',
        agent: 'sql-agent',
        query_type: 'analytics',
        experiment_id: 'exp-1',
        variant: 'B',
        context_document_ids: ['doc-1', 'doc-2'],
        polarity: 'negative',
        severity: 'medium',
        categories: [],
        // The seed's context (issue 24): tables are filled in by the pipeline, which holds the SQL grammars.
        schema_tables: [],
        tenant_id: 'acme-corp',
      },
    });
    expect(Object.keys(signal)).toEqual(['signal_type', 'input', 'expected_output', 'actual_output', 'reward', 'context']);
  });

  it('names corrections by format, text when none is given, and falls back to the answer as the original', () => {
    const code = signalOf('correction', { corrected: 'fixed()', format: 'code' }, { editDistance: 50 });
    expect(code).toMatchObject({ signal_type: 'code_correction', expected_output: 'fixed()', actual_output: ORIGINAL_SQL, reward: -0.625 });
    expect(signalOf('correction', { corrected: 'better' }).signal_type).toBe('text_correction');
  });

  it('takes the edited text as the expected output of an edit', () => {
    const edit = signalOf('edit', { original: 'draft', edited: 'final', phase: 'long_term' }, { editDistance: 40 });
    expect(edit).toMatchObject({ signal_type: 'edit', expected_output: 'final', actual_output: 'draft', reward: -0.4 });
    expect(signalOf('edit', SAMPLE_PAYLOADS.edit).actual_output).toBe(ORIGINAL_SQL);
  });

  it('gives other types their own name, no expected output, and the answer as the actual output', () => {
    expect(signalOf('retry', SAMPLE_PAYLOADS.retry)).toMatchObject({ signal_type: 'retry', expected_output: null, actual_output: ORIGINAL_SQL, reward: -1 });
    expect(signalOf('thumbs_up', {})).toMatchObject({ signal_type: 'thumbs_up', expected_output: null, reward: 1 });
    expect(signalOf('implicit_accept', SAMPLE_PAYLOADS.implicit_accept)).toMatchObject({ signal_type: 'implicit_accept', reward: 1 });
  });

  it('rounds the reward to 4 decimals and never gives -0', () => {
    expect(signalOf('quality_scores', { accuracy: 71, completeness: 72, styleMatch: 72 }).reward).toBe(0.4333);
    expect(Object.is(signalOf('edit', { edited: 'same' }, { editDistance: 0 }).reward, 0)).toBe(true);
    expect(Object.is(signalOf('outcome', { metric: 'm', value: -0.00001, source: 'integration' }).reward, 0)).toBe(true);
  });

  it("keeps nulls in the context and takes the response's session and user when the event has none", () => {
    const response = responseContext({ model: null, agent: null, queryType: null, experimentId: null, variant: null, contextDocumentIds: [] });
    const signal = signalOf('error_categories', { categories: ['hallucination', 'missing_context'] }, {}, response);
    expect(signal.context).toEqual({
      workspace_id: 'ws-1',
      response_id: 'resp-001',
      event_id: 'evt-1',
      event_type: 'error_categories',
      session_id: 'sess-response',
      user_id: 'user-response',
      model: null,
      agent: null,
      query_type: null,
      experiment_id: null,
      variant: null,
      context_document_ids: [],
      polarity: 'negative',
      severity: 'high',
      categories: ['hallucination', 'missing_context'],
      schema_tables: [],
      tenant_id: null,
    });
  });
});
