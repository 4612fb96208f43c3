/**
 * A judge_agreement rule's window at a past instant (issue 28; the alert preview's replay): the
 * latest answer per item inside the window, held to the human events that had happened by then;
 * and a preview replaying a judge rule fires at the first hour its window breaches.
 */
import { describe, expect, it } from 'vitest';
import { alertRuleSetSchema, calibrationPairs, judgeWindowAt, judgeWindowKey, judgeWindowOf, judgeWindowReplay, previewAlerts, type TimedJudgeAnswer } from '../src/index.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-11-01T00:00:00Z');
const up = { type: 'thumbs_up', payload: {} };
const down = { type: 'thumbs_down', payload: {} };

/** A unit judged `judge` at `at`, with one user vote `human` at `votedAt`. */
const answer = (unitId: string, at: number, judge: typeof up, human: typeof up, votedAt: number): TimedJudgeAnswer => ({
  unitId,
  responseId: unitId,
  at,
  judge,
  reviews: [],
  votes: [{ ...human, at: votedAt }],
  preferences: [],
});

describe('judgeWindowAt', () => {
  const answers = [
    answer('a', T0, up, up, T0 + DAY),
    answer('b', T0, down, down, T0 + DAY),
    // b answered again later, the other way: the latest answer in the window counts.
    answer('b', T0 + 2 * DAY, up, down, T0 + DAY),
    answer('c', T0, up, down, T0 + 3 * DAY),
  ];

  it('holds the answers to the human votes that had happened by then', () => {
    // Before any vote: no pairs.
    expect(judgeWindowAt(answers, 'binary', T0 + HOUR, 30)).toEqual({ n: 0, kappa: null, agreement: null });
    // After the votes on a and b, before c's; b's second answer not yet in.
    expect(judgeWindowAt(answers, 'binary', T0 + DAY + HOUR, 30)).toMatchObject({ n: 2, kappa: 1, agreement: 1 });
    // b's later answer replaces its first; c's vote came: one agreement in three.
    expect(judgeWindowAt(answers, 'binary', T0 + 3 * DAY + HOUR, 30)).toMatchObject({ n: 3, agreement: 1 / 3 });
  });

  it('leaves out answers older than the window, and answers at or after the instant', () => {
    // A 2-day window at day 3 + 1 h: only b's second answer (day 2) is inside.
    expect(judgeWindowAt(answers, 'binary', T0 + 3 * DAY + HOUR, 2)).toMatchObject({ n: 1, agreement: 0 });
    expect(judgeWindowAt(answers, 'binary', T0, 30).n).toBe(0);
  });

  it('lets a preview fire a judge rule at the first hour its window breaches', () => {
    const { rules } = alertRuleSetSchema.parse({ rules: [{ id: 'judge', kind: 'judge_agreement', severity: 'warning', statistic: 'agreement', threshold: 0.5, minSample: 3, metric: 'judge_agreement:ev_1' }] });
    const alerts = previewAlerts({
      rules,
      buckets: [],
      registered: [],
      from: new Date(T0),
      to: new Date(T0 + 5 * DAY),
      judges: (now) => new Map([[judgeWindowKey(30, 'ev_1'), judgeWindowAt(answers, 'binary', now.getTime(), 30)]]),
    });
    // n reaches 3 at c's vote (day 3), when agreement is 1/3.
    expect(alerts).toEqual([expect.objectContaining({ ruleId: 'judge', value: 0.333, firedAt: new Date(T0 + 3 * DAY), resolvedAt: null })]);
  });

  it('gives at every hour what the calibration pairing of that hour gives (ratings, reviews, retries; a seeded sample)', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
    const events = [up, down, { type: 'rating', payload: { rating: 5 } }, { type: 'rating', payload: { rating: 1 } }, { type: 'rating', payload: { rating: 3 } }];
    const verdicts = ['approved', 'rejected', 'changes_requested'];
    const sample: TimedJudgeAnswer[] = Array.from({ length: 300 }, (_, i) => {
      const at = T0 + Math.floor(random() * 10 * DAY);
      const later = () => at + Math.floor((random() - 0.3) * 3 * DAY);
      return {
        unitId: `u${i % 200}`,
        responseId: `u${i % 200}`,
        at,
        judge: pick([up, down, { type: 'rating', payload: { rating: 4 } }]),
        reviews: random() < 0.3 ? [{ type: 'review', payload: { verdict: pick(verdicts) }, at: later() }] : [],
        votes: Array.from({ length: Math.floor(random() * 3) }, () => ({ ...pick(events), at: later() })),
        preferences: [],
      };
    });
    // The live read of an instant, written out: the latest answer per item in the window, the events by then.
    const naive = (now: number, days: number) => {
      const latest = new Map<string, TimedJudgeAnswer>();
      for (const a of [...sample].sort((x, y) => x.at - y.at)) if (a.at >= now - days * DAY && a.at < now) latest.set(a.unitId, a);
      const by = <E extends { at: number }>(list: readonly E[]) => list.filter((e) => e.at <= now);
      const units = [...latest.values()].map((a) => ({ unitId: a.unitId, responseId: a.responseId, week: '', judge: a.judge, reviews: by(a.reviews), votes: by(a.votes), preferences: [] }));
      return judgeWindowOf(calibrationPairs(units, 'binary'));
    };
    const at = judgeWindowReplay(sample, 'binary');
    let compared = 0;
    for (let now = T0; now <= T0 + 12 * DAY; now += 6 * HOUR) {
      for (const days of [1, 3, 30]) {
        const want = naive(now, days);
        const got = at(now, days);
        expect([got.n, got.agreement]).toEqual([want.n, want.agreement]);
        if (want.kappa === null) expect(got.kappa).toBeNull();
        else expect(got.kappa).toBeCloseTo(want.kappa, 12);
        compared += want.n;
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });
});
