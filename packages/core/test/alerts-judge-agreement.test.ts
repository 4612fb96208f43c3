/**
 * The judge_agreement rule (issue 28): a judge's kappa or agreement over its window fires below
 * the threshold; below the minimum n (or with no kappa) it is "not enough data": neither breached
 * nor clear, so nothing starts and an open alert holds.
 */
import { describe, expect, it } from 'vitest';
import { alertRuleSetSchema, judgeWindowKey, observe, type JudgeWindow } from '../src/index.js';

const NOW = new Date('2026-11-27T10:00:00Z');
const parse = (rule: Record<string, unknown>) =>
  alertRuleSetSchema.parse({ rules: [{ id: 'judge', kind: 'judge_agreement', severity: 'warning', metric: 'judge_agreement:ev_1', ...rule }] }).rules;
const see = (rule: Record<string, unknown>, window: JudgeWindow | undefined) => {
  const rules = parse(rule);
  const judges = new Map(window === undefined ? [] : [[judgeWindowKey(rules[0]?.windowDays ?? 0, 'ev_1'), window]]);
  const [o] = observe({ now: NOW, rules, buckets: [], registered: new Map(), open: [], judges });
  return o;
};

describe('judge_agreement rules', () => {
  it('fires below the threshold on the chosen statistic, and clears at it plus the hysteresis', () => {
    const window = { n: 80, kappa: 0.41, agreement: 0.72 };
    expect(see({ threshold: 0.6 }, window)).toMatchObject({ metric: 'judge_agreement:ev_1', value: 0.41, sample: 80, breached: true, clear: false });
    expect(see({ threshold: 0.6 }, window)?.message).toMatch(/Cohen's kappa of judge "ev_1" with the humans 0\.41 is below 0\.6 over the last 30 d \(80 units\)/);
    expect(see({ threshold: 0.7, statistic: 'agreement' }, window)).toMatchObject({ value: 0.72, breached: false, clear: true });
    expect(see({ threshold: 0.7, statistic: 'agreement', hysteresis: 0.05 }, window)).toMatchObject({ breached: false, clear: false });
  });

  it('is "not enough data" below the minimum n, with no calibration, or with no kappa', () => {
    expect(see({ threshold: 0.6 }, { n: 49, kappa: -1, agreement: 0 })).toMatchObject({ sample: 49, breached: false, clear: false });
    expect(see({ threshold: 0.6 }, { n: 49, kappa: -1, agreement: 0 })?.message).toMatch(/^Not enough data: .* 49 units .* \(needs 50\)$/);
    expect(see({ threshold: 0.6, minSample: 49 }, { n: 49, kappa: -1, agreement: 0 })).toMatchObject({ breached: true });
    expect(see({ threshold: 0.6 }, undefined)).toMatchObject({ sample: 0, breached: false, clear: false });
    expect(see({ threshold: 0.6 }, { n: 60, kappa: null, agreement: 1 })).toMatchObject({ breached: false, clear: false });
    expect(see({ threshold: 0.6, statistic: 'agreement' }, { n: 60, kappa: null, agreement: 1 })).toMatchObject({ breached: false, clear: true });
  });

  it('reads the window of its own days', () => {
    const rules = parse({ threshold: 0.6, windowDays: 7 });
    const [o] = observe({ now: NOW, rules, buckets: [], registered: new Map(), open: [], judges: new Map([[judgeWindowKey(30, 'ev_1'), { n: 90, kappa: 0, agreement: 0.5 }]]) });
    expect(o).toMatchObject({ sample: 0, breached: false });
  });
});
