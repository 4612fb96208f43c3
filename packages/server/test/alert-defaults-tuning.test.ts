/**
 * The default alert rules previewed over 30 days, the measurement behind docs/alerts.md ("False
 * alarms"): on the demo's data they fire on its planted drop (a model rollout gone wrong in the
 * last day and a half) and not before it; on the shared datasets replayed as steady traffic (every
 * event at a random hour of 37 days, so nothing really changes) no category spikes at all. The
 * hourly counts are built as the pipeline builds them (core's `classify` for polarity and
 * categories, `addHourlyDelta`'s rules), and the lifecycle is the evaluator's own (`previewAlerts`).
 */
import { join } from 'node:path';
import { classify, defaultAlertRules, HOUR_MS, previewAlerts, RATING_TYPES, workspaceSettingsSchema, type EnrichedEvent, type HourlyCounts, type PreviewedAlert } from '@feedloop/core';
import { describe, expect, it } from 'vitest';
import { demoData } from '../src/cli/demo-data.js';
import { readHhRlhf } from '../src/cli/import-hh-rlhf.js';
import { readOasst } from '../src/cli/import-oasst.js';
import { DATASETS_DIR, datasetsAvailable } from './datasets.js';

const DAY_MS = 86_400_000;
const settings = workspaceSettingsSchema.parse({});
const ratingTypes = new Set<string>(RATING_TYPES);

interface Item { type: string; payload: Record<string, unknown>; at: number }

/** Hourly counts as the pipeline adds them (pipeline/hourly-counts.ts). */
function bucketsOf(items: readonly Item[]): HourlyCounts[] {
  const byHour = new Map<number, HourlyCounts>();
  for (const item of items) {
    const hour = Math.floor(item.at / HOUR_MS) * HOUR_MS;
    let b = byHour.get(hour);
    if (!b) {
      b = { hour: new Date(hour), rated: 0, positive: 0, negative: 0, corrections: 0, escalations: 0, negativeCategories: {} };
      byHour.set(hour, b);
    }
    const c = classify({ event: { type: item.type, payload: item.payload } } as unknown as EnrichedEvent, settings);
    if (ratingTypes.has(item.type) && (c.polarity === 'positive' || c.polarity === 'negative')) {
      b.rated++;
      b[c.polarity]++;
    }
    if (item.type === 'correction') b.corrections++;
    if (item.type === 'escalation') b.escalations++;
    if (c.polarity === 'negative') for (const cat of new Set(c.categories)) b.negativeCategories[cat] = (b.negativeCategories[cat] ?? 0) + 1;
  }
  return [...byHour.values()];
}

/** Responses registered per hour (the correction and escalation rates' denominators). */
function registeredOf(ats: readonly number[]) {
  const byHour = new Map<number, number>();
  for (const at of ats) byHour.set(Math.floor(at / HOUR_MS) * HOUR_MS, (byHour.get(Math.floor(at / HOUR_MS) * HOUR_MS) ?? 0) + 1);
  return [...byHour].map(([hour, n]) => ({ hour: new Date(hour), responses: n, sessions: n }));
}

const count = (alerts: readonly PreviewedAlert[], ruleId: string) => alerts.filter((a) => a.ruleId === ruleId).length;

describe('default alert rules, previewed over 30 days', () => {
  it("fire on the demo's planted drop and model regression in every weekday's demo, and rarely in the 28 days before it", () => {
    // The demo's data depends on its day (quieter weekends shift every later draw), so one day's
    // demo is one sample: the rules are held to a week of them, at fixed instants so the test does
    // not change with the calendar (a single day's demo failed "no spike before the drop" on
    // Saturdays). A scan of 68 demos, one every 5 hours over 14 days: every one caught the drop; 11
    // had one category spike in the quiet days (none had two); 0-5 firings before the drop.
    const week = Array.from({ length: 7 }, (_, d) => new Date(Date.UTC(2026, 10, 16 + d, 12, 30)));
    let spikesBefore = 0;
    for (const now of week) {
      const data = demoData(now);
      const items = data.events.map((e) => ({ type: e.type, payload: e.payload ?? {}, at: Date.parse(e.occurredAt) }));
      const alerts = previewAlerts({
        rules: defaultAlertRules(),
        buckets: bucketsOf(items),
        registered: registeredOf(data.responses.map((r) => Date.parse(r.createdAt))),
        from: new Date(now.getTime() - 30 * DAY_MS),
        to: now,
      });
      const dropFrom = now.getTime() - 1.5 * DAY_MS;
      const before = alerts.filter((a) => a.firedAt.getTime() < dropFrom);
      const during = alerts.filter((a) => a.firedAt.getTime() >= dropFrom);
      const names = (list: readonly PreviewedAlert[]) => list.map((a) => `${a.ruleId}${a.labels.category ? `:${a.labels.category}` : ''}`).join(', ') || 'none';
      console.info(`demo of ${now.toISOString().slice(0, 10)}: ${alerts.length} firings in 30 days (${before.length} before the drop: ${names(before)}; ${during.length} during it: ${names(during)})`);
      // The drop: satisfaction warns, and the regression's error categories spike.
      expect(count(during, 'satisfaction-warning'), now.toISOString()).toBeGreaterThan(0);
      expect(count(during, 'category-spike'), now.toISOString()).toBeGreaterThan(0);
      // Before it: the satisfaction warnings are the demo's real days under 70 % (docs/alerts.md, "False alarms").
      expect(before.length, now.toISOString()).toBeLessThanOrEqual(5);
      spikesBefore += count(before, 'category-spike');
    }
    // A spurious category spike about once in six demo months, as the scan found (the old raw 2×
    // fired 25 in one demo's quiet days).
    expect(spikesBefore).toBeLessThanOrEqual(2);
  });

  it.skipIf(!datasetsAvailable())('never spike a category on the shared datasets replayed as steady traffic', async () => {
    const now = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
    let seed = 7;
    const rnd = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const report: string[] = [];
    for (const [name, read] of [
      ['oasst-en100-trees', () => readOasst(join(DATASETS_DIR, 'oasst-en100-trees/en_100_tree.jsonl'))],
      ['hh-rlhf-harmless-test', () => readHhRlhf(join(DATASETS_DIR, 'hh-rlhf-harmless-test/harmless-base-test.jsonl.gz'))],
    ] as const) {
      const items: Item[] = [];
      const registered: number[] = [];
      for await (const record of read()) {
        const at = now - Math.floor(rnd() * 37 * DAY_MS);
        registered.push(at);
        for (const e of record.events) {
          const payload = (e.payload as Record<string, unknown> | undefined) ?? {};
          // As ingest's validation fills it: a review without issues has an empty list.
          items.push({ type: e.type, payload: e.type === 'review' ? { issues: [], ...payload } : payload, at: at + 60_000 });
        }
      }
      const alerts = previewAlerts({ rules: defaultAlertRules(), buckets: bucketsOf(items), registered: registeredOf(registered), from: new Date(now - 30 * DAY_MS), to: new Date(now) });
      const categories = new Set(items.flatMap((i) => (Array.isArray(i.payload.issues) ? (i.payload.issues as string[]) : [])));
      report.push(`${name}: ${items.length} events, ${categories.size} categories, ${count(alerts, 'category-spike')} spike firings, ${alerts.length} firings in all (${[...new Set(alerts.map((a) => a.ruleId))].join(', ') || 'none'})`);
      expect(count(alerts, 'category-spike'), name).toBe(0);
    }
    console.info(report.join('\n'));
  });
});
