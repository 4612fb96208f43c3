import { describe, expect, it } from 'vitest';
import { addSums, emptySums, type StatsSums } from '../src/stats/stats-sums.js';
import { computeStatsCells, issueCounts, normalizeQuery, userSums } from '../src/stats/stats-cells.js';
import { buildStatsReport, daysBetween, rateInterval, weekOf } from '../src/stats/feedback-stats.js';

const rated = (positive: number, negative: number, extra: Partial<StatsSums> = {}): StatsSums => ({ ...emptySums(), positiveRatings: positive, negativeRatings: negative, ...extra });

describe('buildStatsReport', () => {
  const days = [
    { day: '2026-03-01', sums: rated(8, 2, { responses: 10, correctedResponses: 1, sessions: 5, escalatedSessions: 1, positiveCategoryCounts: { accuracy: 2 } }) },
    { day: '2026-03-03', sums: rated(1, 3, { responses: 10, correctedResponses: 3, sessions: 5, negativeCategoryCounts: { accuracy: 1, timeliness: 3 } }) },
  ];
  const report = buildStatsReport({ from: '2026-03-01', to: '2026-03-03', days, groupBy: 'day', issues: [{ query: 'b', negatives: 2 }, { query: 'a', negatives: 2 }, { query: 'b', negatives: 1 }] });

  it('adds sums over the range and divides once (a rate of sums, not a mean of rates)', () => {
    expect(report).toMatchObject({ total: 14, positive: 9, negative: 5, satisfactionRate: 64.29, correctionRate: 20, escalationRate: 10 });
    // Mean of the daily correction rates would be (10 + 30) / 2 = 20 too; satisfaction shows the difference: (80 + 25) / 2 = 52.5.
    expect(report.satisfactionRate).not.toBe(52.5);
  });

  it('lists every day of the range, quiet ones as zeros, with the rolling 7-day rate', () => {
    expect(report.byDay).toEqual([
      { date: '2026-03-01', total: 10, positive: 8, negative: 2, satisfactionRate: 80, rolling7DaySatisfaction: 80 },
      { date: '2026-03-02', total: 0, positive: 0, negative: 0, satisfactionRate: null, rolling7DaySatisfaction: 80 },
      { date: '2026-03-03', total: 4, positive: 1, negative: 3, satisfactionRate: 25, rolling7DaySatisfaction: 64.29 },
    ]);
  });

  it('splits categories into positive and negative and ranks error categories and issues', () => {
    expect(report.byCategory).toEqual({ accuracy: { positive: 2, negative: 1 }, timeliness: { positive: 0, negative: 3 } });
    expect(report.errorCategories).toEqual([
      { category: 'timeliness', count: 3, share: 75 },
      { category: 'accuracy', count: 1, share: 25 },
    ]);
    expect(report.topIssues).toEqual([
      { query: 'b', negativeCount: 3 },
      { query: 'a', negativeCount: 2 },
    ]);
  });

  it('uses the default baseline below 30 ratings and the workspace’s own from 30', () => {
    expect(report.baseline).toEqual({ source: 'default', satisfactionRate: 70, minimumRated: 30, rated: 14 });
    const enough = buildStatsReport({ from: '2026-03-01', to: '2026-03-01', days: [{ day: '2026-03-01', sums: rated(27, 3) }], groupBy: 'day', issues: [] });
    expect(enough.baseline).toEqual({ source: 'workspace', satisfactionRate: 90, minimumRated: 30, rated: 30 });
  });

  it('groups by ISO week and by category', () => {
    const weekly = buildStatsReport({ from: '2026-03-01', to: '2026-03-03', days, groupBy: 'week', issues: [] });
    // 2026-03-01 is a Sunday: it closes the week of Monday 2026-02-23.
    expect(weekly.groups.map((g) => [g.key, g.total])).toEqual([
      ['2026-02-23', 10],
      ['2026-03-02', 4],
    ]);
    const byCategory = buildStatsReport({ from: '2026-03-01', to: '2026-03-03', days, groupBy: 'category', issues: [] });
    expect(byCategory.groups.map((g) => [g.key, g.positive, g.negative])).toEqual([
      ['accuracy', 2, 1],
      ['timeliness', 0, 3],
    ]);
  });

  it('sees an improving trend over a steadily better fortnight', () => {
    const rising = daysBetween('2026-03-01', '2026-03-14').map((day, i) => ({ day, sums: rated(50 + 3 * i, 50 - 3 * i) }));
    expect(buildStatsReport({ from: '2026-03-01', to: '2026-03-14', days: rising, groupBy: 'day', issues: [] }).trend.direction).toBe('improving');
  });
});

