/**
 * Alert evaluation: windows, thresholds, minimum samples, the 2× baseline, hysteresis, the `for`
 * duration and every lifecycle transition.
 */
import { describe, expect, it } from 'vitest';
import {
  alertFingerprint,
  defaultAlertRules,
  evaluateAlerts,
  expectedInWindow,
  HOUR_MS,
  observe,
  sumWindow,
  toQualityAlert,
  windowStart,
  type AlertChange,
  type AlertInput,
  type AlertRule,
  type HourlyCounts,
  type OpenAlert,
} from '../src/index.js';

const NOW = new Date('2026-11-23T10:20:00Z');
const hoursAgo = (h: number): Date => new Date(Math.floor(NOW.getTime() / HOUR_MS) * HOUR_MS - h * HOUR_MS);

function bucket(h: number, counts: Partial<Omit<HourlyCounts, 'hour'>>): HourlyCounts {
  const positive = counts.positive ?? 0;
  const negative = counts.negative ?? 0;
  return { hour: hoursAgo(h), rated: positive + negative, positive, negative, corrections: 0, escalations: 0, negativeCategories: {}, ...counts };
}

const satisfaction = (over: Partial<AlertRule> = {}): AlertRule => ({
  id: 'sat',
  kind: 'satisfaction',
  severity: 'warning',
  threshold: 70,
  windowHours: 24,
  minSample: 30,
  forSeconds: 0,
  hysteresis: 5,
  enabled: true,
  ...over,
});

const input = (over: Partial<AlertInput>): AlertInput => ({ now: NOW, rules: [satisfaction()], buckets: [], registered: new Map(), open: [], ...over });
const types = (changes: AlertChange[]): string[] => changes.map((c) => c.type);
const openOf = (rule: string, state: OpenAlert['state'], activeAt = NOW, labels: Record<string, string> = {}): OpenAlert => ({
  id: `al_${rule}`,
  ruleId: rule,
  fingerprint: alertFingerprint(rule, labels),
  state,
  activeAt,
  labels,
});

describe('alert windows', () => {
  it('counts the current hour as the last of N hourly buckets', () => {
    expect(windowStart(NOW, 24).toISOString()).toBe('2026-11-22T11:00:00.000Z');
    expect(windowStart(NOW, 1).toISOString()).toBe('2026-11-23T10:00:00.000Z');
    const buckets = [bucket(0, { positive: 1 }), bucket(23, { positive: 2 }), bucket(24, { positive: 4 })];
    expect(sumWindow(buckets, windowStart(NOW, 24), new Date(NOW.getTime() + HOUR_MS)).positive).toBe(3);
  });

  it('sums categories across buckets and normalizes a baseline per day', () => {
    const sum = sumWindow([bucket(0, { negativeCategories: { a: 2 } }), bucket(1, { negativeCategories: { a: 1, b: 4 } })], hoursAgo(5), NOW);
    expect(Object.fromEntries(sum.negativeCategories)).toEqual({ a: 3, b: 4 });
    expect(expectedInWindow(14, 7, 24)).toBe(2);
    expect(expectedInWindow(14, 7, 12)).toBe(1);
  });
});

