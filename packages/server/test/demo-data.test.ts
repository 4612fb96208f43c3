/**
 * `feedloop demo`'s data: the planted drop is one the default satisfaction rule can see, whatever
 * the weekday and hour the demo is made at (the demo's quieter weekends once left a half-scale
 * demo made on a Sunday under the rule's minimum sample, and CI's demo test failed that day).
 */
import { defaultAlertRules, HOUR_MS, windowStart } from '@feedloop/core';
import { describe, expect, it } from 'vitest';
import { demoData } from '../src/cli/demo-data.js';

describe('demo data', () => {
  it("holds the satisfaction rule's minimum sample, under its threshold, in the last 24 h at every hour of a week (half scale)", () => {
    const rule = defaultAlertRules().find((r) => r.id === 'satisfaction-warning');
    if (rule === undefined) throw new Error('no satisfaction-warning rule');
    const monday = Date.UTC(2026, 10, 23, 0, 3);
    const short: string[] = [];
    // Every 7 hours for a week: each hour of the day and each weekday comes round.
    for (let h = 0; h < 7 * 24; h += 7) {
      const now = new Date(monday + h * HOUR_MS);
      const from = windowStart(now, rule.windowHours).getTime();
      const rated = demoData(now, { scale: 0.5 }).events.filter((e) => (e.type === 'thumbs_up' || e.type === 'thumbs_down') && Date.parse(e.occurredAt) >= from);
      const satisfaction = (100 * rated.filter((e) => e.type === 'thumbs_up').length) / rated.length;
      if (rated.length < rule.minSample || satisfaction >= rule.threshold) short.push(`${now.toISOString()}: ${rated.length} ratings, ${satisfaction.toFixed(0)} %`);
    }
    expect(short).toEqual([]);
  });
});
