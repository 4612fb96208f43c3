import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FEEDBACK_EVENT_TYPES } from '../src/event-types.js';
import { addSums, emptySums, sumsOf } from '../src/stats/stats-sums.js';
import { computeDailyMetrics, ROLLUP_DIMENSIONS, type DailyMetrics, type RegisteredResponse, type RollupRow } from '../src/stats/daily-metrics.js';

const created = new Date('2026-03-02T10:00:00Z');
const after = (ms: number) => new Date(created.getTime() + ms);
const SECOND = 1000;

interface Resp {
  responseId: string;
  sessionId: string | null;
  agent: string | null;
  model: string | null;
  queryType: string | null;
  variant: string | null;
}
const r1: Resp = { responseId: 'r1', sessionId: 's1', agent: 'a', model: 'm1', queryType: 'sql', variant: 'A' };
const r2: Resp = { responseId: 'r2', sessionId: 's1', agent: 'a', model: 'm2', queryType: null, variant: 'B' };
const r3: Resp = { responseId: 'r3', sessionId: null, agent: 'b', model: null, queryType: null, variant: null };

let nextId = 0;
function row(resp: Resp, fields: Partial<RollupRow> & Pick<RollupRow, 'type'>): RollupRow {
  nextId += 1;
  return {
    eventId: `e${nextId}`,
    payload: {},
    polarity: 'neutral',
    categories: [],
    value: 0,
    firstPass: null,
    editDistance: null,
    occurredAt: created,
    responseCreatedAt: created,
    ...resp,
    ...fields,
  };
}

/** A day of 11 events over 3 responses: r1 approved then corrected, r2 liked, r3 disliked and escalated without a session. */
const day: RollupRow[] = [
  row(r1, { type: 'review', polarity: 'positive', value: 1, firstPass: true, payload: { verdict: 'approved', issues: [], editDistance: 30 }, occurredAt: after(60 * SECOND) }),
  row(r1, { type: 'correction', polarity: 'negative', value: -1, firstPass: false, editDistance: 40, categories: ['hallucination'], occurredAt: after(120 * SECOND) }),
  row(r2, { type: 'thumbs_up', polarity: 'positive', value: 1, firstPass: true, occurredAt: after(30 * SECOND) }),
  row(r2, { type: 'rating', polarity: 'positive', value: 1, payload: { rating: 5 }, occurredAt: after(30 * SECOND) }),
  row(r3, { type: 'thumbs_down', polarity: 'negative', value: -1, categories: ['hallucination', 'accuracy'] }),
  // Dated before its response (client clock skew): counts as 0 ms.
  row(r3, { type: 'escalation', polarity: 'negative', value: -0.5, occurredAt: after(-5 * SECOND) }),
  row(r3, { type: 'skip', occurredAt: after(10 * SECOND) }),
  row(r1, { type: 'quality_scores', value: 0.5, payload: { accuracy: 80, completeness: 70 }, occurredAt: after(60 * SECOND) }),
  row(r2, { type: 'quality_scores', value: 0.5, payload: { accuracy: 91, styleMatch: 'x' }, occurredAt: after(60 * SECOND) }),
  row(r3, { type: 'edit', polarity: 'negative', value: -0.5, editDistance: 20, occurredAt: after(3600 * SECOND) }),
  row(r3, { type: 'rate_usefulness', polarity: 'negative', value: -1, payload: { rating: 1 }, occurredAt: after(45 * SECOND) }),
];

/** The day's registered responses: r1 was corrected, r3 escalated (on whichever day). */
const registered: RegisteredResponse[] = [
  { ...r1, corrected: true, escalated: false },
  { ...r2, corrected: false, escalated: false },
  { ...r3, corrected: false, escalated: true },
];

function group(metrics: DailyMetrics[], dimension: DailyMetrics['dimension'], value: string): DailyMetrics {
  const found = metrics.find((m) => m.dimension === dimension && m.dimensionValue === value);
  if (found === undefined) throw new Error(`no ${dimension}=${value} group`);
  return found;
}

