/**
 * A judge_agreement rule's window (issue 28; docs/alerts.md, "Judge agreement"): n, Cohen's kappa
 * and the agreement share of a judge's calibration pairs, as the live alert tick computes them,
 * and the same window at a past instant for the rule editor's preview, replayed from the judge's
 * answers and the humans' events with their times. Pure: the server reads the rows.
 *
 * @module
 */
import type { Category } from '../agreement/categories.js';
import { cohenKappa, kappaOfTable } from '../agreement/cohen-kappa.js';
import type { CalibrationKind, CalibrationPair } from '../agreement/judge-calibration.js';
import { calibrationPairs, judgeLabel, type JudgedUnit, type LabelEvent } from '../evaluators/calibration-labels.js';
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
 * takes their current state (docs/alerts.md). For many instants, {@link judgeWindowReplay}.
 *
 * @example
 * judgeWindowAt(answers, 'binary', Date.parse('2026-11-20T10:00Z'), 30) // { n: 57, kappa: 0.41, agreement: 0.72 }
 */
export function judgeWindowAt(answers: readonly TimedJudgeAnswer[], kind: CalibrationKind, now: number, windowDays: number): JudgeWindow {
  return judgeWindowReplay(answers, kind)(now, windowDays);
}

/** An answer made ready for many instants: its judge label, and its human label after each human event. */
interface Prepared {
  unitId: string;
  at: number;
  judge: Category;
  /** Instants (ascending) at which the human label became `labels[i]` (null: none yet, or no majority). */
  times: number[];
  labels: Array<Category | null>;
}

/**
 * {@link judgeWindowAt} for many instants over the same answers (the preview's every hour): each
 * answer's judge label, and its human label after each of its human events, are worked out once
 * (with the calibration's own pairing, `calibrationPairs`), so an instant costs one pass over the
 * answers in its window, tallied into the contingency table Cohen's kappa is computed from.
 *
 * @example
 * const at = judgeWindowReplay(answers, 'binary');
 * at(Date.parse('2026-11-20T10:00Z'), 30) // { n: 57, kappa: 0.41, agreement: 0.72 }
 */
export function judgeWindowReplay(answers: readonly TimedJudgeAnswer[], kind: CalibrationKind): (now: number, windowDays: number) => JudgeWindow {
  const prepared = answers.flatMap((a) => prepare(a, kind)).sort((x, y) => x.at - y.at);
  const ats = prepared.map((p) => p.at);
  // One table for every instant: a category no pair of an instant uses adds nothing to its kappa.
  const index = new Map<Category, number>();
  for (const p of prepared) for (const c of [p.judge, ...p.labels]) if (c !== null && !index.has(c)) index.set(c, index.size);
  const k = index.size;
  const table = new Float64Array(Math.max(1, k * k));
  // Items and labels as numbers, so an instant's pass is over typed arrays (721 instants × 10,000s of answers).
  const units = new Map<string, number>();
  const unitOf = Int32Array.from(prepared, (p) => units.get(p.unitId) ?? units.set(p.unitId, units.size).size - 1);
  const judgeOf = Int32Array.from(prepared, (p) => index.get(p.judge) as number);
  const humanOf = prepared.map((p) => p.labels.map((l) => (l === null ? -1 : (index.get(l) as number))));
  const latest = new Int32Array(units.size);
  return (now, windowDays) => {
    const start = lowerBound(ats, now - windowDays * DAY_MS);
    const end = lowerBound(ats, now);
    // Ascending by instant: a later answer of the same item replaces an earlier one.
    for (let i = start; i < end; i++) latest[unitOf[i] as number] = i;
    table.fill(0);
    let n = 0;
    let agreeing = 0;
    for (let i = start; i < end; i++) {
      if (latest[unitOf[i] as number] !== i) continue;
      const times = (prepared[i] as Prepared).times;
      let at = times.length - 1;
      while (at >= 0 && (times[at] as number) > now) at--;
      const column = at < 0 ? -1 : ((humanOf[i] as number[])[at] as number);
      if (column < 0) continue;
      const row = judgeOf[i] as number;
      table[row * k + column] = (table[row * k + column] as number) + 1;
      n++;
      if (row === column) agreeing++;
    }
    return n === 0 ? { n: 0, kappa: null, agreement: null } : { n, kappa: kappaOfTable(table, k), agreement: agreeing / n };
  };
}

/** One answer's labels over time; none when the judge's answer has no label (it never pairs). */
function prepare(a: TimedJudgeAnswer, kind: CalibrationKind): Prepared[] {
  const judge = judgeLabel(a.judge, kind, a.pair);
  if (judge === null) return [];
  const times = [...new Set([...a.reviews, ...a.votes, ...a.preferences].map((e) => e.at))].sort((x, y) => x - y);
  const by = (t: number, list: readonly TimedLabelEvent[]) => list.filter((e) => e.at <= t);
  // The human label after each instant an event happened, paired as the calibration pairs it.
  const labels = times.map(
    (t) =>
      calibrationPairs(
        [{ unitId: a.unitId, responseId: a.responseId, week: '', judge: a.judge, ...(a.pair ? { pair: a.pair } : {}), reviews: by(t, a.reviews), votes: by(t, a.votes), preferences: by(t, a.preferences) }],
        kind,
      )[0]?.human ?? null,
  );
  return [{ unitId: a.unitId, at: a.at, judge, times, labels }];
}

/** The first index whose value is at least `x` (values ascending). */
function lowerBound(values: readonly number[], x: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((values[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
