/**
 * The `evaluators` job (issue 28): queues the calls of new pairwise items and backfill pages,
 * refreshes the judges' weights, then sends due calls (retries included) in rounds until none is
 * due or the tick's limit is reached. The pipeline runs it; emit's work does the calling.
 */
import type { SqlClient } from '../db/sql-client.js';
import { refreshJudgeWeights } from './judge-weights.js';
import type { EvaluatorWork } from './pipeline-deps.js';

/** Evaluator calls one tick sends at most (the budgets per minute bound them further). */
const EVALUATOR_TICK_LIMIT = 1_000;
const EVALUATOR_DISPATCH_BATCH = 100;

/**
 * Runs one tick of the evaluators' work; without work (tests of other parts), nothing.
 * `rescoreSoon` is called when a judge's weight factor changed (its responses are marked).
 *
 * @example
 * await runEvaluatorTick(db, work, () => queue.add('rescore', {})) // { planned: 2, claimed: 40 }
 */
export async function runEvaluatorTick(db: SqlClient, work: EvaluatorWork | undefined, rescoreSoon: () => Promise<unknown>): Promise<{ planned: number; claimed: number }> {
  if (!work) return { planned: 0, claimed: 0 };
  const planned = (await work.planPending()).length;
  // Hourly per evaluator; a changed factor marks its responses for the rescore below the schedule's.
  if ((await refreshJudgeWeights(db)) > 0) await rescoreSoon();
  let claimed = 0;
  while (claimed < EVALUATOR_TICK_LIMIT) {
    const n = await work.dispatch({ limit: EVALUATOR_DISPATCH_BATCH });
    claimed += n;
    if (n < EVALUATOR_DISPATCH_BATCH) break;
  }
  return { planned, claimed };
}
