/**
 * The evaluators' work bound together for the pipeline (issue 28): planning (which items get
 * calls) and dispatch (sending them), with the deployment's address policy and the ingest path
 * that writes the answers. The composition root makes it; the pipeline's jobs run it.
 */
import type { SqlClient } from '../db/sql-client.js';
import { dispatchEvaluatorCalls, type DispatchOptions, type DispatchReport, type JudgeEventSubmitter } from './evaluator-dispatch.js';
import { advanceBackfill, planNewPairwiseItems, planNewResponses } from './evaluator-planning.js';

/** Backfill pages one tick walks at most: the tick also sends, and a page is up to 500 items. */
const BACKFILL_PAGES_PER_TICK = 10;
/** Calls of a given list sent per dispatch round (the dispatcher's default claim). */
const IDS_PER_ROUND = 100;

/** What the evaluators' work is built from. */
export interface EvaluatorWorkOptions extends Omit<DispatchOptions, 'submit' | 'ids' | 'limit'> {
  submit: JudgeEventSubmitter;
}

/**
 * The evaluators' work (the pipeline's `EvaluatorWork`).
 *
 * @example
 * const evaluators = evaluatorWork(db, { submit, allowPrivate: config.webhookAllowPrivate });
 * await evaluators.dispatch({ limit: 100 });
 */
export function evaluatorWork(db: SqlClient, options: EvaluatorWorkOptions) {
  return {
    planNewResponses: (workspaceId: string, responseIds: readonly string[]) => planNewResponses(db, workspaceId, responseIds),
    async planPending(): Promise<number[]> {
      const ids = await planNewPairwiseItems(db);
      for (let page = 0; page < BACKFILL_PAGES_PER_TICK; page++) {
        const more = await advanceBackfill(db);
        if (more === undefined) break;
        ids.push(...more);
      }
      return ids;
    },
    /**
     * Sends the given calls (all of them, a round of {@link IDS_PER_ROUND} at a time: a batch of
     * new responses larger than one claim is not left to the next tick), or up to `limit` due ones.
     */
    async dispatch(selection: { ids: readonly number[] } | { limit: number }): Promise<number> {
      const count = (r: DispatchReport): number => r.done + r.retried + r.dead;
      if (!('ids' in selection)) return count(await dispatchEvaluatorCalls(db, { ...options, limit: selection.limit }));
      let sent = 0;
      for (let i = 0; i < selection.ids.length; i += IDS_PER_ROUND) {
        sent += count(await dispatchEvaluatorCalls(db, { ...options, ids: selection.ids.slice(i, i + IDS_PER_ROUND), limit: IDS_PER_ROUND }));
      }
      return sent;
    },
  };
}
