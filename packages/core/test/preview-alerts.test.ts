import { describe, expect, it } from 'vitest';
import { HOUR_MS, previewAlerts, type AlertRule, type HourlyCounts } from '../src/index.js';

const rule: AlertRule = { id: 'sat', kind: 'satisfaction', severity: 'critical', threshold: 60, windowHours: 6, minSample: 10, forSeconds: 0, hysteresis: 5, enabled: true };
const start = Date.UTC(2026, 10, 1);
/** 10 rated an hour: 9 positive, except hours 20-25 where only 2 are. */
const buckets: HourlyCounts[] = Array.from({ length: 72 }, (_, h) => {
  const positive = h >= 20 && h < 26 ? 2 : 9;
  return { hour: new Date(start + h * HOUR_MS), rated: 10, positive, negative: 10 - positive, corrections: 0, escalations: 0, negativeCategories: {} };
});

describe('previewAlerts', () => {
  it('fires when the window drops under the threshold and resolves once it recovers past the hysteresis', () => {
    const alerts = previewAlerts({ rules: [rule], buckets, registered: [], from: new Date(start + 6 * HOUR_MS), to: new Date(start + 71 * HOUR_MS) });
    expect(alerts).toHaveLength(1);
    const [a] = alerts;
    expect(a?.ruleId).toBe('sat');
    expect(a!.firedAt.getTime()).toBeGreaterThan(start + 20 * HOUR_MS);
    expect(a!.firedAt.getTime()).toBeLessThan(start + 26 * HOUR_MS);
    expect(a!.value).toBeLessThan(60);
    expect(a!.resolvedAt).not.toBeNull();
    expect(a!.resolvedAt!.getTime()).toBeGreaterThan(a!.firedAt.getTime());
  });

  it('fires nothing for a disabled rule or a threshold never crossed', () => {
    const from = new Date(start + 6 * HOUR_MS);
    const to = new Date(start + 71 * HOUR_MS);
    expect(previewAlerts({ rules: [{ ...rule, enabled: false }], buckets, registered: [], from, to })).toEqual([]);
    expect(previewAlerts({ rules: [{ ...rule, threshold: 10 }], buckets, registered: [], from, to })).toEqual([]);
  });

  it('keeps an alert open at the end when the drop lasts', () => {
    const alerts = previewAlerts({ rules: [rule], buckets, registered: [], from: new Date(start + 6 * HOUR_MS), to: new Date(start + 24 * HOUR_MS) });
    expect(alerts).toHaveLength(1);
    expect(alerts[0]?.resolvedAt).toBeNull();
  });
});
