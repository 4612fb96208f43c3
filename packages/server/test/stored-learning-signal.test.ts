import { describe, expect, it } from 'vitest';
import { compactLearningSignal, expandLearningSignal, type ReadLearningSignal } from '../src/store/stored-learning-signal.js';

const response = { query: 'What were sales last month?', answer: 'SELECT * FROM sales' };
const signal = {
  signal_type: 'sql_correction',
  input: response.query,
  expected_output: "SELECT * FROM sales WHERE region = 'US'",
  actual_output: response.answer,
  reward: -0.5,
  context: {
    workspace_id: 'ws-1',
    response_id: 'resp-001',
    event_id: 'fb-abc123',
    event_type: 'correction',
    session_id: null,
    user_id: 'user-456',
    model: 'gpt-4o',
    agent: null,
    query_type: null,
    experiment_id: null,
    variant: null,
    context_document_ids: [],
    polarity: 'negative',
    severity: 'medium',
    categories: ['accuracy'],
    schema_tables: ['sales'],
    tenant_id: 'acme-corp',
  },
};

/** What learningSignalSql reads back: the stored signal with its context whole. */
const read = (stored: ReturnType<typeof compactLearningSignal>): ReadLearningSignal => ({ ...stored, context: signal.context });

describe('stored learning signals', () => {
  it('leave out what the response holds, and get it back', () => {
    const stored = compactLearningSignal(signal, response.answer);
    expect(stored).not.toHaveProperty('input');
    expect(stored).not.toHaveProperty('actual_output');
    expect(expandLearningSignal(read(stored), response)).toEqual(signal);
  });

  it("leave out the context's copies of the signal row's columns and its default values", () => {
    expect(compactLearningSignal(signal, response.answer).context).toEqual({ model: 'gpt-4o', schema_tables: ['sales'], tenant_id: 'acme-corp' });
    const plain = { ...signal, context: { ...signal.context, model: null, schema_tables: [], tenant_id: null } };
    expect(compactLearningSignal(plain, response.answer)).not.toHaveProperty('context');
  });

  it('keep an actual output that is not the answer (a correction of an edited original)', () => {
    const edited = { ...signal, actual_output: 'SELECT * FROM sales LIMIT 10' };
    const stored = compactLearningSignal(edited, response.answer);
    expect(stored.actual_output).toBe('SELECT * FROM sales LIMIT 10');
    expect(expandLearningSignal(read(stored), response)).toEqual(edited);
  });

  it("come back in the seed's field order", () => {
    const stored = compactLearningSignal(signal, response.answer);
    const jsonbLike = Object.fromEntries(Object.entries(read(stored)).reverse()) as ReadLearningSignal;
    expect(Object.keys(expandLearningSignal(jsonbLike, response))).toEqual(['signal_type', 'input', 'expected_output', 'actual_output', 'reward', 'context']);
  });
});