describe('computeDailyMetrics', () => {
  it('gives nothing for a day without events', () => {
    expect(computeDailyMetrics([])).toEqual([]);
    expect(computeDailyMetrics([], [])).toEqual([]);
  });

  it('rolls up a day with registered responses and no feedback', () => {
    const [all, ...rest] = computeDailyMetrics([], [{ ...r3, corrected: false, escalated: false }]);
    expect(all).toMatchObject({ dimension: 'all', totalEvents: 0, totalResponses: 1, totalSessions: 1, correctionRate: 0, escalationRate: 0, positiveRate: null });
    expect(rest.map((m) => `${m.dimension}=${m.dimensionValue}`)).toEqual(['agent=b']);
  });

  it('computes every column of the whole-workspace row', () => {
    expect(group(computeDailyMetrics(day, registered), 'all', '')).toMatchObject({
      dimension: 'all',
      dimensionValue: '',
      totalEvents: 11,
      totalResponses: 3,
      // s1 (r1, r2) and r3 standing for its own.
      totalSessions: 2,
      // thumbs_up + rating; thumbs_down + rate_usefulness. The positive review is not a rating.
      positiveRatings: 2,
      negativeRatings: 2,
      skippedRatings: 1,
      // r1 approved then corrected: judged, not accepted; r2 accepted; r3 never judged.
      firstPassAcceptanceRate: 50,
      // review 30 (payload), correction 40, edit 20.
      averageEditDistance: 30,
      errorCategoryCounts: { accuracy: 1, hallucination: 2 },
      positiveCategoryCounts: {},
      avgAccuracyScore: 85.5,
      avgCompletenessScore: 70,
      // 'x' is not a score.
      avgStyleMatchScore: null,
      positiveRate: 50,
      // r1 of the 3 responses registered that day.
      correctionRate: 33.33,
      // Sessions: s1 (r1, r2) and r3 standing for its own; r3 escalated.
      escalationRate: 50,
      // (60+120+30+30+0+0+10+60+60+3600+45) s / 11 events.
      avgResponseTimeMs: 365_000,
      avgValue: 0,
    });
  });

  it('makes one group per dimension value, sorted by dimension then value', () => {
    const keys = computeDailyMetrics(day, registered).map((m) => `${m.dimension}=${m.dimensionValue}:${m.totalEvents}`);
    expect(keys).toEqual([
      'all=:11',
      'agent=a:6',
      'agent=b:5',
      'model=m1:3',
      'model=m2:3',
      'query_type=sql:3',
      'variant=A:3',
      'variant=B:3',
      'category=accuracy:1',
      'category=hallucination:2',
    ]);
  });

  it('computes event measures over the group’s events and response measures over its registered responses', () => {
    const metrics = computeDailyMetrics(day, registered);
    expect(group(metrics, 'agent', 'a')).toMatchObject({
      totalResponses: 2,
      totalSessions: 1,
      correctionRate: 50,
      firstPassAcceptanceRate: 50,
      escalationRate: 0,
      positiveRate: 100,
      averageEditDistance: 35,
    });
    expect(group(metrics, 'agent', 'b')).toMatchObject({
      totalResponses: 1,
      totalSessions: 1,
      correctionRate: 0,
      firstPassAcceptanceRate: null,
      escalationRate: 100,
      positiveRate: 0,
      skippedRatings: 1,
      avgAccuracyScore: null,
    });
    expect(group(metrics, 'category', 'hallucination')).toMatchObject({
      totalResponses: 0,
      correctionRate: null,
      escalationRate: null,
      negativeRatings: 1,
      errorCategoryCounts: { accuracy: 1, hallucination: 2 },
    });
  });

  it('rounds percentages to 2 decimals and avgValue to 4', () => {
    const rows = [
      row(r1, { type: 'correction', value: 1 }),
      row(r2, { type: 'correction', value: -1 }),
      row(r3, { type: 'thumbs_up', value: 0.5 }),
    ];
    const [all] = computeDailyMetrics(rows, [r1, r2, r3].map((r, i) => ({ ...r, corrected: i < 2, escalated: false })));
    expect(all?.correctionRate).toBe(66.67);
    expect(all?.avgValue).toBe(0.1667);
    const negative = computeDailyMetrics([row(r1, { type: 'thumbs_down', value: -1 }), ...[1, 2].map(() => row(r1, { type: 'comment', value: 0.25 }))]);
    expect(negative[0]?.avgValue).toBe(-0.1667);
    // A mean that rounds to zero is 0, not -0.
    expect(Object.is(computeDailyMetrics([row(r1, { type: 'comment', value: -0.00001 })])[0]?.avgValue, 0)).toBe(true);
    // Half rounds away from zero, as NUMERIC does: 1 of 8 responses is 12.5, 1 of 32 is 3.125 → 3.13.
    const responses = (n: number) => Array.from({ length: n }, (_, i) => ({ ...r1, responseId: `x${i}`, corrected: i === 0, escalated: false }));
    expect(computeDailyMetrics([], responses(8))[0]?.correctionRate).toBe(12.5);
    expect(computeDailyMetrics([], responses(32))[0]?.correctionRate).toBe(3.13);
  });

  it('reads payloads defensively', () => {
    const rows = [
      row(r1, { type: 'quality_scores', payload: null }),
      row(r1, { type: 'quality_scores', payload: [80] }),
      row(r1, { type: 'quality_scores', payload: { accuracy: '80', completeness: Number.NaN, styleMatch: 250 } }),
      row(r1, { type: 'review', payload: 'approved' }),
      row(r1, { type: 'review', payload: { editDistance: -3 } }),
      // An accuracy on another type is not a quality score.
      row(r1, { type: 'comment', payload: { accuracy: 10 } }),
    ];
    expect(computeDailyMetrics(rows)[0]).toMatchObject({
      avgAccuracyScore: null,
      avgCompletenessScore: null,
      avgStyleMatchScore: null,
      averageEditDistance: null,
    });
  });

  it('takes a review’s edit distance from its column when the payload has none', () => {
    const rows = [row(r1, { type: 'review', payload: { verdict: 'rejected' }, editDistance: 12 }), row(r1, { type: 'review', payload: { editDistance: 50 }, editDistance: 12 })];
    expect(computeDailyMetrics(rows)[0]?.averageEditDistance).toBe(31);
  });

  it('counts a category once per row, negative and positive apart, neutral rows in neither', () => {
    const rows = [
      row(r1, { type: 'thumbs_down', polarity: 'negative', categories: ['other', 'other'] }),
      row(r1, { type: 'comment', polarity: 'neutral', categories: ['other'] }),
      row(r2, { type: 'thumbs_up', polarity: 'positive', categories: ['relevance'] }),
    ];
    const metrics = computeDailyMetrics(rows);
    expect(group(metrics, 'all', '').errorCategoryCounts).toEqual({ other: 1 });
    expect(group(metrics, 'all', '').positiveCategoryCounts).toEqual({ relevance: 1 });
    expect(group(metrics, 'category', 'other').totalEvents).toBe(2);
    expect(group(metrics, 'category', 'relevance')).toMatchObject({ totalEvents: 1, positiveRatings: 1, positiveCategoryCounts: { relevance: 1 } });
  });

  it('counts a session once however many of its responses, and a sessionless response as its own', () => {
    const of = (responseId: string, sessionId: string | null, escalated: boolean) => ({ responseId, sessionId, corrected: false, escalated });
    expect(sumsOf([], [of('r1', 's1', false), of('r2', 's1', true), of('r3', null, false), of('r4', null, true)])).toMatchObject({
      responses: 4,
      correctedResponses: 0,
      sessions: 3,
      escalatedSessions: 2,
    });
  });

  it('stores the sums its rates come from, and sums add up to the sums of the union', () => {
    const all = group(computeDailyMetrics(day, registered), 'all', '');
    expect(all.sums).toMatchObject({ editDistanceSum: 90, editDistanceCount: 3, accuracySum: 171, accuracyCount: 2, firstPassAccepted: 1, firstPassJudged: 2 });
    const [first, second] = [day.slice(0, 5), day.slice(5)];
    const added = addSums(addSums(emptySums(), sumsOf(first, [])), sumsOf(second, []));
    const whole = sumsOf(day, []);
    // First pass is per response: a response judged in both halves counts in each, as a session does across days.
    expect({ ...added, firstPassAccepted: 0, firstPassJudged: 0 }).toEqual({ ...whole, firstPassAccepted: 0, firstPassJudged: 0 });
  });
});

