import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoWeekOf, splitIntoWeeks } from '../src/stats/week-ranges.js';

const DAY_MS = 86_400_000;
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const daysBetween = (from: string, to: string): string[] => {
  const out: string[] = [];
  for (let ms = Date.parse(`${from}T00:00:00Z`); ms <= Date.parse(`${to}T00:00:00Z`); ms += DAY_MS) out.push(dayOf(ms));
  return out;
};

describe('splitIntoWeeks', () => {
  it('splits a range into whole ISO weeks and the loose days at its ends', () => {
    // 2026-11-04 is a Wednesday, 2026-11-23 a Monday.
    expect(splitIntoWeeks('2026-11-04', '2026-11-23')).toEqual({
      weeks: ['2026-11-09', '2026-11-16'],
      days: [
        ['2026-11-04', '2026-11-08'],
        ['2026-11-23', '2026-11-23'],
      ],
    });
    expect(splitIntoWeeks('2026-11-16', '2026-11-22')).toEqual({ weeks: ['2026-11-16', '2026-11-16'], days: [] });
    expect(splitIntoWeeks('2026-11-17', '2026-11-22')).toEqual({ weeks: null, days: [['2026-11-17', '2026-11-22']] });
    expect(splitIntoWeeks('2026-11-23', '2026-11-22')).toEqual({ weeks: null, days: [] });
  });

  it('names the Monday of a day\'s ISO week', () => {
    expect(['2026-11-16', '2026-11-18', '2026-11-22', '2026-11-23'].map(isoWeekOf)).toEqual(['2026-11-16', '2026-11-16', '2026-11-16', '2026-11-23']);
    expect(isoWeekOf('2027-01-01')).toBe('2026-12-28');
  });

  it('covers every day of any range exactly once, with weeks starting on Mondays', () => {
    const base = Date.parse('2024-01-01T00:00:00Z');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1200 }), fc.integer({ min: 0, max: 120 }), (offset, length) => {
        const from = dayOf(base + offset * DAY_MS);
        const to = dayOf(base + (offset + length) * DAY_MS);
        const { weeks, days } = splitIntoWeeks(from, to);
        const covered: string[] = [];
        if (weeks !== null) {
          for (const monday of daysBetween(weeks[0], weeks[1]).filter((_, i) => i % 7 === 0)) {
            expect(new Date(`${monday}T00:00:00Z`).getUTCDay()).toBe(1);
            covered.push(...daysBetween(monday, dayOf(Date.parse(`${monday}T00:00:00Z`) + 6 * DAY_MS)));
          }
          expect(new Date(`${weeks[1]}T00:00:00Z`).getUTCDay()).toBe(1);
        }
        for (const [a, b] of days) {
          expect(a <= b).toBe(true);
          covered.push(...daysBetween(a, b));
        }
        expect(covered.sort()).toEqual(daysBetween(from, to));
      }),
    );
  });
});
