/**
 * Edit distances of corrections and edits, computed before the events join a group commit so
 * that the flush only writes: a big diff then delays its own request, not the transaction every
 * other request waits for.
 */
import { correctedPair, revisionOf } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import { loadAnswers } from '../store/response-answers.js';
import type { AnswerCache } from './answer-cache.js';
import type { DiffPool } from './diff-pool.js';
import type { FeedbackSubmission } from '../store/feedback-writer.js';

/**
 * Sets `editDistance` on every correction and edit among `items` (all of one workspace): against
 * the payload's `original`, else the response's answer (from `cache` when this process registered
 * it lately, else one query for the batch, outside any transaction). A response that does not exist gets `null` (the writer rejects the event); a diff
 * past its budget gets `null` too (see {@link DiffPool}).
 *
 * @example
 * await computeEditDistances(db, diffs, workspaceId, submissions); // submissions[i].editDistance set
 */
export async function computeEditDistances(
  db: SqlExecutor,
  diffs: DiffPool,
  workspaceId: string,
  items: FeedbackSubmission[],
  cache?: AnswerCache,
): Promise<void> {
  const texts = items.map((item) => revisionOf(item.event));
  const cached = new Map<string, string>();
  const missing: string[] = [];
  items.forEach((item, i) => {
    if (!texts[i] || texts[i].original !== undefined) return;
    const answer = cache?.get(workspaceId, item.event.responseId);
    if (answer === undefined) missing.push(item.event.responseId);
    else cached.set(item.event.responseId, answer);
  });
  const answers = missing.length === 0 ? cached : new Map([...cached, ...(await loadAnswers(db, workspaceId, missing))]);
  await Promise.all(
    items.map(async (item, i) => {
      if (!texts[i]) return;
      const pair = correctedPair(item.event, answers.get(item.event.responseId));
      item.editDistance = pair === undefined ? null : await diffs.editDistance(pair.original, pair.corrected);
    }),
  );
}
