/**
 * Review queue rules in the pipeline (issue 27): when processing (or a rescore) changes what a
 * response is, the single queues whose rules it now matches get it as an item, once. A rule's
 * filter is the response list's, checked by the list's own query among these responses
 * (store/response-list.ts), so a rule means what the Responses page shows for it; its `sample` is
 * decided per (queue, response) by a hash, so a response is in or out the same way every time.
 *
 * Cost: one indexed probe per transaction for the workspaces it touched; a workspace with no rule
 * stops there. Rules are checked set-based: one list query per rule over the batch's responses.
 */
import { sampleKeeps } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import { responsesMatching } from '../store/response-list.js';
import { parseResponseFilter } from '../store/response-list-filter.js';
import { addReviewItems } from '../store/review-items.js';
import { queuesWithRulesIn } from '../store/review-queues.js';

/**
 * Adds the responses that match a queue's rule to that queue (a response once per queue).
 * `touched`: the responses the transaction changed. Returns how many items it added.
 *
 * @example
 * await addRuleMatches(tx, [{ workspaceId: 'ws_1', responseId: 'r1' }]) // 1
 */
export async function addRuleMatches(tx: SqlExecutor, touched: ReadonlyArray<{ workspaceId: string; responseId: string }>): Promise<number> {
  if (touched.length === 0) return 0;
  const byWorkspace = new Map<string, Set<string>>();
  for (const t of touched) {
    let ids = byWorkspace.get(t.workspaceId);
    if (!ids) byWorkspace.set(t.workspaceId, (ids = new Set()));
    ids.add(t.responseId);
  }
  const queues = await queuesWithRulesIn(tx, [...byWorkspace.keys()]);
  let added = 0;
  for (const queue of queues) {
    const ids = [...(byWorkspace.get(queue.workspaceId) ?? [])];
    const matched = new Set<string>();
    for (const rule of queue.rules) {
      const candidates = ids.filter((id) => !matched.has(id) && sampleKeeps(queue.id, id, rule.sample));
      if (candidates.length === 0) continue;
      let filter;
      try {
        filter = parseResponseFilter(rule.filter);
      } catch {
        continue; // checked when the rule was saved; a rule the vocabulary no longer takes matches nothing
      }
      for (const id of await responsesMatching(tx, queue.workspaceId, filter, candidates)) matched.add(id);
    }
    if (matched.size === 0) continue;
    const statuses = await addReviewItems(tx, queue.workspaceId, queue.id, [...matched].sort().map((id) => [id] as const), 'rule');
    added += statuses.filter((s) => s === 'added').length;
  }
  return added;
}
