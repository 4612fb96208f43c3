import { describe, expect, it } from 'vitest';
import type { FeedbackEventType } from '../src/event-types.js';
import type { Polarity } from '../src/signals/signal-types.js';
import { buildStatsReport } from '../src/stats/feedback-stats.js';
import { issueCounts } from '../src/stats/stats-cells.js';
import { addSums, emptySums, sumsOf, type SummedEvent } from '../src/stats/stats-sums.js';

const T = new Date('2026-03-01T10:00:00Z');

function ev(type: FeedbackEventType, polarity: Polarity, source?: string, extra: Partial<SummedEvent> = {}): SummedEvent {
  return {
    type,
    payload: {},
    polarity,
    categories: [],
    value: polarity === 'positive' ? 1 : polarity === 'negative' ? -1 : 0,
    firstPass: polarity === 'positive' ? true : polarity === 'negative' ? false : null,
    editDistance: null,
    occurredAt: T,
    responseId: `r-${Math.random()}`,
    responseCreatedAt: T,
    ...(source === undefined ? {} : { source }),
    ...extra,
  };
}

describe('sums by source', () => {
  const users = [ev('thumbs_up', 'positive', 'explicit'), ev('thumbs_down', 'negative', 'explicit'), ev('retry', 'negative', 'implicit')];
  const judged = [ev('thumbs_down', 'negative', 'judge'), ev('thumbs_down', 'negative', 'judge'), ev('thumbs_up', 'positive', 'review')];

  it('keeps reviewers’ and judges’ votes out of every user measure', () => {
    const alone = sumsOf(users, []);
    const mixed = sumsOf([...users, ...judged], []);
    const { events: _a, sourceEvents: _b, sourcePositive: _c, sourceNegative: _d, ...userMeasures } = alone;
    const { events: _e, sourceEvents: _f, sourcePositive: _g, sourceNegative: _h, ...mixedMeasures } = mixed;
    expect(mixedMeasures).toEqual(userMeasures);
    expect(mixed.positiveRatings).toBe(1);
    expect(mixed.negativeRatings).toBe(1);
  });

  it('counts every event by source, adding up to events', () => {
    const s = sumsOf([...users, ...judged], []);
    expect(s.events).toBe(6);
    expect(s.sourceEvents).toEqual({ explicit: 2, implicit: 1, judge: 2, review: 1 });
    expect(s.sourcePositive).toEqual({ explicit: 1, review: 1 });
    expect(s.sourceNegative).toEqual({ explicit: 1, judge: 2 });
    expect(Object.values(s.sourceEvents).reduce((a, b) => a + b, 0)).toBe(s.events);
  });

  it('takes a row without a source as its type’s', () => {
    expect(sumsOf([ev('retry', 'negative')], []).sourceEvents).toEqual({ implicit: 1 });
  });

  it('adds sums stored before the source records existed', () => {
    const old = emptySums() as Partial<ReturnType<typeof emptySums>>;
    delete old.sourceEvents;
    const total = addSums(old as ReturnType<typeof emptySums>, sumsOf(judged, []));
    expect(total.sourceEvents).toEqual({ judge: 2, review: 1 });
  });

  it('reports satisfaction from users and shows each source apart; groupBy=source agrees', () => {
    const sums = sumsOf([...users, ...judged], []);
    const report = buildStatsReport({ from: '2026-03-01', to: '2026-03-01', days: [{ day: '2026-03-01', sums }], groupBy: 'source', issues: [] });
    expect(report).toMatchObject({ events: 6, total: 2, positive: 1, negative: 1, satisfactionRate: 50 });
    expect(report.bySource).toEqual({
      explicit: { events: 2, positive: 1, negative: 1, positiveRate: 50 },
      implicit: { events: 1, positive: 0, negative: 0, positiveRate: null },
      judge: { events: 2, positive: 0, negative: 2, positiveRate: 0 },
      review: { events: 1, positive: 1, negative: 0, positiveRate: 100 },
    });
    expect(report.groups.map((g) => [g.key, g.events, g.positive, g.negative, g.satisfactionRate])).toEqual([
      ['explicit', 2, 1, 1, 50],
      ['implicit', 1, 0, 0, null],
      ['judge', 2, 0, 2, 0],
      ['review', 1, 1, 0, 100],
    ]);
    expect(report.groups.reduce((n, g) => n + g.events, 0)).toBe(report.events);
  });

  it('leaves judged down-votes out of the top issues', () => {
    const rows = [
      { type: 'thumbs_down' as const, polarity: 'negative' as const, source: 'judge', query: 'q1' },
      { type: 'thumbs_down' as const, polarity: 'negative' as const, source: 'explicit', query: 'q2' },
    ];
    expect(issueCounts(rows)).toEqual([{ query: 'q2', negatives: 1 }]);
  });
});
