/**
 * Alert rules: the JSON shape, its defaults and every range that depends on the kind.
 */
import { describe, expect, it } from 'vitest';
import { alertRuleSchema, alertRuleSetSchema, defaultAlertRules, MAX_ALERT_RULES } from '../src/index.js';

const issueOf = (input: unknown): { path: string; message: string } | undefined => {
  const parsed = alertRuleSetSchema.safeParse(input);
  if (parsed.success) return undefined;
  const [issue] = parsed.error.issues;
  return issue ? { path: issue.path.join('.'), message: issue.message } : undefined;
};

describe('alert rules', () => {
  it('are the Phase 4.1 defaults when a workspace never set any', () => {
    const rules = defaultAlertRules();
    expect(rules.map((r) => [r.id, r.kind, r.severity, r.threshold])).toEqual([
      ['satisfaction-warning', 'satisfaction', 'warning', 70],
      ['satisfaction-critical', 'satisfaction', 'critical', 50],
      ['category-spike', 'category_spike', 'warning', 2],
      ['correction-rate', 'correction_rate', 'warning', 20],
      ['escalation-rate', 'escalation_rate', 'warning', 10],
    ]);
    for (const r of rules) expect(r).toMatchObject({ windowHours: 24, minSample: 30, forSeconds: 0, enabled: true });
    // The defaults pass their own validation unchanged.
    expect(alertRuleSetSchema.parse({ rules })).toEqual({ rules });
  });

  it('fills in defaults per kind', () => {
    expect(alertRuleSchema.parse({ id: 'sat', kind: 'satisfaction', severity: 'warning', threshold: 80 })).toEqual({
      id: 'sat',
      kind: 'satisfaction',
      severity: 'warning',
      threshold: 80,
      windowHours: 24,
      minSample: 30,
      forSeconds: 0,
      hysteresis: 5,
      enabled: true,
    });
    expect(alertRuleSchema.parse({ id: 'spike', kind: 'category_spike', severity: 'critical', threshold: 3 })).toMatchObject({
      hysteresis: 0.5,
      baselineDays: 7,
      minCount: 10,
      maxPValue: 0.001,
    });
  });

  it('refuses each out-of-range field, naming it', () => {
    const ok = { id: 'r1', kind: 'satisfaction', severity: 'warning', threshold: 70 };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...ok, id: 'Upper' }, '0.id'],
      [{ ...ok, id: '' }, '0.id'],
      [{ ...ok, kind: 'latency' }, '0.kind'],
      [{ ...ok, severity: 'info' }, '0.severity'],
      [{ ...ok, threshold: 0.7 * 1000 }, '0.threshold'],
      [{ ...ok, threshold: -1 }, '0.threshold'],
      [{ ...ok, threshold: '70' }, '0.threshold'],
      [{ ...ok, windowHours: 0 }, '0.windowHours'],
      [{ ...ok, windowHours: 169 }, '0.windowHours'],
      [{ ...ok, windowHours: 1.5 }, '0.windowHours'],
      [{ ...ok, minSample: 0 }, '0.minSample'],
      [{ ...ok, forSeconds: -1 }, '0.forSeconds'],
      [{ ...ok, hysteresis: -1 }, '0.hysteresis'],
      [{ ...ok, threshold: 98, hysteresis: 5 }, '0.hysteresis'],
      [{ ...ok, baselineDays: 7 }, '0.baselineDays'],
      [{ ...ok, minCount: 3 }, '0.minCount'],
      [{ ...ok, maxPValue: 0.05 }, '0.maxPValue'],
      [{ ...ok, kind: 'category_spike', threshold: 2, maxPValue: 0 }, '0.maxPValue'],
      [{ ...ok, kind: 'category_spike', threshold: 2, maxPValue: 1.5 }, '0.maxPValue'],
      [{ ...ok, extra: 1 }, '0'],
      [{ ...ok, kind: 'correction_rate', threshold: 3, hysteresis: 5 }, '0.hysteresis'],
      [{ ...ok, kind: 'category_spike', threshold: 1 }, '0.threshold'],
      [{ ...ok, kind: 'category_spike', threshold: 2, hysteresis: 2 }, '0.hysteresis'],
      [{ ...ok, kind: 'category_spike', threshold: 2, baselineDays: 15 }, '0.baselineDays'],
    ];
    for (const [rule, path] of cases) expect(issueOf({ rules: [rule] })?.path, JSON.stringify(rule)).toBe(`rules.${path}`);
  });

  it('refuses duplicate ids, too many rules and a body without rules', () => {
    const r = { id: 'a', kind: 'satisfaction', severity: 'warning', threshold: 70 };
    expect(issueOf({ rules: [r, { ...r, severity: 'critical', threshold: 50 }] })).toEqual({ path: 'rules.1.id', message: 'duplicate rule id "a"' });
    expect(issueOf({ rules: Array.from({ length: MAX_ALERT_RULES + 1 }, (_, i) => ({ ...r, id: `r${i}` })) })?.path).toBe('rules');
    expect(issueOf({})?.path).toBe('rules');
    expect(issueOf({ rules: [] })).toBeUndefined();
  });
});