describe('alert observations', () => {
  it('measures satisfaction over rated responses in the window, in percent', () => {
    const [o] = observe(input({ buckets: [bucket(0, { positive: 20, negative: 10 }), bucket(30, { negative: 100 })] }));
    expect(o).toMatchObject({ metric: 'satisfaction_rate', value: 66.67, threshold: 70, sample: 30, breached: true, clear: false });
    expect(o?.message).toBe('Satisfaction 66.67 % is below 70 % over the last 24 h (30 rated responses)');
  });

  it('judges nothing below the minimum sample: neither breached nor clear', () => {
    const [o] = observe(input({ buckets: [bucket(0, { negative: 29 })] }));
    expect(o).toMatchObject({ value: 0, sample: 29, breached: false, clear: false });
  });

  it('is clear only past the threshold plus the hysteresis', () => {
    const at = (positive: number, negative: number) => observe(input({ buckets: [bucket(0, { positive, negative })] }))[0];
    expect(at(70, 30)).toMatchObject({ value: 70, breached: false, clear: false });
    expect(at(74, 26)).toMatchObject({ breached: false, clear: false });
    expect(at(75, 25)).toMatchObject({ value: 75, breached: false, clear: true });
    expect(at(69, 31)).toMatchObject({ breached: true, clear: false });
  });

  it('measures correction and escalation rates over registered responses and sessions, capped at 100', () => {
    const rules = defaultAlertRules().filter((r) => r.kind === 'correction_rate' || r.kind === 'escalation_rate');
    const [corr, esc] = observe(
      input({ rules, buckets: [bucket(0, { corrections: 25, escalations: 80 })], registered: new Map([[24, { responses: 100, sessions: 40 }]]) }),
    );
    expect(corr).toMatchObject({ metric: 'correction_rate', value: 25, threshold: 20, sample: 100, breached: true });
    expect(esc).toMatchObject({ metric: 'escalation_rate', value: 100, sample: 40, breached: true });
    const [calm] = observe(input({ rules: [rules[0] as AlertRule], buckets: [bucket(0, { corrections: 15 })], registered: new Map([[24, { responses: 100, sessions: 0 }]]) }));
    expect(calm).toMatchObject({ value: 15, breached: false, clear: true });
  });

  it('spikes a category only when its count is large, above 2× its baseline share, and significant (binomial p < 0.001)', () => {
    const spike = defaultAlertRules().find((r) => r.kind === 'category_spike') as AlertRule;
    expect(spike).toMatchObject({ minCount: 10, maxPValue: 0.001, threshold: 2 });
    // The 7 days before: 100 rated a day, 3 of them naming "wrong", 1 "slow".
    const baseline = Array.from({ length: 7 }, (_, d) => bucket(24 + d * 24, { positive: 96, negative: 4, negativeCategories: { wrong: 3, slow: 1 } }));
    const window = bucket(0, { positive: 80, negative: 20, negativeCategories: { wrong: 12, slow: 7, new: 10 } });
    const obs = observe(input({ rules: [spike], buckets: [...baseline, window] }));
    const by = Object.fromEntries(obs.map((o) => [o.labels.category, o]));
    // wrong: baseline share (21 + ½)/(700 + 1) of 100 rated = 3.07 expected; 12 is 3.9× and p ≈ 3e-5.
    expect(by.wrong).toMatchObject({ value: 12, threshold: 6.13, breached: true, metric: 'category_negatives:wrong' });
    expect(by.wrong?.message).toMatch(/binomial p = 0\.0000[0-9]/);
    // slow: 7 of 100 against 1.07 expected is significant, but below the minimum count of 10.
    expect(by.slow).toMatchObject({ value: 7, breached: false });
    // new: no baseline (½ of 701 = 0.07 expected); 10 ≥ minCount and significant.
    expect(by.new).toMatchObject({ value: 10, breached: true });
    expect(by.wrong?.fingerprint).toBe(alertFingerprint('category-spike', { category: 'wrong' }));
    expect(by.wrong?.fingerprint).not.toBe(by.new?.fingerprint);
  });

  it('does not spike negatives that are 2× the baseline but within chance (the issue\'s 5–7 negatives on day one)', () => {
    const spike = { ...(defaultAlertRules().find((r) => r.kind === 'category_spike') as AlertRule), minCount: 5 };
    // 4 a day of 100 rated before; 9 of 100 now: 2.2× but p ≈ 0.03.
    const baseline = Array.from({ length: 7 }, (_, d) => bucket(24 + d * 24, { positive: 90, negative: 10, negativeCategories: { wrong: 4 } }));
    const obs = observe(input({ rules: [spike], buckets: [...baseline, bucket(0, { positive: 80, negative: 20, negativeCategories: { wrong: 9 } })] }));
    expect(obs[0]).toMatchObject({ value: 9, breached: false });
    expect(obs[0]?.value).toBeGreaterThan(obs[0]?.threshold ?? Infinity);
    // The same share on 10× the traffic is significant.
    const big = Array.from({ length: 7 }, (_, d) => bucket(24 + d * 24, { positive: 900, negative: 100, negativeCategories: { wrong: 40 } }));
    const obsBig = observe(input({ rules: [spike], buckets: [...big, bucket(0, { positive: 800, negative: 200, negativeCategories: { wrong: 90 } })] }));
    expect(obsBig[0]).toMatchObject({ value: 90, breached: true });
  });

  it('keeps observing a spiking category that fell quiet, so its alert resolves', () => {
    const spike = defaultAlertRules().find((r) => r.kind === 'category_spike') as AlertRule;
    const open = openOf('category-spike', 'firing', NOW, { category: 'gone' });
    const changes = evaluateAlerts(input({ rules: [spike], buckets: [bucket(0, { positive: 40 })], open: [open] }));
    expect(changes).toEqual([{ type: 'resolved', alertId: open.id, observation: expect.objectContaining({ value: 0, clear: true }) }]);
  });
});

