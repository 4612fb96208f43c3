/**
 * `score_configs` (issue 26 §1, migration 0029): a workspace's named score dimensions, the CRUD
 * behind `/v1/score-configs`, and the lookup ingest validates and maps `score` events with.
 * Configs are never deleted, only archived: events keep naming them.
 */
import { checkScoreConfig, type ScoreConfig, type ScoreConfigInput, type ScoreConfigPatch } from '@feedloop/core';
import { v7 as uuidv7 } from 'uuid';
import type { SqlExecutor } from '../db/sql-client.js';
import { FeedloopError } from '../errors.js';

/** The prefix of a config id, as the seeded ones (migration 0029) have. */
export const SCORE_CONFIG_ID_PREFIX = 'sc_';

/** A config as listings serve it. */
export type StoredScoreConfig = ScoreConfig & { createdAt: Date; updatedAt: Date };

interface ScoreConfigRow {
  id: string;
  name: string;
  data_type: ScoreConfig['dataType'];
  min: number | null;
  max: number | null;
  categories: Array<{ value: number; label: string }> | null;
  description: string | null;
  maps_to: ScoreConfig['mapsTo'];
  weight: number;
  archived: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, name, data_type, min, max, categories, description, maps_to, weight, archived, created_at, updated_at';

function toConfig(r: ScoreConfigRow): StoredScoreConfig {
  return {
    id: r.id,
    name: r.name,
    dataType: r.data_type,
    ...(r.min !== null ? { min: r.min } : {}),
    ...(r.max !== null ? { max: r.max } : {}),
    ...(r.categories !== null ? { categories: r.categories } : {}),
    ...(r.description !== null ? { description: r.description } : {}),
    mapsTo: r.maps_to,
    weight: r.weight,
    archived: r.archived,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Throws the field-named 400 of a config whose fields disagree. */
function assertCoherent(config: Parameters<typeof checkScoreConfig>[0]): void {
  const problem = checkScoreConfig(config);
  if (problem) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', problem.message, { field: problem.field });
}

const conflict = (name: string) => new FeedloopError('FEEDLOOP_ERR_SCORE_CONFIG_CONFLICT', `name: a score config named ${JSON.stringify(name)} exists in this workspace`, { field: 'name' });

/**
 * Lists a workspace's configs by name; archived ones only when asked.
 *
 * @example
 * await listScoreConfigs(db, 'ws_1') // [{ id: 'sc_…', name: 'rating', dataType: 'numeric', … }, …]
 */
export async function listScoreConfigs(db: SqlExecutor, workspaceId: string, options: { archived?: boolean } = {}): Promise<StoredScoreConfig[]> {
  const rows = await db.query<ScoreConfigRow>(
    `SELECT ${COLUMNS} FROM score_configs WHERE workspace_id = $1 AND ($2 OR NOT archived) ORDER BY name`,
    [workspaceId, options.archived === true],
  );
  return rows.map(toConfig);
}

/**
 * One config by id; `undefined` when the workspace has none of that id.
 *
 * @example
 * await getScoreConfig(db, 'ws_1', 'sc_…')
 */
export async function getScoreConfig(db: SqlExecutor, workspaceId: string, id: string): Promise<StoredScoreConfig | undefined> {
  const [row] = await db.query<ScoreConfigRow>(`SELECT ${COLUMNS} FROM score_configs WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
  return row ? toConfig(row) : undefined;
}

/**
 * The configs that apply to scores of the given names or config ids: archived or not (ingest
 * decides), keyed by name and by id.
 *
 * @example
 * const { byName } = await scoreConfigsFor(db, 'ws_1', ['helpfulness'], []);
 */
export async function scoreConfigsFor(
  db: SqlExecutor,
  workspaceId: string,
  names: readonly string[],
  ids: readonly string[],
): Promise<{ byName: Map<string, ScoreConfig>; byId: Map<string, ScoreConfig> }> {
  const rows =
    names.length + ids.length === 0
      ? []
      : await db.query<ScoreConfigRow>(`SELECT ${COLUMNS} FROM score_configs WHERE workspace_id = $1 AND (name = ANY($2::text[]) OR id = ANY($3::text[]))`, [
          workspaceId,
          [...new Set(names)],
          [...new Set(ids)],
        ]);
  const configs = rows.map(toConfig);
  return { byName: new Map(configs.map((c) => [c.name, c])), byId: new Map(configs.map((c) => [c.id, c])) };
}

/**
 * Creates a config (validated by core's schema; its fields checked together here).
 *
 * @throws FeedloopError `FEEDLOOP_ERR_SCORE_CONFIG_CONFLICT` when the name is taken,
 *   `FEEDLOOP_ERR_VALIDATION_INVALID_FIELD` when fields disagree.
 * @example
 * await createScoreConfig(db, 'ws_1', { name: 'helpfulness', dataType: 'numeric', min: 0, max: 1 })
 */
export async function createScoreConfig(db: SqlExecutor, workspaceId: string, input: ScoreConfigInput): Promise<StoredScoreConfig> {
  assertCoherent(input);
  const rows = await db.query<ScoreConfigRow>(
    `INSERT INTO score_configs (id, workspace_id, name, data_type, min, max, categories, description, maps_to, weight)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10)
     ON CONFLICT (workspace_id, name) DO NOTHING RETURNING ${COLUMNS}`,
    [
      SCORE_CONFIG_ID_PREFIX + uuidv7().replaceAll('-', ''),
      workspaceId,
      input.name,
      input.dataType,
      input.min ?? null,
      input.max ?? null,
      input.categories === undefined ? null : JSON.stringify(input.categories),
      input.description ?? null,
      input.mapsTo ?? 'none',
      input.weight ?? 0,
    ],
  );
  if (!rows[0]) throw conflict(input.name);
  return toConfig(rows[0]);
}

/**
 * Changes a config's fields (the result checked as a whole), archives it (`archived: true`) or
 * restores it.
 *
 * @throws FeedloopError `FEEDLOOP_ERR_SCORE_CONFIG_NOT_FOUND`, `FEEDLOOP_ERR_SCORE_CONFIG_CONFLICT`,
 *   `FEEDLOOP_ERR_VALIDATION_INVALID_FIELD`.
 * @example
 * await updateScoreConfig(db, 'ws_1', 'sc_…', { archived: true })
 */
export async function updateScoreConfig(db: SqlExecutor, workspaceId: string, id: string, patch: ScoreConfigPatch): Promise<StoredScoreConfig> {
  const current = await getScoreConfig(db, workspaceId, id);
  if (!current) throw new FeedloopError('FEEDLOOP_ERR_SCORE_CONFIG_NOT_FOUND', `no score config ${JSON.stringify(id)} in this workspace`);
  const next = { ...current, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) } as StoredScoreConfig;
  // A data type change drops the fields only the old type had, unless the patch sets them.
  if (patch.dataType !== undefined && patch.dataType !== current.dataType) {
    if (patch.dataType !== 'numeric' && patch.min === undefined) delete next.min;
    if (patch.dataType !== 'numeric' && patch.max === undefined) delete next.max;
    if (patch.dataType !== 'categorical' && patch.categories === undefined) delete next.categories;
  }
  assertCoherent(next);
  if (next.name !== current.name) {
    const [taken] = await db.query('SELECT 1 FROM score_configs WHERE workspace_id = $1 AND name = $2 AND id <> $3', [workspaceId, next.name, id]);
    if (taken) throw conflict(next.name);
  }
  const [row] = await db.query<ScoreConfigRow>(
    `UPDATE score_configs SET name = $3, data_type = $4, min = $5, max = $6, categories = $7::jsonb, description = $8, maps_to = $9,
            weight = $10, archived = $11, updated_at = now()
      WHERE workspace_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [
      workspaceId,
      id,
      next.name,
      next.dataType,
      next.min ?? null,
      next.max ?? null,
      next.categories === undefined ? null : JSON.stringify(next.categories),
      next.description ?? null,
      next.mapsTo,
      next.weight,
      next.archived,
    ],
  );
  if (!row) throw new FeedloopError('FEEDLOOP_ERR_SCORE_CONFIG_NOT_FOUND', `no score config ${JSON.stringify(id)} in this workspace`);
  return toConfig(row);
}
