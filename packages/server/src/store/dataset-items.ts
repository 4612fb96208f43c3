/**
 * `dataset_item_changes` (issue 27, migration 0041): the items of a dataset's versions. A change
 * (responses added, or one removed) is one new version and one row per response it touched, never
 * an update: a version's items are the responses whose newest row at or before it is an `add`, so
 * every version stays readable as it was.
 *
 * An item is frozen when it is added: the response as it was (query, answer, context, model,
 * agent, variant, composite score), its expected output (core's `expectedOutputOf`) and the event
 * that decided it (what the exports build the item's rows from). Why frozen, not read live: a
 * version must give the same rows every time it is read (a training run is reproduced from its
 * dataset version), and a response's feedback keeps changing after review (a later vote, a
 * retraction, an erasure would silently change a version).
 * A response re-added after its removal is frozen anew.
 */
import { expectedOutputOf, type ExportEvent, type ExportResponse, type ExpectedSource } from '@feedloop/core';
import type { SqlClient, SqlExecutor } from '../db/sql-client.js';
import { FeedloopError } from '../errors.js';
import { appendAudit } from './audit-log.js';
import { lockDataset, recordVersion, type DatasetVersion } from './datasets.js';
import { readResponsesById, toExportEvent } from './export-reads.js';
import { readExpectedCandidates, type CandidateEventRow } from './expected-outputs.js';
import type { DatasetChangeVia } from '@feedloop/core';

/**
 * The event that decided an item's expected output (core's `expectedOutputOf`: the correction, the
 * approving review, or the newest review that did not approve), frozen as read (dates as text).
 */
type FrozenEvent = Omit<CandidateEventRow, 'response_id' | 'occurred_at'> & { occurred_at: string };

/** A response frozen as a dataset item. */
export interface FrozenItem {
  responseId: string;
  /** The normalized prompt's key (the exports' md5): items are read in its order. */
  promptKey: string;
  response: ExportResponse;
  expectedOutput: string | null;
  expectedSource: ExpectedSource | null;
  expectedEvent: FrozenEvent | null;
}

/** An item of a version, with the version it was added in. */
export interface DatasetItem extends FrozenItem {
  addedInVersion: number;
}

/** Where a page of a version's items starts: after this prompt key and response id. */
export interface ItemCursor {
  promptKey: string;
  responseId: string;
}

/** A response as stored in an item: an export response with its instant as text. */
type StoredResponse = Omit<ExportResponse, 'createdAt' | 'history'> & { createdAt: string };

interface ItemRow {
  response_id: string;
  prompt_key: string;
  version: number;
  response: StoredResponse;
  expected_output: string | null;
  expected_source: ExpectedSource | null;
  expected_event: FrozenEvent | null;
}

/**
 * Freezes responses as dataset items: each complete response of `ids` in this workspace with its
 * expected output. Ids the workspace has no (complete) response of are left out.
 *
 * @example
 * const items = await snapshotItems(db, 'ws-1', ['r-1', 'r-2']); // r-2 unknown: one item
 */
export async function snapshotItems(db: SqlExecutor, workspaceId: string, ids: readonly string[]): Promise<FrozenItem[]> {
  const responses = await readResponsesById(db, workspaceId, ids, { complete: true });
  const events = await readExpectedCandidates(
    db,
    workspaceId,
    responses.map((r) => r.response.id),
  );
  const byResponse = new Map<string, CandidateEventRow[]>();
  for (const e of events) byResponse.set(e.response_id, [...(byResponse.get(e.response_id) ?? []), e]);
  return responses.map(({ key, response }) => {
    const candidates = byResponse.get(response.id) ?? [];
    const expected = expectedOutputOf(
      response.answer,
      candidates.map((e) => ({ id: e.id, type: e.type, source: e.source, payload: e.payload, occurredAt: e.occurred_at })),
    );
    const event = candidates.find((e) => e.id === expected.eventId);
    const { history: _history, ...frozen } = response;
    return {
      responseId: response.id,
      promptKey: key,
      response: frozen,
      expectedOutput: expected.expectedOutput,
      expectedSource: expected.expectedSource,
      expectedEvent: event ? freezeEvent(event) : null,
    };
  });
}

