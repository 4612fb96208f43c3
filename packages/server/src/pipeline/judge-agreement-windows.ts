/**
 * The calibrations the `judge_agreement:<evaluator id>` alert rules watch (issue 28;
 * docs/alerts.md, "Judge agreement"). A calibration reads up to `CALIBRATION_MAX_UNITS` judged
 * units with their human events (the same read as `GET /v1/evaluators/:id/calibration`), far more
 * than the hourly counts of the other rules, while a judge's kappa over 30 days moves slowly. So
 * each (workspace, evaluator, window) is read at most once per {@link JUDGE_AGREEMENT_REFRESH_MS}
 * per process, and the alert ticks in between reuse it: the same hourly pace as the weight rule's
 * refresh (pipeline/judge-weights.ts). Several workers may each read it once an hour.
 */
import { DAY_MS, calibrationKindOf, calibrationPairs, isoWeekOf, judgeRuleEvaluatorId, judgeWindowKey, judgeWindowOf, judgeWindowReplay, type AlertRule, type JudgeWindow } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import { findEvaluator } from '../store/evaluators.js';
import { judgedUnits, timedJudgeAnswers } from '../store/judge-calibration-reads.js';

/** How long a judge's calibration is reused by the alert ticks. */
export const JUDGE_AGREEMENT_REFRESH_MS = 3_600_000;
/** Cached calibrations kept at most (a bound: rules removed leave theirs behind until then). */
const MAX_CACHED = 10_000;

const cache = new Map<string, { at: number; window: JudgeWindow }>();

/**
 * The calibrations of a workspace's enabled judge_agreement rules, keyed by core's
 * `judgeWindowKey`; a missing evaluator (deleted since the rule was set) has n = 0, "not enough data".
 *
 * @example
 * const judges = await judgeAgreementWindows(tx, 'ws_1', rules, now);
 * evaluateAlerts({ now, rules, buckets, registered, open, judges });
 */
export async function judgeAgreementWindows(db: SqlExecutor, workspaceId: string, rules: readonly AlertRule[], now: Date, refreshMs = JUDGE_AGREEMENT_REFRESH_MS): Promise<Map<string, JudgeWindow>> {
  const out = new Map<string, JudgeWindow>();
  for (const rule of rules) {
    const evaluatorId = judgeRuleEvaluatorId(rule);
    if (!rule.enabled || evaluatorId === undefined || rule.windowDays === undefined) continue;
    const key = judgeWindowKey(rule.windowDays, evaluatorId);
    if (out.has(key)) continue;
    const cacheKey = `${workspaceId}\u0000${key}`;
    const hit = cache.get(cacheKey);
    const age = hit === undefined ? Infinity : now.getTime() - hit.at;
    if (hit !== undefined && age >= 0 && age < refreshMs) {
      out.set(key, hit.window);
      continue;
    }
    const window = await readJudgeWindow(db, workspaceId, evaluatorId, rule.windowDays, now);
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(cacheKey, { at: now.getTime(), window });
    out.set(key, window);
  }
  return out;
}

/** One judge's n, kappa and agreement over the last `windowDays` days, as its calibration pairs them. */
async function readJudgeWindow(db: SqlExecutor, workspaceId: string, evaluatorId: string, windowDays: number, now: Date): Promise<JudgeWindow> {
  const evaluator = await findEvaluator(db, workspaceId, evaluatorId);
  if (!evaluator) return { n: 0, kappa: null, agreement: null };
  const units = await judgedUnits(db, workspaceId, evaluator.id, new Date(now.getTime() - windowDays * DAY_MS), now);
  return judgeWindowOf(
    calibrationPairs(
      units.map((u) => ({ ...u, week: isoWeekOf(u.answeredDay) })),
      calibrationKindOf(evaluator.kind, evaluator.output),
    ),
  );
}

/**
 * The judge_agreement rules' calibrations at any past hour, for the rule editor's preview
 * (`POST /v1/alert-rules/preview`): each rule's evaluator's answers over the replayed days plus
 * its window before them, read once, and core's `judgeWindowReplay` at each hour asked for. The
 * live tick reads the same window at most hourly, so an hourly replay sees what it saw, but
 * for retractions and replaced votes since (a replay has their current state only).
 *
 * @example
 * const judges = await judgeAgreementHistory(db, 'ws_1', rules, from, to);
 * previewAlerts({ rules, buckets, registered, from, to, judges });
 */
export async function judgeAgreementHistory(db: SqlExecutor, workspaceId: string, rules: readonly AlertRule[], from: Date, to: Date): Promise<(now: Date) => ReadonlyMap<string, JudgeWindow>> {
  const replays: Array<{ key: string; windowDays: number; at: (now: number, windowDays: number) => JudgeWindow }> = [];
  for (const rule of rules) {
    const evaluatorId = judgeRuleEvaluatorId(rule);
    if (!rule.enabled || evaluatorId === undefined || rule.windowDays === undefined) continue;
    const key = judgeWindowKey(rule.windowDays, evaluatorId);
    if (replays.some((r) => r.key === key)) continue;
    const evaluator = await findEvaluator(db, workspaceId, evaluatorId);
    // A missing evaluator has no window: n = 0, "not enough data", as live.
    if (!evaluator) continue;
    const answers = await timedJudgeAnswers(db, workspaceId, evaluator.id, new Date(from.getTime() - rule.windowDays * DAY_MS), to);
    replays.push({ key, windowDays: rule.windowDays, at: judgeWindowReplay(answers, calibrationKindOf(evaluator.kind, evaluator.output)) });
  }
  return (now) => new Map(replays.map((r) => [r.key, r.at(now.getTime(), r.windowDays)]));
}