const rowArb: fc.Arbitrary<RollupRow> = fc.record({
  eventId: fc.uuid(),
  type: fc.constantFrom(...FEEDBACK_EVENT_TYPES),
  payload: fc.oneof(
    fc.constant(null),
    fc.record(
      { accuracy: fc.integer({ min: -20, max: 120 }), completeness: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.string()), styleMatch: fc.integer({ min: 0, max: 100 }), editDistance: fc.integer({ min: -20, max: 120 }) },
      { requiredKeys: [] },
    ),
  ),
  polarity: fc.constantFrom('positive', 'negative', 'neutral'),
  categories: fc.array(fc.constantFrom('hallucination', 'other', 'accuracy'), { maxLength: 3 }),
  // Quarters keep every sum exact, so reordering rows cannot change a mean.
  value: fc.integer({ min: -4, max: 4 }).map((n) => n / 4),
  firstPass: fc.constantFrom(true, false, null),
  editDistance: fc.option(fc.integer({ min: 0, max: 100 })),
  occurredAt: fc.integer({ min: -10_000, max: 10_000_000 }).map(after),
  responseId: fc.constantFrom('r1', 'r2', 'r3', 'r4'),
  responseCreatedAt: fc.constant(created),
  sessionId: fc.option(fc.constantFrom('s1', 's2')),
  agent: fc.option(fc.constantFrom('a', 'b')),
  model: fc.option(fc.constantFrom('m1', 'm2')),
  queryType: fc.option(fc.constantFrom('sql', 'chat')),
  variant: fc.option(fc.constantFrom('A', 'B')),
});