describe('rateInterval', () => {
  it('gives Wilson bounds as percentages (Newcombe 1998, Table I: 81/263 → 0.2553–0.3662)', () => {
    const i = rateInterval(81, 263);
    expect(i.rate).toBe(30.8);
    expect(i.lower).toBeCloseTo(25.53, 2);
    expect(i.upper).toBeCloseTo(36.62, 2);
  });
});

describe('helpers', () => {
  it('normalizes queries for the top issues', () => {
    expect(normalizeQuery('  How do I  reset my Password?? ')).toBe('how do i reset my password');
    expect(normalizeQuery('ＦＵＬＬ width')).toBe('full width');
    expect(issueCounts([
      { type: 'thumbs_down', polarity: 'negative', query: 'Reset?' },
      { type: 'rating', polarity: 'negative', query: 'reset' },
      { type: 'correction', polarity: 'negative', query: 'reset' },
      { type: 'thumbs_up', polarity: 'positive', query: 'reset' },
    ])).toEqual([{ query: 'reset', negatives: 2 }]);
  });

  it('walks days across a month end and finds ISO weeks', () => {
    expect(daysBetween('2026-02-27', '2026-03-01')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01']);
    expect(weekOf('2026-11-22')).toBe('2026-11-16');
    expect(weekOf('2026-11-16')).toBe('2026-11-16');
  });

  it('adds category counts by key', () => {
    expect(addSums(rated(1, 0, { negativeCategoryCounts: { a: 1 } }), rated(0, 1, { negativeCategoryCounts: { a: 2, b: 1 } })).negativeCategoryCounts).toEqual({ a: 3, b: 1 });
  });
});

describe('computeStatsCells and userSums', () => {
  const at = new Date('2026-03-01T10:00:00Z');
  const event = (responseId: string, type: 'thumbs_up' | 'thumbs_down', agent: string | null, userId: string | null) => ({
    type,
    payload: {},
    polarity: type === 'thumbs_up' ? ('positive' as const) : ('negative' as const),
    categories: [],
    value: type === 'thumbs_up' ? 1 : -1,
    firstPass: null,
    editDistance: null,
    occurredAt: at,
    responseId,
    responseCreatedAt: at,
    agent,
    model: null,
    queryType: null,
    experimentId: agent === null ? null : 'exp',
    variant: agent === null ? null : 'A',
    userId,
  });
  const events = [event('r1', 'thumbs_up', 'sql', 'u1'), event('r1', 'thumbs_down', 'sql', 'u2'), event('r2', 'thumbs_up', null, null)];
  const registered = [{ responseId: 'r1', sessionId: 's1', corrected: true, escalated: false, agent: 'sql', model: null, queryType: null, experimentId: 'exp', variant: 'A', userId: 'u1' }];

  it('sums per combination of response dimensions, none as empty strings, sorted', () => {
    const cells = computeStatsCells(events, registered);
    expect(cells.map((c) => [c.agent, c.experimentId, c.variant, c.sums.positiveRatings, c.sums.negativeRatings, c.sums.responses])).toEqual([
      ['', '', '', 1, 0, 0],
      ['sql', 'exp', 'A', 1, 1, 1],
    ]);
  });

  it('sums per user, leaving out events and responses without one', () => {
    expect(userSums(events, registered).map((u) => [u.userId, u.sums.events, u.sums.responses, u.sums.correctedResponses])).toEqual([
      ['u1', 1, 1, 1],
      ['u2', 1, 0, 0],
    ]);
  });
});
