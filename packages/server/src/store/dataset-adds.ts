/**
 * The three ways responses enter a dataset (issue 27): by ids (each judged alone), by a filter of
 * the response list (every response matching now, up to `MAX_DATASET_FILTER_ITEMS` a request), and
 * by a review queue whose review completes an item (only items with an expected output). Each
 * freezes the responses (store/dataset-items.ts) and makes one version.
 */
import { MAX_DATASET_FILTER_ITEMS, type ErrorBody } from '@feedloop/core';
import type { SqlClient, SqlExecutor } from '../db/sql-client.js';
import type { DatasetVersion } from './datasets.js';
import { changeDatasetItems, currentMembers, snapshotItems, type FrozenItem } from './dataset-items.js';
import { listResponses, type ResponseListFilter } from './response-list.js';

/** Responses frozen a statement at most (the ids of a `ANY($2)` and its events). */
const SNAPSHOT_CHUNK = 1_000;
/** Responses the filter's walk reads a page. */
const WALK_PAGE = 500;

/** One id's fate in a `responseIds` request. */
export type IdOutcome =
  | { responseId: string; status: 'added' | 'duplicate' }
  | { responseId: string | null; status: 'rejected'; error: ErrorBody };

/** Freezes responses a chunk at a time. */
async function snapshotAll(db: SqlExecutor, workspaceId: string, ids: readonly string[]): Promise<FrozenItem[]> {
  const items: FrozenItem[] = [];
  for (let i = 0; i < ids.length; i += SNAPSHOT_CHUNK) items.push(...(await snapshotItems(db, workspaceId, ids.slice(i, i + SNAPSHOT_CHUNK))));
  return items;
}

/**
 * Adds responses by id, each judged alone: `added`, `duplicate` (already an item, or named twice
 * in the request), or `rejected` (no such complete response in this workspace). `checked`: the
 * ids as validated, a bad one already carrying its error. One version for all that were added.
 *
 * @example
 * await addResponseIds(db, 'ws-1', 'ds_…', [{ ok: true, value: 'r-1' }], keyId)
 * // { version: { version: 1, … }, results: [{ responseId: 'r-1', status: 'added' }] }
 */
export async function addResponseIds(
  db: SqlClient,
  workspaceId: string,
  datasetId: string,
  checked: ReadonlyArray<{ ok: true; value: string } | { ok: false; error: ErrorBody; raw: unknown }>,
  actorKeyId: string | null,
): Promise<{ version: DatasetVersion | null; results: IdOutcome[] }> {
  const ids = checked.flatMap((c) => (c.ok ? [c.value] : []));
  const items = await snapshotAll(db, workspaceId, [...new Set(ids)]);
  const change = await changeDatasetItems(db, workspaceId, datasetId, { via: 'responseIds', add: items, remove: [], queueId: null, actorKeyId });
  const found = new Set(items.map((i) => i.responseId));
  const added = new Set(change.added);
  const answered = new Set<string>();
  const results = checked.map((c, i): IdOutcome => {
    if (!c.ok) return { responseId: typeof c.raw === 'string' ? c.raw : null, status: 'rejected', error: c.error };
    const id = c.value;
    if (!found.has(id)) {
      return {
        responseId: id,
        status: 'rejected',
        error: { code: 'FEEDLOOP_ERR_RESPONSE_NOT_FOUND', message: `responseIds[${i}]: no response ${JSON.stringify(id)} in this workspace`, field: `responseIds[${i}]` },
      };
    }
    const first = !answered.has(id);
    answered.add(id);
    return { responseId: id, status: first && added.has(id) ? 'added' : 'duplicate' };
  });
  return { version: change.version, results };
}

/**
 * Adds every response matching `filter` now (the response list's walk, newest first) that is not
 * an item yet, up to `cap`: one version. `truncated`: more matched; the same request again adds
 * the next ones (those in are skipped).
 *
 * @example
 * await addFilteredResponses(db, 'ws-1', 'ds_…', { rating: 'negative', agent: 'sql' }, keyId)
 * // { version: { version: 2, … }, added: 130, alreadyIn: 12, truncated: false }
 */
export async function addFilteredResponses(
  db: SqlClient,
  workspaceId: string,
  datasetId: string,
  filter: ResponseListFilter,
  actorKeyId: string | null,
  cap = MAX_DATASET_FILTER_ITEMS,
): Promise<{ version: DatasetVersion | null; added: number; alreadyIn: number; truncated: boolean }> {
  const fresh: string[] = [];
  let alreadyIn = 0;
  let truncated = false;
  let after: { createdAt: Date; id: string } | undefined;
  walk: for (;;) {
    const page = await listResponses(db, workspaceId, filter, after, WALK_PAGE);
    const members = await currentMembers(
      db,
      workspaceId,
      datasetId,
      page.data.map((r) => r.id),
    );
    for (const r of page.data) {
      if (members.has(r.id)) alreadyIn++;
      else if (fresh.length === cap) {
        truncated = true;
        break walk;
      } else fresh.push(r.id);
    }
    const last = page.data.at(-1);
    if (page.nextCursor === null || !last) break;
    after = { createdAt: new Date(last.createdAt), id: last.id };
  }
  const items = await snapshotAll(db, workspaceId, fresh);
  const change = await changeDatasetItems(db, workspaceId, datasetId, { via: 'filter', add: items, remove: [], queueId: null, actorKeyId });
  return { version: change.version, added: change.added.length, alreadyIn: alreadyIn + change.alreadyIn.length, truncated };
}

/**
 * The review queue hook (issue 27): a queue with a dataset adds the responses of the items a
 * review completed, when they have an expected output now (a correction, or an approving review);
 * the others are left out (a rejected answer with no correction is no training target). One
 * version when any is added; none otherwise. `datasetId` is checked to exist when the queue is
 * made or changed (datasets are never deleted).
 *
 * @example
 * await addReviewedResponses(db, 'ws-1', 'ds_…', ['r-1'], 'rq_…') // { added: ['r-1'], skipped: [] }
 */
export async function addReviewedResponses(
  db: SqlClient,
  workspaceId: string,
  datasetId: string,
  responseIds: readonly string[],
  queueId: string,
): Promise<{ added: string[]; skipped: string[] }> {
  const items = await snapshotAll(db, workspaceId, [...new Set(responseIds)]);
  const withExpected = items.filter((i) => i.expectedSource !== null);
  const skipped = responseIds.filter((id) => !withExpected.some((i) => i.responseId === id));
  if (withExpected.length === 0) return { added: [], skipped };
  const change = await changeDatasetItems(db, workspaceId, datasetId, { via: 'queue', add: withExpected, remove: [], queueId, actorKeyId: null });
  return { added: change.added, skipped };
}