const RATE_FIELDS = [
  'firstPassAcceptanceRate',
  'averageEditDistance',
  'avgAccuracyScore',
  'avgCompletenessScore',
  'avgStyleMatchScore',
  'positiveRate',
  'correctionRate',
  'escalationRate',
] as const satisfies ReadonlyArray<keyof DailyMetrics>;

describe('computeDailyMetrics properties', () => {
  it('keeps rates and averages in range', () => {
    fc.assert(
      fc.property(fc.array(rowArb, { maxLength: 30 }), (rows) => {
        for (const m of computeDailyMetrics(rows)) {
          for (const field of RATE_FIELDS) {
            const v = m[field];
            if (v !== null) {
              expect(v).toBeGreaterThanOrEqual(0);
              expect(v).toBeLessThanOrEqual(100);
              expect(Math.round(v * 100) / 100).toBe(v);
            }
          }
          if (m.avgValue !== null) expect(Math.abs(m.avgValue)).toBeLessThanOrEqual(1);
          if (m.avgResponseTimeMs !== null) expect(m.avgResponseTimeMs).toBeGreaterThanOrEqual(0);
          expect(m.totalSessions).toBeLessThanOrEqual(m.totalResponses);
          expect(m.positiveRatings + m.negativeRatings + m.skippedRatings).toBeLessThanOrEqual(m.totalEvents);
        }
      }),
    );
  });

  it('has one whole-workspace row first, counting every row, and groups that partition their dimension', () => {
    fc.assert(
      fc.property(fc.array(rowArb, { minLength: 1, maxLength: 30 }), (rows) => {
        const metrics = computeDailyMetrics(rows);
        const all = metrics.filter((m) => m.dimension === 'all');
        expect(all).toHaveLength(1);
        expect(metrics[0]).toBe(all[0]);
        expect(all[0]?.totalEvents).toBe(rows.length);
        const sumOf = (dimension: DailyMetrics['dimension']) => metrics.filter((m) => m.dimension === dimension).reduce((n, m) => n + m.totalEvents, 0);
        expect(sumOf('agent')).toBe(rows.filter((r) => r.agent !== null).length);
        expect(sumOf('model')).toBe(rows.filter((r) => r.model !== null).length);
        expect(sumOf('query_type')).toBe(rows.filter((r) => r.queryType !== null).length);
        expect(sumOf('variant')).toBe(rows.filter((r) => r.variant !== null).length);
        expect(sumOf('category')).toBe(rows.reduce((n, r) => n + new Set(r.categories).size, 0));
      }),
    );
  });

  it('sorts by dimension then value, each pair once', () => {
    fc.assert(
      fc.property(fc.array(rowArb, { maxLength: 30 }), (rows) => {
        const keys = computeDailyMetrics(rows).map((m) => [ROLLUP_DIMENSIONS.indexOf(m.dimension), m.dimensionValue] as const);
        for (let i = 1; i < keys.length; i++) {
          const [pd, pv] = keys[i - 1]!;
          const [d, v] = keys[i]!;
          expect(pd < d || (pd === d && pv < v)).toBe(true);
        }
      }),
    );
  });

  it('does not depend on the order of the rows', () => {
    fc.assert(
      fc.property(fc.array(rowArb, { maxLength: 30 }), (rows) => {
        expect(computeDailyMetrics([...rows].reverse())).toEqual(computeDailyMetrics(rows));
      }),
    );
  });
});
