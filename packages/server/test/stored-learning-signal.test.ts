import { describe, expect, it } from 'vitest';
import { compactLearningSignal, expandLearningSignal } from '../src/store/stored-learning-signal.js';

const response = { query: 'What were sales last month?', answer: 'SELECT * FROM sales' };
const signal = {
  signal_type: 'sql_correction',
  input: response.query,
  expected_output: "SELECT * FROM sales WHERE region = 'US'",
  actual_output: response.answer,
  reward: -0.5,
  context: { tenant_id: 'acme-corp', schema_tables: ['sales'] },
};

describe('stored learning signals', () => {
  it('leave out what the response holds, and get it back', () => {
    const stored = compactLearningSignal(signal, response.answer);
    expect(stored).not.toHaveProperty('input');
    expect(stored).not.toHaveProperty('actual_output');
    expect(expandLearningSignal(stored, response)).toEqual(signal);
  });

  it('keep an actual output that is not the answer (a correction of an edited original)', () => {
    const edited = { ...signal, actual_output: 'SELECT * FROM sales LIMIT 10' };
    const stored = compactLearningSignal(edited, response.answer);
    expect(stored.actual_output).toBe('SELECT * FROM sales LIMIT 10');
    expect(expandLearningSignal(stored, response)).toEqual(edited);
  });

  it("come back in the seed's field order", () => {
    const stored = compactLearningSignal(signal, response.answer);
    const jsonbLike = Object.fromEntries(Object.entries(stored).reverse()) as typeof stored;
    expect(Object.keys(expandLearningSignal(jsonbLike, response))).toEqual(['signal_type', 'input', 'expected_output', 'actual_output', 'reward', 'context']);
  });
});
