/**
 * Splits a range of UTC days into whole ISO weeks (Monday to Sunday) and the loose days at its
 * ends, so a read over pre-aggregated weekly rows touches one row per week instead of seven.
 */

import { DAY_MS } from '../time.js';

/** An inclusive range of `YYYY-MM-DD` days. */
export type DayRange = readonly [from: string, to: string];

/** A day range as whole weeks (by their Mondays, inclusive) plus the days outside them. */
export interface WeekSplit {
  /** First and last Monday of the whole weeks inside the range; null when it holds none. */
  weeks: DayRange | null;
  /** The days before the first whole week and after the last one (each range non-empty), or the whole range when it holds no whole week. */
  days: DayRange[];
}

const dayMs = (day: string): number => Date.parse(`${day}T00:00:00Z`);
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * The whole ISO weeks inside `[from, to]` and the days left over. Both ends are `YYYY-MM-DD`
 * UTC days, inclusive; `from` after `to` is an empty range (no weeks, no days).
 *
 * @example
 * splitIntoWeeks('2026-11-04', '2026-11-23')
 * // { weeks: ['2026-11-09', '2026-11-16'], days: [['2026-11-04', '2026-11-08'], ['2026-11-23', '2026-11-23']] }
 */
export function splitIntoWeeks(from: string, to: string): WeekSplit {
  const start = dayMs(from);
  const end = dayMs(to);
  if (start > end) return { weeks: null, days: [] };
  // getUTCDay: 0 is Sunday; days until the next Monday (0 when `from` is one).
  const firstMonday = start + ((8 - new Date(start).getUTCDay()) % 7) * DAY_MS;
  // The last whole week ends on a Sunday at or before `to`.
  const lastSunday = end - (new Date(end).getUTCDay() % 7) * DAY_MS;
  const lastMonday = lastSunday - 6 * DAY_MS;
  if (lastMonday < firstMonday) return { weeks: null, days: [[from, to]] };
  const days: DayRange[] = [];
  if (firstMonday > start) days.push([from, dayOf(firstMonday - DAY_MS)]);
  if (lastSunday < end) days.push([dayOf(lastSunday + DAY_MS), to]);
  return { weeks: [dayOf(firstMonday), dayOf(lastMonday)], days };
}

/**
 * The Monday that starts `day`'s ISO week, `YYYY-MM-DD` (UTC): the key of weekly counts.
 *
 * @example
 * isoWeekOf('2026-11-22') // '2026-11-16' (a Sunday belongs to the week before)
 */
export function isoWeekOf(day: string): string {
  const ms = dayMs(day);
  return dayOf(ms - ((new Date(ms).getUTCDay() + 6) % 7) * DAY_MS);
}
