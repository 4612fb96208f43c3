import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FEEDBACK_EVENT_TYPES } from '../src/event-types.js';
import {
  addCounterDeltas,
  liveCounterFields,
  liveStatsFromFields,
  mergeCounterDeltas,
  ratedCounterFields,
  ratedFromFields,
  utcDay,
  type CounterDeltas,
  type LiveCounterInput,
} from '../src/signals/live-counters.js';

describe('utcDay', () => {
  it('cuts days in UTC whatever the offset the instant was written with', () => {
    expect(utcDay(new Date('2026-03-01T23:30:00-02:00'))).toBe('2026-03-02');
    expect(utcDay(new Date('2026-03-02T00:30:00+02:00'))).toBe('2026-03-01');
    expect(utcDay(new Date('2026-12-31T23:59:59.999Z'))).toBe('2026-12-31');
    expect(utcDay(new Date('2027-01-01T00:00:00.000Z'))).toBe('2027-01-01');
  });
});

describe('liveCounterFields', () => {
  it('counts a counted event in total, type, polarity and its severity', () => {
    expect(liveCounterFields({ type: 'thumbs_down', polarity: 'negative', severity: 'medium', status: 'counted' })).toEqual([
      'total',
      'type:thumbs_down',
      'polarity:negative',
      'severity:medium',
    ]);
  });

  it('leaves out severity none', () => {
    expect(liveCounterFields({ type: 'thumbs_up', polarity: 'positive', severity: 'none', status: 'counted' })).toEqual([
      'total',
      'type:thumbs_up',
      'polarity:positive',
    ]);
  });

  it('counts a dropped event in dropped instead of polarity and severity', () => {
    expect(liveCounterFields({ type: 'correction', polarity: 'negative', severity: 'high', status: 'dropped' })).toEqual([
      'total',
      'type:correction',
      'dropped',
    ]);
  });
});

describe('addCounterDeltas', () => {
  it('accumulates per workspace, day and field', () => {
    const deltas: CounterDeltas = {};
    addCounterDeltas(deltas, 'ws1', '2026-03-02', ['total', 'type:skip']);
    addCounterDeltas(deltas, 'ws1', '2026-03-02', ['total']);
    addCounterDeltas(deltas, 'ws1', '2026-03-03', ['total']);
    addCounterDeltas(deltas, 'ws2', '2026-03-02', ['dropped']);
    expect(deltas).toEqual({
      ws1: { '2026-03-02': { total: 2, 'type:skip': 1 }, '2026-03-03': { total: 1 } },
      ws2: { '2026-03-02': { dropped: 1 } },
    });
  });

  it('treats ids that name Object members as plain keys', () => {
    const deltas: CounterDeltas = {};
    addCounterDeltas(deltas, 'constructor', '__proto__', ['toString', '__proto__']);
    addCounterDeltas(deltas, 'constructor', '__proto__', ['__proto__']);
    expect(Object.getPrototypeOf(deltas)).toBe(Object.prototype);
    expect(Object.keys(deltas)).toEqual(['constructor']);
    const days = deltas['constructor'] ?? {};
    expect(Object.keys(days)).toEqual(['__proto__']);
    const fields = Object.getOwnPropertyDescriptor(days, '__proto__')?.value as Record<string, number>;
    expect(Object.getOwnPropertyDescriptor(fields, '__proto__')?.value).toBe(2);
    expect(Object.getOwnPropertyDescriptor(fields, 'toString')?.value).toBe(1);
  });
});

const smallKey = fc.constantFrom('a', 'b', 'c');
const deltasArb: fc.Arbitrary<CounterDeltas> = fc.dictionary(
  smallKey,
  fc.dictionary(smallKey, fc.dictionary(fc.constantFrom('total', 'dropped', 'type:skip'), fc.integer({ min: 0, max: 1000 }))),
);

/** Flattens deltas to sorted `ws/day/field=n` lines, leaving out zeros and empty levels, to compare sums. */
function flat(d: CounterDeltas): string[] {
  return Object.entries(d)
    .flatMap(([ws, days]) => Object.entries(days).flatMap(([day, fields]) => Object.entries(fields).map(([f, n]) => `${ws}/${day}/${f}=${n}`)))
    .filter((line) => !line.endsWith('=0'))
    .sort();
}

