/**
 * A judge_agreement rule's window (issue 28; docs/alerts.md, "Judge agreement"): n, Cohen's kappa
 * and the agreement share of a judge's calibration pairs, as the live alert tick computes them,
 * and the same window at a past instant for the rule editor's preview, replayed from the judge's
 * answers and the humans' events with their times. Pure: the server reads the rows.
 *
 * @module
 */
import { cohenKappa } from '../agreement/cohen-kappa.js';
import type { CalibrationKind, CalibrationPair } from '../agreement/judge-calibration.js';
import { calibrationPairs, type JudgedUnit, type LabelEvent } from '../evaluators/calibration-labels.js';
import { DAY_MS } from '../time.js';
import type { JudgeWindow } from './evaluate-alerts.js';

/**
 * The window of a set of calibration pairs: n, kappa (null with no pairs, or one label on both
 * sides) and the share where judge and humans agree.
 *
 * @example
 * judgeWindowOf([{ judge: 'positive', human: 'positive', ... }]) // { n: 1, kappa: null, agreement: 1 }
 */
export function judgeWindowOf(pairs: readonly CalibrationPair[]): JudgeWindow {
  if (pairs.length === 0) return { n: 0, kappa: null, agreement: null };
  const agreeing = pairs.filter((p) => p.judge === p.human).length;
  return { n: pairs.length, kappa: cohenKappa(pairs.map((p) => [p.judge, p.human] as const)), agreement: agreeing / pairs.length };
}

/** A human event with the instant it happened (ms since the epoch). */
export interface TimedLabelEvent extends LabelEvent {
  at: number;
}

/** One answer of a judge (an item may have several: versions, retries) with its instant and the humans' events on its unit. */
export interface TimedJudgeAnswer extends Omit<JudgedUnit, 'week' | 'reviews' | 'votes' | 'preferences'> {
  /** When the answer came in (the call's completion, ms since the epoch). */
  at: number;
  reviews: readonly TimedLabelEvent[];
  votes: readonly TimedLabelEvent[];
  preferences: readonly TimedLabelEvent[];
}

/**
 * The window a judge_agreement rule would have seen at `now`: the latest answer per item that came
 * in during the `windowDays` days before `now`, each held to the human events that had happened
 * by then. The live tick reads the same answers with the humans' events as they are at that
 * moment; a replay cannot know which of today's events were retracted or replaced later, so it
 * takes their current state (docs/alerts.md).
 *
 * @example
 * judgeWindowAt(answers, 'binary', Date.parse('2026-11-20T10:00Z'), 30) // { n: 57, kappa: 0.41, agreement: 0.72 }
 */
export function judgeWindowAt(answers: readonly TimedJudgeAnswer[], kind: CalibrationKind, now: number, windowDays: number): JudgeWindow {
  const from = now - windowDays * DAY_MS;
  const latest = new Map<string, TimedJudgeAnswer>();
  for (const a of answers) {
    if (a.at < from || a.at >= now) continue;
    const held = latest.get(a.unitId);
    if (held === undefined || a.at > held.at) latest.set(a.unitId, a);
  }
  const before = (events: readonly TimedLabelEvent[]) => events.filter((e) => e.at <= now);
  const units: JudgedUnit[] = [...latest.values()].map((a) => ({
    unitId: a.unitId,
    responseId: a.responseId,
    week: '',
    judge: a.judge,
    ...(a.pair ? { pair: a.pair } : {}),
    reviews: before(a.reviews),
    votes: before(a.votes),
    preferences: before(a.preferences),
  }));
  return judgeWindowOf(calibrationPairs(units, kind));
}
