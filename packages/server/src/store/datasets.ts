/**
 * `datasets` and `dataset_versions` (issue 27, migration 0041): a workspace's named datasets and
 * the history of each, a version per change. The items of a version are in
 * `store/dataset-items.ts`; a change of items (and its version) is made there.
 */
import type { DatasetChangeVia, DatasetInput } from '@feedloop/core';
import { v7 as uuidv7 } from 'uuid';
import type { SqlClient, SqlExecutor } from '../db/sql-client.js';
import { FeedloopError } from '../errors.js';
import { appendAudit } from './audit-log.js';

/** The prefix of a dataset id. */
export const DATASET_ID_PREFIX = 'ds_';

/** A dataset as listings serve it. */
export interface Dataset {
  id: string;
  name: string;
  description: string;
  /** The newest version's number; 0 before the first change (no items). */
  latestVersion: number;
  /** Items of the latest version. */
  itemCount: number;
  createdAt: Date;
}

/** One version: when it was made, what changed, and the items it holds. */
export interface DatasetVersion {
  version: number;
  createdAt: Date;
  via: DatasetChangeVia;
  added: number;
  removed: number;
  itemCount: number;
  /** The review queue whose reviews made it (`via: 'queue'`). */
  queueId: string | null;
  /** The key that made the change; null for a queue's. */
  actorKeyId: string | null;
}

interface DatasetRow {
  id: string;
  name: string;
  description: string;
  latest_version: number;
  item_count: number;
  created_at: Date;
}

interface VersionRow {
  version: number;
  created_at: Date;
  via: DatasetChangeVia;
  added: number;
  removed: number;
  item_count: number;
  queue_id: string | null;
  actor_key_id: string | null;
}

const COLUMNS = 'id, name, description, latest_version, item_count, created_at';

const toDataset = (r: DatasetRow): Dataset => ({
  id: r.id,
  name: r.name,
  description: r.description,
  latestVersion: r.latest_version,
  itemCount: r.item_count,
  createdAt: r.created_at,
});

const toVersion = (r: VersionRow): DatasetVersion => ({
  version: r.version,
  createdAt: r.created_at,
  via: r.via,
  added: r.added,
  removed: r.removed,
  itemCount: r.item_count,
  queueId: r.queue_id,
  actorKeyId: r.actor_key_id,
});

/** The 404 of a dataset id the workspace does not have. */
export const datasetNotFound = (id: string): FeedloopError =>
  new FeedloopError('FEEDLOOP_ERR_DATASET_NOT_FOUND', `id: no dataset ${JSON.stringify(id)} in this workspace`, { field: 'id' });

/**
 * Creates a dataset (no version yet: its first change makes version 1), and logs it.
 *
 * @throws FeedloopError `FEEDLOOP_ERR_DATASET_CONFLICT` when the workspace has a dataset of that name.
 * @example
 * await createDataset(db, 'ws_1', { name: 'sql-gold', description: 'Reviewed SQL answers' }, keyId)
 */
export async function createDataset(db: SqlClient, workspaceId: string, input: DatasetInput, actorKeyId: string | null): Promise<Dataset> {
  return db.transaction(async (tx) => {
    const [row] = await tx.query<DatasetRow>(
      `INSERT INTO datasets (id, workspace_id, name, description) VALUES ($1, $2, $3, $4)
       ON CONFLICT (workspace_id, name) DO NOTHING RETURNING ${COLUMNS}`,
      [DATASET_ID_PREFIX + uuidv7().replaceAll('-', ''), workspaceId, input.name, input.description],
    );
    if (!row) throw new FeedloopError('FEEDLOOP_ERR_DATASET_CONFLICT', `name: a dataset named ${JSON.stringify(input.name)} exists in this workspace`, { field: 'name' });
    await appendAudit(tx, { workspaceId, action: 'dataset.created', actorKeyId, subject: row.id, details: { name: row.name } });
    return toDataset(row);
  });
}

/**
 * A workspace's datasets by name.
 *
 * @example
 * await listDatasets(db, 'ws_1') // [{ id: 'ds_…', name: 'sql-gold', latestVersion: 3, itemCount: 120, … }]
 */
export async function listDatasets(db: SqlExecutor, workspaceId: string): Promise<Dataset[]> {
  const rows = await db.query<DatasetRow>(`SELECT ${COLUMNS} FROM datasets WHERE workspace_id = $1 ORDER BY name`, [workspaceId]);
  return rows.map(toDataset);
}

