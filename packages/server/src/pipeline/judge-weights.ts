/**
 * The weight rule of judges (issue 28; docs/evaluators.md, "Weight"), kept on each evaluator: its
 * Cohen's kappa against the human labels over the last 30 days and its n (the calibration's own
 * pairs), and the factor core's `judgeWeightFactor` makes of them. The evaluators tick refreshes
 * each evaluator about hourly; when the factor changes, the responses it answered are marked for
 * a rescore, so composite scores follow.
 */
import { DAY_MS, JUDGE_WEIGHT_RULE, calibrationKindOf, calibrationPairs, cohenKappa, isoWeekOf, judgeWeightFactor } from '@feedloop/core';
import type { SqlClient } from '../db/sql-client.js';
import { markJudgedResponsesDirty } from '../store/evaluator-calls.js';
import { evaluatorsDueForWeight, recordJudgeWeight } from '../store/evaluators.js';
import { judgedUnits } from '../store/judge-calibration-reads.js';

/** How often an evaluator's weight is checked again. */
export const JUDGE_WEIGHT_CHECK_MS = 3_600_000;
/** Evaluators checked per tick at most. */
const CHECKS_PER_TICK = 20;

/**
 * Checks the weight of the evaluators due for it (all of them with `force`); returns how many
 * changed their factor.
 *
 * @example
 * await refreshJudgeWeights(db) // 1
 */
export async function refreshJudgeWeights(db: SqlClient, options: { now?: Date; force?: boolean } = {}): Promise<number> {
  const now = options.now ?? new Date();
  const due = await evaluatorsDueForWeight(db, options.force ? new Date(now.getTime() + 1) : new Date(now.getTime() - JUDGE_WEIGHT_CHECK_MS), CHECKS_PER_TICK);
  let changed = 0;
  for (const evaluator of due) {
    const units = await judgedUnits(db, evaluator.workspaceId, evaluator.id, new Date(now.getTime() - JUDGE_WEIGHT_RULE.windowDays * DAY_MS), now);
    const pairs = calibrationPairs(
      units.map((u) => ({ ...u, week: isoWeekOf(u.answeredDay) })),
      calibrationKindOf(evaluator.kind, evaluator.output),
    );
    const kappa = pairs.length === 0 ? null : cohenKappa(pairs.map((p) => [p.judge, p.human] as const));
    const factor = judgeWeightFactor(kappa, pairs.length);
    const before = await recordJudgeWeight(db, evaluator.id, { factor, kappa, n: pairs.length, checkedAt: now });
    if (before !== factor) {
      await markJudgedResponsesDirty(db, evaluator.id);
      changed++;
    }
  }
  return changed;
}
