import { describe, expect, it } from 'vitest';
import { SIGNAL_CLASSES } from '../src/signals/signal-types.js';
import { DEFAULT_SIGNAL_WEIGHTS, signalWeight } from '../src/signals/signal-weights.js';
import { settingsWith } from './signals-fixtures.js';

describe('DEFAULT_SIGNAL_WEIGHTS', () => {
  it("are ADR-004's initial weights, long-term edits at 0.5", () => {
    expect(DEFAULT_SIGNAL_WEIGHTS).toEqual({
      explicit_positive: 1.0,
      explicit_negative: 1.5,
      explicit_neutral: 0,
      immediate_edit: 0.6,
      long_term_edit: 0.5,
      abandonment: 0.3,
      retry: 0.7,
      continued_use: 0.4,
      outcome: 0.9,
    });
    expect(Object.keys(DEFAULT_SIGNAL_WEIGHTS)).toEqual([...SIGNAL_CLASSES]);
    expect(Object.isFrozen(DEFAULT_SIGNAL_WEIGHTS)).toBe(true);
  });
});

describe('signalWeight', () => {
  it('gives the default weight of the class', () => {
    const settings = settingsWith();
    expect(signalWeight('explicit_negative', 'negative', settings)).toBe(1.5);
    expect(signalWeight('retry', 'negative', settings)).toBe(0.7);
    expect(signalWeight('outcome', 'positive', settings)).toBe(0.9);
  });

  it("takes the workspace's override for the class, and the default for the others", () => {
    const settings = settingsWith({ signalWeights: { retry: 2, abandonment: 0 } });
    expect(signalWeight('retry', 'negative', settings)).toBe(2);
    expect(signalWeight('abandonment', 'negative', settings)).toBe(0);
    expect(signalWeight('continued_use', 'positive', settings)).toBe(0.4);
  });

  it('weighs every neutral signal as explicit_neutral: 0 by default, the override when set', () => {
    expect(signalWeight('immediate_edit', 'neutral', settingsWith())).toBe(0);
    expect(signalWeight('outcome', 'neutral', settingsWith())).toBe(0);
    expect(signalWeight('immediate_edit', 'neutral', settingsWith({ signalWeights: { explicit_neutral: 0.2 } }))).toBe(0.2);
  });
});
