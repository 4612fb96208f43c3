/**
 * Which items evaluators judge (issue 28): new responses as they are registered, new pairwise
 * review items as the tick finds them, and backfills a page at a time. An item is judged when its
 * evaluator's `sample` keeps it (decided per (evaluator, item) by a hash, as review rules decide,
 * so the same item is in or out every time) and its `filter` (the response list's vocabulary,
 * checked by the list's own query) matches it — for a pairwise item, both its responses. Every
 * planned call goes through `queueEvaluatorCalls`, which keeps one per (evaluator, version, item).
 */
import { sampleKeeps } from '@feedloop/core';
import type { SqlClient, SqlExecutor } from '../db/sql-client.js';
import { backfillPage, pairwiseItemsAfter, recordBackfillPage, takeRunningBackfill, type BackfillItem } from '../store/evaluator-backfills.js';
import { queueEvaluatorCalls } from '../store/evaluator-calls.js';
import { advancePairwiseCursor, enabledEvaluatorsIn, enabledPairwiseEvaluators, findEvaluator, type EvaluatorWithSecret } from '../store/evaluators.js';
import { responsesMatching } from '../store/response-list.js';
import { parseResponseFilter } from '../store/response-list-filter.js';

/** Items one tick takes per pairwise evaluator, and per backfill page. */
const PAGE = 500;

/** The items of `items` an evaluator keeps: sampled in, and matching its filter. */
async function kept(db: SqlExecutor, evaluator: EvaluatorWithSecret, items: readonly BackfillItem[]): Promise<BackfillItem[]> {
  const sampled = items.filter((i) => sampleKeeps(evaluator.id, i.itemKey, evaluator.sample));
  if (sampled.length === 0 || Object.keys(evaluator.filter).length === 0) return sampled;
  let filter;
  try {
    filter = parseResponseFilter(evaluator.filter);
  } catch {
    return []; // checked when saved; a filter the vocabulary no longer takes matches nothing
  }
  const ids = [...new Set(sampled.flatMap((i) => (i.responseBId === null ? [i.responseId] : [i.responseId, i.responseBId])))];
  const matched = new Set(await responsesMatching(db, evaluator.workspaceId, filter, ids));
  return sampled.filter((i) => matched.has(i.responseId) && (i.responseBId === null || matched.has(i.responseBId)));
}

const callsOf = (evaluator: EvaluatorWithSecret, items: readonly BackfillItem[], origin: 'new' | 'backfill', backfillId: string | null) =>
  items.map((i) => ({
    workspaceId: evaluator.workspaceId,
    evaluatorId: evaluator.id,
    version: evaluator.version,
    itemKey: i.itemKey,
    responseId: i.responseId,
    responseBId: i.responseBId,
    origin,
    backfillId,
  }));

/**
 * Queues the calls of newly registered responses for the workspace's enabled pointwise
 * evaluators. Returns the new call ids (one indexed probe when the workspace has no evaluator).
 *
 * @example
 * await planNewResponses(db, 'ws_1', ['r1', 'r2']) // [41, 42]
 */
export async function planNewResponses(db: SqlClient, workspaceId: string, responseIds: readonly string[]): Promise<number[]> {
  if (responseIds.length === 0) return [];
  const evaluators = (await enabledEvaluatorsIn(db, [workspaceId])).filter((e) => e.kind === 'pointwise');
  const ids: number[] = [];
  for (const evaluator of evaluators) {
    const items = responseIds.map((id) => ({ itemKey: id, responseId: id, responseBId: null, createdAt: new Date(0) }));
    ids.push(...(await queueEvaluatorCalls(db, callsOf(evaluator, await kept(db, evaluator, items), 'new', null))));
  }
  return ids;
}

/**
 * Queues the calls of pairwise review items added since each enabled pairwise evaluator last
 * looked, and moves its cursor past them. Returns the new call ids.
 *
 * @example
 * await planNewPairwiseItems(db) // [43]
 */
export async function planNewPairwiseItems(db: SqlClient): Promise<number[]> {
  const ids: number[] = [];
  for (const evaluator of await enabledPairwiseEvaluators(db)) {
    const items = await pairwiseItemsAfter(db, evaluator.workspaceId, evaluator.pairwiseCursor, PAGE);
    const last = items[items.length - 1];
    if (!last) continue;
    ids.push(...(await queueEvaluatorCalls(db, callsOf(evaluator, await kept(db, evaluator, items), 'new', null))));
    await advancePairwiseCursor(db, evaluator.id, last.itemKey);
  }
  return ids;
}

/**
 * Walks one page of the oldest running backfill (locked, so concurrent workers walk different
 * ones): queues its kept items' calls up to the backfill's limit and stores the cursor, in one
 * transaction. Returns the new call ids, or undefined when no backfill is running.
 *
 * @example
 * while ((await advanceBackfill(db)) !== undefined) {}
 */
export async function advanceBackfill(db: SqlClient, pageSize = PAGE): Promise<number[] | undefined> {
  return db.transaction(async (tx) => {
    const b = await takeRunningBackfill(tx);
    if (!b) return undefined;
    const evaluator = await findEvaluator(tx, b.workspaceId, b.evaluatorId);
    if (!evaluator || evaluator.version !== b.evaluatorVersion) {
      // The evaluator changed what it answers since: this backfill's version is gone; a new backfill judges the new one.
      await recordBackfillPage(tx, b.id, { cursorAt: null, cursorId: null, considered: 0, queued: 0, done: true });
      return [];
    }
    const page = await backfillPage(tx, b, evaluator.kind, pageSize);
    const room = b.maxItems - b.queued;
    const keep = (await kept(tx, evaluator, page)).slice(0, Math.max(0, room));
    const ids = await queueEvaluatorCalls(tx, callsOf(evaluator, keep, 'backfill', b.id));
    // When the limit cuts the page, the walk stops after the last item it queued.
    const full = keep.length === room && room < page.length;
    const walked = full ? page.slice(0, page.indexOf(keep[keep.length - 1] ?? page[0]!) + 1) : page;
    const last = walked[walked.length - 1];
    const done = page.length < pageSize || b.queued + ids.length >= b.maxItems || room <= 0;
    await recordBackfillPage(tx, b.id, { cursorAt: last?.createdAt ?? null, cursorId: last?.itemKey ?? null, considered: walked.length, queued: ids.length, done });
    return ids;
  });
}