function freezeEvent(e: CandidateEventRow): FrozenEvent {
  const { response_id: _response, occurred_at, ...rest } = e;
  return { ...rest, occurred_at: occurred_at.toISOString() };
}

/**
 * The responses of `ids` that are items of the dataset's latest version.
 *
 * @example
 * await currentMembers(db, 'ws-1', 'ds_…', ['r-1', 'r-2']) // Set { 'r-1' }
 */
export async function currentMembers(db: SqlExecutor, workspaceId: string, datasetId: string, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  // Each response's newest row (the primary key's order): a member when it is an add.
  const rows = await db.query<{ response_id: string; op: string; prompt_key: string }>(
    `SELECT DISTINCT ON (response_id) response_id, op, prompt_key FROM dataset_item_changes
      WHERE workspace_id = $1 AND dataset_id = $2 AND response_id = ANY ($3::text[])
      ORDER BY response_id, version DESC`,
    [workspaceId, datasetId, [...new Set(ids)]],
  );
  return new Map(rows.filter((r) => r.op === 'add').map((r) => [r.response_id, r.prompt_key]));
}

/** What a change did: the version it made (none when nothing changed) and each response's fate. */
export interface DatasetChangeResult {
  version: DatasetVersion | null;
  added: string[];
  /** Asked to be added, but already an item of the latest version (a response is in once). */
  alreadyIn: string[];
  removed: string[];
  /** Asked to be removed, but not an item of the latest version. */
  notIn: string[];
}

/**
 * Adds frozen items to a dataset, or removes responses from it, as one new version (none when
 * nothing changes), logged in the audit log. The dataset's row is locked for the change, so
 * concurrent changes make consecutive versions and a response is never in twice.
 *
 * @throws FeedloopError `FEEDLOOP_ERR_DATASET_NOT_FOUND`.
 * @example
 * await changeDatasetItems(db, 'ws-1', 'ds_…', { via: 'responseIds', add: items, remove: [], queueId: null, actorKeyId })
 */
export async function changeDatasetItems(
  db: SqlClient,
  workspaceId: string,
  datasetId: string,
  change: { via: DatasetChangeVia; add: readonly FrozenItem[]; remove: readonly string[]; queueId: string | null; actorKeyId: string | null },
): Promise<DatasetChangeResult> {
  return db.transaction(async (tx) => {
    const dataset = await lockDataset(tx, workspaceId, datasetId);
    const members = await currentMembers(tx, workspaceId, datasetId, [...change.add.map((i) => i.responseId), ...change.remove]);
    const seen = new Set<string>();
    const add = change.add.filter((i) => !members.has(i.responseId) && !seen.has(i.responseId) && seen.add(i.responseId));
    const alreadyIn = change.add.filter((i) => members.has(i.responseId)).map((i) => i.responseId);
    const remove = [...new Set(change.remove)].filter((id) => members.has(id));
    const notIn = [...new Set(change.remove)].filter((id) => !members.has(id));
    const result = { added: add.map((i) => i.responseId), alreadyIn, removed: remove, notIn };
    if (add.length + remove.length === 0) return { version: null, ...result };
    const version = dataset.latestVersion + 1;
    const rows = [
      ...add.map((i) => ({
        response_id: i.responseId,
        op: 'add',
        prompt_key: i.promptKey,
        response: { ...i.response, createdAt: i.response.createdAt.toISOString() },
        expected_output: i.expectedOutput,
        expected_source: i.expectedSource,
        expected_event: i.expectedEvent,
      })),
      ...remove.map((id) => ({ response_id: id, op: 'remove', prompt_key: members.get(id), response: null, expected_output: null, expected_source: null, expected_event: null })),
    ];
    await tx.query(
      `INSERT INTO dataset_item_changes (workspace_id, dataset_id, response_id, version, op, prompt_key, response, expected_output, expected_source, expected_event)
       SELECT $1, $2, x.response_id, $3, x.op, x.prompt_key, x.response, x.expected_output, x.expected_source, x.expected_event
         FROM jsonb_to_recordset($4::jsonb) AS x (response_id text, op text, prompt_key text, response jsonb, expected_output text, expected_source text, expected_event jsonb)`,
      [workspaceId, datasetId, version, JSON.stringify(rows)],
    );
    const made = await recordVersion(tx, workspaceId, dataset, { via: change.via, added: add.length, removed: remove.length, queueId: change.queueId, actorKeyId: change.actorKeyId });
    await appendAudit(tx, {
      workspaceId,
      action: 'dataset.changed',
      actorKeyId: change.actorKeyId,
      subject: datasetId,
      details: {
        version: made.version,
        via: change.via,
        added: add.length,
        removed: remove.length,
        ...(change.queueId === null ? {} : { queueId: change.queueId }),
        // The ids themselves when few (a removal, a queue's item): the log says which.
        ...(add.length + remove.length <= 10 ? { responseIds: [...result.added, ...remove] } : {}),
      },
    });
    return { version: made, ...result };
  });
}