/**
 * One dataset; `undefined` when the workspace has none of that id.
 *
 * @example
 * await getDataset(db, 'ws_1', 'ds_…')
 */
export async function getDataset(db: SqlExecutor, workspaceId: string, id: string): Promise<Dataset | undefined> {
  const [row] = await db.query<DatasetRow>(`SELECT ${COLUMNS} FROM datasets WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
  return row ? toDataset(row) : undefined;
}

/**
 * Locks a dataset's row for a change (the caller's transaction serializes the dataset's changes
 * on it, so versions are dense and "a response once" holds under concurrent adds).
 *
 * @throws FeedloopError `FEEDLOOP_ERR_DATASET_NOT_FOUND`.
 */
export async function lockDataset(tx: SqlExecutor, workspaceId: string, id: string): Promise<Dataset> {
  const [row] = await tx.query<DatasetRow>(`SELECT ${COLUMNS} FROM datasets WHERE workspace_id = $1 AND id = $2 FOR UPDATE`, [workspaceId, id]);
  if (!row) throw datasetNotFound(id);
  return toDataset(row);
}

/**
 * Records a new version of a locked dataset and makes it the latest.
 *
 * @example
 * await recordVersion(tx, 'ws_1', dataset, { via: 'responseIds', added: 3, removed: 0, queueId: null, actorKeyId })
 */
export async function recordVersion(
  tx: SqlExecutor,
  workspaceId: string,
  dataset: Dataset,
  change: { via: DatasetChangeVia; added: number; removed: number; queueId: string | null; actorKeyId: string | null },
): Promise<DatasetVersion> {
  const version = dataset.latestVersion + 1;
  const itemCount = dataset.itemCount + change.added - change.removed;
  const [row] = await tx.query<VersionRow>(
    `INSERT INTO dataset_versions (workspace_id, dataset_id, version, via, added, removed, item_count, queue_id, actor_key_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     RETURNING version, created_at, via, added, removed, item_count, queue_id, actor_key_id`,
    [workspaceId, dataset.id, version, change.via, change.added, change.removed, itemCount, change.queueId, change.actorKeyId],
  );
  if (!row) throw new Error('the version was not recorded');
  await tx.query('UPDATE datasets SET latest_version = $3, item_count = $4 WHERE workspace_id = $1 AND id = $2', [workspaceId, dataset.id, version, itemCount]);
  return toVersion(row);
}

/**
 * A dataset's versions, newest first, `limit` at a time before version `before`.
 *
 * @example
 * await listDatasetVersions(db, 'ws_1', 'ds_…', { limit: 100 }) // { versions: [...], nextBefore: 12 | null }
 */
export async function listDatasetVersions(
  db: SqlExecutor,
  workspaceId: string,
  datasetId: string,
  options: { limit: number; before?: number },
): Promise<{ versions: DatasetVersion[]; nextBefore: number | null }> {
  const rows = await db.query<VersionRow>(
    `SELECT version, created_at, via, added, removed, item_count, queue_id, actor_key_id FROM dataset_versions
      WHERE workspace_id = $1 AND dataset_id = $2 AND ($3::int IS NULL OR version < $3::int)
      ORDER BY version DESC LIMIT $4`,
    [workspaceId, datasetId, options.before ?? null, options.limit + 1],
  );
  const page = rows.slice(0, options.limit).map(toVersion);
  return { versions: page, nextBefore: rows.length > options.limit ? (page.at(-1)?.version ?? null) : null };
}

/**
 * Checks a review queue's `datasetId` (issue 27): null or absent is none; else a dataset of this
 * workspace.
 *
 * @throws FeedloopError `FEEDLOOP_ERR_VALIDATION_INVALID_FIELD` naming `datasetId`.
 * @example
 * await assertDatasetField(db, 'ws_1', body.datasetId)
 */
export async function assertDatasetField(db: SqlExecutor, workspaceId: string, datasetId: string | null | undefined): Promise<void> {
  if (datasetId === null || datasetId === undefined) return;
  if (await getDataset(db, workspaceId, datasetId)) return;
  throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', `datasetId: no dataset ${JSON.stringify(datasetId)} in this workspace`, { field: 'datasetId' });
}