describe('alert lifecycle', () => {
  const low = [bucket(0, { positive: 10, negative: 30 })];
  const band = [bucket(0, { positive: 72, negative: 28 })];
  const high = [bucket(0, { positive: 90, negative: 10 })];

  it('fires at once with for = 0, and only once', () => {
    const first = evaluateAlerts(input({ buckets: low }));
    expect(first).toEqual([{ type: 'firing', alertId: null, activeAt: NOW, observation: expect.objectContaining({ value: 25 }) }]);
    expect(types(evaluateAlerts(input({ buckets: low, open: [openOf('sat', 'firing')] })))).toEqual(['observed']);
  });

  it('waits out the for duration as pending, and clears a pending alert that recovers', () => {
    const rules = [satisfaction({ forSeconds: 120 })];
    expect(types(evaluateAlerts(input({ rules, buckets: low })))).toEqual(['pending']);
    const since = new Date(NOW.getTime() - 119_000);
    expect(types(evaluateAlerts(input({ rules, buckets: low, open: [openOf('sat', 'pending', since)] })))).toEqual(['observed']);
    const longAgo = new Date(NOW.getTime() - 120_000);
    expect(evaluateAlerts(input({ rules, buckets: low, open: [openOf('sat', 'pending', longAgo)] }))).toEqual([
      { type: 'firing', alertId: 'al_sat', activeAt: longAgo, observation: expect.any(Object) },
    ]);
    expect(types(evaluateAlerts(input({ rules, buckets: band, open: [openOf('sat', 'pending', since)] })))).toEqual(['cleared']);
  });

  it('keeps firing inside the hysteresis band and resolves past it', () => {
    expect(types(evaluateAlerts(input({ buckets: band, open: [openOf('sat', 'firing')] })))).toEqual(['observed']);
    expect(types(evaluateAlerts(input({ buckets: high, open: [openOf('sat', 'firing')] })))).toEqual(['resolved']);
    // Nothing new starts in the band either.
    expect(evaluateAlerts(input({ buckets: band }))).toEqual([]);
  });

  it('does not flap when the value oscillates around the threshold', () => {
    let open: OpenAlert[] = [];
    const notified: string[] = [];
    for (const [positive, negative] of [[60, 40], [71, 29], [69, 31], [72, 28], [68, 32], [73, 27], [76, 24], [74, 26], [71, 29]] as const) {
      for (const c of evaluateAlerts(input({ buckets: [bucket(0, { positive, negative })], open }))) {
        if (c.type === 'firing') {
          notified.push('firing');
          open = [openOf('sat', 'firing')];
        } else if (c.type === 'resolved') {
          notified.push('resolved');
          open = [];
        }
      }
    }
    // Fires at 60 %, stays firing between 68 and 73 %, resolves at 76 %, stays quiet at 74 and 71 %.
    expect(notified).toEqual(['firing', 'resolved']);
  });

  it('holds a firing alert when the sample falls below the minimum', () => {
    expect(evaluateAlerts(input({ buckets: [bucket(0, { positive: 20 })], open: [openOf('sat', 'firing')] })).map((c) => c.type)).toEqual(['observed']);
  });

  it('resolves the firing and clears the pending alerts of a removed or disabled rule', () => {
    const open = [openOf('gone', 'firing'), openOf('off', 'pending')];
    const rules = [satisfaction(), satisfaction({ id: 'off', enabled: false })];
    expect(evaluateAlerts(input({ rules, buckets: high, open }))).toEqual([
      { type: 'resolved', alertId: 'al_gone', observation: null },
      { type: 'cleared', alertId: 'al_off' },
    ]);
  });

  it('fires warning and critical satisfaction alerts separately', () => {
    const changes = evaluateAlerts(input({ rules: defaultAlertRules().slice(0, 2), buckets: low }));
    expect(changes.map((c) => c.type === 'firing' && [c.observation.ruleId, c.observation.severity])).toEqual([
      ['satisfaction-warning', 'warning'],
      ['satisfaction-critical', 'critical'],
    ]);
  });
});

describe('alert fingerprints and QualityAlert', () => {
  it('are stable, label-order independent and distinct per rule and labels', () => {
    expect(alertFingerprint('r', { a: '1', b: '2' })).toBe(alertFingerprint('r', { b: '2', a: '1' }));
    expect(alertFingerprint('r', {})).toMatch(/^[0-9a-f]{16}$/);
    const all = new Set(['r', 's'].flatMap((rule) => ['x', 'y', 'é', '日本'].map((c) => alertFingerprint(rule, { category: c }))));
    expect(all.size).toBe(8);
    expect(alertFingerprint('r', {})).not.toBe(alertFingerprint('r', { category: '' }));
  });

  it('maps kinds onto the Phase 4.1 types', () => {
    const base = { id: 'al_1', severity: 'warning' as const, message: 'm', metric: 'x', threshold: 1, value: 2, firedAt: NOW };
    expect(toQualityAlert({ ...base, kind: 'satisfaction' })).toEqual({
      id: 'al_1',
      type: 'satisfaction_drop',
      severity: 'warning',
      message: 'm',
      metric: 'x',
      threshold: 1,
      currentValue: 2,
      triggeredAt: NOW.toISOString(),
    });
    expect(toQualityAlert({ ...base, kind: 'category_spike' }).type).toBe('category_spike');
    expect(toQualityAlert({ ...base, kind: 'correction_rate' }).type).toBe('high_negative_rate');
    expect(toQualityAlert({ ...base, kind: 'escalation_rate' }).type).toBe('high_negative_rate');
  });
});