describe('mergeCounterDeltas', () => {
  it('sums matching fields into a new object and leaves its inputs alone', () => {
    const a: CounterDeltas = { ws1: { d: { total: 1 } } };
    const b: CounterDeltas = { ws1: { d: { total: 2, dropped: 1 }, e: { total: 1 } }, ws2: { d: { total: 5 } } };
    const merged = mergeCounterDeltas(a, b);
    expect(merged).toEqual({ ws1: { d: { total: 3, dropped: 1 }, e: { total: 1 } }, ws2: { d: { total: 5 } } });
    expect(a).toEqual({ ws1: { d: { total: 1 } } });
    expect(b.ws1?.d).toEqual({ total: 2, dropped: 1 });
    merged.ws1!.d!.total = 99;
    expect(a.ws1?.d?.total).toBe(1);
  });

  it('is commutative and associative, and {} is its identity', () => {
    fc.assert(
      fc.property(deltasArb, deltasArb, deltasArb, (a, b, c) => {
        expect(mergeCounterDeltas(a, b)).toEqual(mergeCounterDeltas(b, a));
        expect(mergeCounterDeltas(mergeCounterDeltas(a, b), c)).toEqual(mergeCounterDeltas(a, mergeCounterDeltas(b, c)));
        expect(flat(mergeCounterDeltas(a, {}))).toEqual(flat(a));
      }),
    );
  });

  it('gives the same totals as adding every event into one accumulator', () => {
    const event = fc.record({ ws: smallKey, day: smallKey, fields: fc.array(fc.constantFrom('total', 'dropped', 'type:skip'), { maxLength: 3 }) });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 30 }), fc.nat(), (events, cut) => {
        const at = events.length === 0 ? 0 : cut % (events.length + 1);
        const whole: CounterDeltas = {};
        const left: CounterDeltas = {};
        const right: CounterDeltas = {};
        events.forEach((e, i) => {
          addCounterDeltas(whole, e.ws, e.day, e.fields);
          addCounterDeltas(i < at ? left : right, e.ws, e.day, e.fields);
        });
        expect(flat(mergeCounterDeltas(left, right))).toEqual(flat(whole));
      }),
    );
  });
});

describe('liveStatsFromFields', () => {
  it('shapes a flat hash, with missing polarities at 0', () => {
    expect(
      liveStatsFromFields('2026-03-02', {
        total: 5,
        dropped: 1,
        'type:thumbs_up': 3,
        'type:correction': 2,
        'polarity:positive': 3,
        'polarity:negative': 1,
        'severity:high': 1,
      }),
    ).toEqual({
      day: '2026-03-02',
      total: 5,
      dropped: 1,
      byType: { thumbs_up: 3, correction: 2 },
      byPolarity: { positive: 3, negative: 1, neutral: 0 },
      bySeverity: { high: 1 },
      bySource: {},
    });
  });

  it('reads an empty hash as a quiet day and ignores fields it does not know', () => {
    expect(liveStatsFromFields('2026-03-02', { 'polarity:sideways': 4, other: 2, total: Number.NaN })).toEqual({
      day: '2026-03-02',
      total: 0,
      dropped: 0,
      byType: {},
      byPolarity: { positive: 0, negative: 0, neutral: 0 },
      bySeverity: {},
      bySource: {},
    });
  });

  it('adds up: per type to total, per polarity to total minus dropped', () => {
    const input: fc.Arbitrary<LiveCounterInput> = fc.record({
      type: fc.constantFrom(...FEEDBACK_EVENT_TYPES),
      polarity: fc.constantFrom('positive', 'negative', 'neutral'),
      severity: fc.constantFrom('none', 'low', 'medium', 'high'),
      status: fc.constantFrom('counted', 'dropped'),
      source: fc.constantFrom('explicit', 'implicit', 'outcome', 'review', 'judge'),
    });
    fc.assert(
      fc.property(fc.array(input, { maxLength: 40 }), (events) => {
        const deltas: CounterDeltas = {};
        for (const e of events) addCounterDeltas(deltas, 'ws', 'd', liveCounterFields(e));
        const stats = liveStatsFromFields('d', deltas.ws?.d ?? {});
        const sum = (r: Record<string, number>) => Object.values(r).reduce((s, n) => s + n, 0);
        const counted = events.filter((e) => e.status === 'counted');
        expect(stats.total).toBe(events.length);
        expect(stats.dropped).toBe(events.length - counted.length);
        expect(sum(stats.byType)).toBe(stats.total);
        // Every counted event has its source; only the users' have a polarity and a severity.
        const byUsers = counted.filter((e) => e.source !== 'review' && e.source !== 'judge');
        expect(sum(stats.bySource)).toBe(stats.total - stats.dropped);
        expect(sum(stats.byPolarity)).toBe(byUsers.length);
        expect(sum(stats.bySeverity)).toBe(byUsers.filter((e) => e.severity !== 'none').length);
      }),
    );
  });
});

describe('ratedCounterFields and ratedFromFields', () => {
  it('counts ratings by polarity and nothing else', () => {
    expect(ratedCounterFields('thumbs_up', 'positive')).toEqual(['rated:positive']);
    expect(ratedCounterFields('rating', 'negative')).toEqual(['rated:negative']);
    expect(ratedCounterFields('rating', 'neutral')).toEqual([]);
    expect(ratedCounterFields('correction', 'negative')).toEqual([]);
  });

  it('leaves a reviewer’s and a judge’s ratings out of today’s satisfaction', () => {
    expect(ratedCounterFields('thumbs_up', 'positive', 'explicit')).toEqual(['rated:positive']);
    expect(ratedCounterFields('thumbs_up', 'positive', 'judge')).toEqual([]);
    expect(ratedCounterFields('thumbs_down', 'negative', 'review')).toEqual([]);
    expect(liveCounterFields({ type: 'thumbs_up', polarity: 'positive', severity: 'none', status: 'counted', source: 'judge' })).toEqual(['total', 'type:thumbs_up', 'source:judge']);
  });

  it('reads them back, missing or broken fields as 0', () => {
    expect(ratedFromFields({ 'rated:positive': 3, total: 9 })).toEqual({ positive: 3, negative: 0 });
    expect(ratedFromFields({ 'rated:negative': Number.NaN })).toEqual({ positive: 0, negative: 0 });
  });
});