/**
 * A page of a version's items in (normalized prompt, response id) order after `after`: the
 * responses whose newest change at or before `version` is an add.
 *
 * @example
 * const page = await readVersionItems(db, 'ws-1', 'ds_…', 3, undefined, 100);
 */
export async function readVersionItems(
  db: SqlExecutor,
  workspaceId: string,
  datasetId: string,
  version: number,
  after: ItemCursor | undefined,
  limit: number,
): Promise<DatasetItem[]> {
  // One walk of dataset_item_changes_page: each response's newest row at or before the version
  // (DISTINCT ON over the index order), the removed ones filtered out, stopped at the limit.
  const rows = await db.query<ItemRow>(
    `SELECT x.response_id, x.prompt_key, x.version, x.response, x.expected_output, x.expected_source, x.expected_event FROM (
       SELECT DISTINCT ON (c.prompt_key, c.response_id) c.response_id, c.prompt_key, c.version, c.op, c.response, c.expected_output,
              c.expected_source, c.expected_event
         FROM dataset_item_changes c
        WHERE c.workspace_id = $1 AND c.dataset_id = $2 AND c.version <= $3 AND (c.prompt_key, c.response_id) > ($4::text, $5::text)
        ORDER BY c.prompt_key, c.response_id, c.version DESC
     ) x
     WHERE x.op = 'add'
     LIMIT $6`,
    [workspaceId, datasetId, version, after?.promptKey ?? '', after?.responseId ?? '', limit],
  );
  return rows.map((r) => ({
    responseId: r.response_id,
    promptKey: r.prompt_key,
    addedInVersion: r.version,
    response: { ...r.response, createdAt: new Date(r.response.createdAt) },
    expectedOutput: r.expected_output,
    expectedSource: r.expected_source,
    expectedEvent: r.expected_event,
  }));
}

/**
 * The event of a frozen item as the export builders take it (its learning signal expanded
 * against the frozen response).
 *
 * @example
 * const record = { response: item.response, events: itemEvents(item) };
 */
export function itemEvents(item: FrozenItem): ExportEvent[] {
  const e = item.expectedEvent;
  if (!e) return [];
  return [toExportEvent({ ...e, response_id: item.responseId, occurred_at: new Date(e.occurred_at), premise_text: null, hypothesis_text: null }, item.response)];
}

/** Encodes a page position; opaque to clients. */
export function encodeItemCursor(c: ItemCursor): string {
  return Buffer.from(JSON.stringify([c.promptKey, c.responseId])).toString('base64url');
}

/** Decodes a page position; `undefined` when it is not one of ours. */
export function decodeItemCursor(cursor: string): ItemCursor | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    if (!Array.isArray(v) || v.length !== 2 || typeof v[0] !== 'string' || typeof v[1] !== 'string') return undefined;
    return { promptKey: v[0], responseId: v[1] };
  } catch {
    return undefined;
  }
}

/** Thrown for a removal of a response that is not an item of the latest version. */
export const itemNotFound = (datasetId: string, responseId: string): FeedloopError =>
  new FeedloopError('FEEDLOOP_ERR_DATASET_ITEM_NOT_FOUND', `responseId: ${JSON.stringify(responseId)} is not an item of dataset ${JSON.stringify(datasetId)}`, {
    field: 'responseId',
  });
