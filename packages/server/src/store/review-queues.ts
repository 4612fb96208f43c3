/**
 * `review_queues` (issue 27, migration 0039): a workspace's review queues, the CRUD behind
 * `/v1/review-queues`, and who may review them. Members are reviewer key ids of the workspace;
 * a queue names them by id so renaming a key's reviewer is one change.
 */
import type { QueueRule, ReviewQueueInput, ReviewQueueKind, ReviewQueuePatch, Rubric } from '@feedloop/core';
import { v7 as uuidv7 } from 'uuid';
import type { SqlExecutor } from '../db/sql-client.js';
import { FeedloopError } from '../errors.js';
import { appendAudit } from './audit-log.js';

/** The prefix of a queue id. */
export const REVIEW_QUEUE_ID_PREFIX = 'rq_';

/** A queue as the API shows it. */
export interface ReviewQueue {
  id: string;
  name: string;
  kind: ReviewQueueKind;
  instructions: string;
  rubric: Rubric;
  reviewersPerItem: number;
  reservationSeconds: number;
  members: string[];
  rules: QueueRule[];
  datasetId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

interface QueueRow {
  id: string;
  name: string;
  kind: ReviewQueueKind;
  instructions: string;
  rubric: Rubric;
  reviewers_per_item: number;
  reservation_seconds: number;
  members: string[];
  rules: QueueRule[];
  dataset_id: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, name, kind, instructions, rubric, reviewers_per_item, reservation_seconds, members, rules, dataset_id, created_at, updated_at';

const toQueue = (r: QueueRow): ReviewQueue => ({
  id: r.id,
  name: r.name,
  kind: r.kind,
  instructions: r.instructions,
  rubric: r.rubric,
  reviewersPerItem: r.reviewers_per_item,
  reservationSeconds: r.reservation_seconds,
  members: r.members,
  rules: r.rules,
  datasetId: r.dataset_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/**
 * Throws the field-named 400 unless every id is an active reviewer key of the workspace.
 *
 * @throws FeedloopError `FEEDLOOP_ERR_VALIDATION_INVALID_FIELD` naming `members[i]`.
 */
async function assertReviewers(db: SqlExecutor, workspaceId: string, members: readonly string[]): Promise<void> {
  if (members.length === 0) return;
  const rows = await db.query<{ id: string }>(
    "SELECT id FROM api_keys WHERE workspace_id = $1 AND id = ANY($2::text[]) AND kind = 'reviewer' AND revoked_at IS NULL",
    [workspaceId, [...new Set(members)]],
  );
  const known = new Set(rows.map((r) => r.id));
  const bad = members.findIndex((m) => !known.has(m));
  if (bad >= 0) {
    throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', `members[${bad}]: ${JSON.stringify(members[bad])} is no active reviewer key of this workspace`, {
      field: `members[${bad}]`,
    });
  }
}

const notFound = (id: string): FeedloopError =>
  new FeedloopError('FEEDLOOP_ERR_REVIEW_QUEUE_NOT_FOUND', `id: no review queue ${JSON.stringify(id)} in this workspace`, { field: 'id' });

/**
 * Creates a queue (its input validated by core's schema, its rules' filters by the caller).
 *
 * @throws FeedloopError `FEEDLOOP_ERR_VALIDATION_INVALID_FIELD` when a member is no reviewer key.
 * @example
 * await createReviewQueue(db, 'ws_1', { name: 'weekly', kind: 'single', … }, 'key_1')
 */
export async function createReviewQueue(db: SqlExecutor, workspaceId: string, input: ReviewQueueInput, actorKeyId?: string): Promise<ReviewQueue> {
  const members = [...new Set(input.members)];
  await assertReviewers(db, workspaceId, members);
  const [row] = await db.query<QueueRow>(
    `INSERT INTO review_queues (workspace_id, id, name, kind, instructions, rubric, reviewers_per_item, reservation_seconds, members, rules, dataset_id)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9::jsonb, $10::jsonb, $11) RETURNING ${COLUMNS}`,
    [
      workspaceId,
      REVIEW_QUEUE_ID_PREFIX + uuidv7().replaceAll('-', ''),
      input.name,
      input.kind,
      input.instructions,
      JSON.stringify(input.rubric),
      input.reviewersPerItem,
      input.reservationSeconds,
      JSON.stringify(members),
      JSON.stringify(input.rules),
      input.datasetId ?? null,
    ],
  );
  if (!row) throw new Error('the queue insert returned no row');
  await appendAudit(db, { workspaceId, action: 'review_queue.created', actorKeyId: actorKeyId ?? null, subject: row.id, details: { name: row.name, kind: row.kind } });
  return toQueue(row);
}

/**
 * One queue; `undefined` when the workspace has none of that id.
 *
 * @example
 * await getReviewQueue(db, 'ws_1', 'rq_…')
 */
export async function getReviewQueue(db: SqlExecutor, workspaceId: string, id: string): Promise<ReviewQueue | undefined> {
  const [row] = await db.query<QueueRow>(`SELECT ${COLUMNS} FROM review_queues WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
  return row ? toQueue(row) : undefined;
}

/**
 * One queue, or the 404.
 *
 * @throws FeedloopError `FEEDLOOP_ERR_REVIEW_QUEUE_NOT_FOUND`.
 */
export async function requireReviewQueue(db: SqlExecutor, workspaceId: string, id: string): Promise<ReviewQueue> {
  const queue = await getReviewQueue(db, workspaceId, id);
  if (!queue) throw notFound(id);
  return queue;
}

/**
 * A workspace's queues by name; with `memberKeyId`, only those that key is a member of (what a
 * reviewer key lists).
 *
 * @example
 * await listReviewQueues(db, 'ws_1', { memberKeyId: 'key_7' })
 */
export async function listReviewQueues(db: SqlExecutor, workspaceId: string, options: { memberKeyId?: string } = {}): Promise<ReviewQueue[]> {
  const rows = await db.query<QueueRow>(
    `SELECT ${COLUMNS} FROM review_queues WHERE workspace_id = $1 AND ($2::text IS NULL OR members @> jsonb_build_array($2::text)) ORDER BY name, id`,
    [workspaceId, options.memberKeyId ?? null],
  );
  return rows.map(toQueue);
}

/**
 * Changes a queue's fields. A change of `reviewersPerItem` reopens or closes items at once (an
 * item is done at that many reviews).
 *
 * @throws FeedloopError `FEEDLOOP_ERR_REVIEW_QUEUE_NOT_FOUND`, `FEEDLOOP_ERR_VALIDATION_INVALID_FIELD`.
 * @example
 * await updateReviewQueue(db, 'ws_1', 'rq_…', { reviewersPerItem: 3 }, 'key_1')
 */
export async function updateReviewQueue(db: SqlExecutor, workspaceId: string, id: string, patch: ReviewQueuePatch, actorKeyId?: string): Promise<ReviewQueue> {
  const current = await requireReviewQueue(db, workspaceId, id);
  const members = patch.members === undefined ? current.members : [...new Set(patch.members)];
  if (patch.members !== undefined) await assertReviewers(db, workspaceId, members);
  const next = {
    name: patch.name ?? current.name,
    instructions: patch.instructions ?? current.instructions,
    rubric: patch.rubric ?? current.rubric,
    reviewersPerItem: patch.reviewersPerItem ?? current.reviewersPerItem,
    reservationSeconds: patch.reservationSeconds ?? current.reservationSeconds,
    rules: patch.rules ?? current.rules,
    datasetId: patch.datasetId === undefined ? current.datasetId : patch.datasetId,
  };
  const [row] = await db.query<QueueRow>(
    `UPDATE review_queues SET name = $3, instructions = $4, rubric = $5::jsonb, reviewers_per_item = $6, reservation_seconds = $7,
            members = $8::jsonb, rules = $9::jsonb, dataset_id = $10, updated_at = now()
      WHERE workspace_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [
      workspaceId,
      id,
      next.name,
      next.instructions,
      JSON.stringify(next.rubric),
      next.reviewersPerItem,
      next.reservationSeconds,
      JSON.stringify(members),
      JSON.stringify(next.rules),
      next.datasetId,
    ],
  );
  if (!row) throw notFound(id);
  if (next.reviewersPerItem !== current.reviewersPerItem) {
    await db.query(
      `UPDATE review_items SET state = CASE WHEN reviews >= $3 THEN 'done' ELSE 'open' END
        WHERE workspace_id = $1 AND queue_id = $2 AND state <> CASE WHEN reviews >= $3 THEN 'done' ELSE 'open' END`,
      [workspaceId, id, next.reviewersPerItem],
    );
  }
  await appendAudit(db, { workspaceId, action: 'review_queue.changed', actorKeyId: actorKeyId ?? null, subject: id, details: { fields: Object.keys(patch) } });
  return toQueue(row);
}

/**
 * The single queues with rules in these workspaces, for the pipeline: none is the common case,
 * and costs one probe of the primary key per workspace.
 *
 * @example
 * await queuesWithRulesIn(db, ['ws_1']) // [{ workspaceId: 'ws_1', id: 'rq_…', rules: [...] }]
 */
export async function queuesWithRulesIn(db: SqlExecutor, workspaceIds: readonly string[]): Promise<Array<{ workspaceId: string; id: string; rules: QueueRule[] }>> {
  if (workspaceIds.length === 0) return [];
  const rows = await db.query<{ workspace_id: string; id: string; rules: QueueRule[] }>(
    "SELECT workspace_id, id, rules FROM review_queues WHERE workspace_id = ANY($1::text[]) AND kind = 'single' AND rules <> '[]'::jsonb ORDER BY workspace_id, id",
    [[...workspaceIds]],
    // Prepared: it runs in every processing transaction, where planning it each time cost more than running it.
    { prepare: true },
  );
  return rows.map((r) => ({ workspaceId: r.workspace_id, id: r.id, rules: r.rules }));
}

/**
 * The member key of a queue whose reviewer has this name (a secret key acting for a reviewer);
 * `undefined` when no active member key has it.
 *
 * @example
 * await memberNamed(db, 'ws_1', queue, 'ann') // 'key_7'
 */
export async function memberNamed(db: SqlExecutor, workspaceId: string, queue: Pick<ReviewQueue, 'members'>, name: string): Promise<string | undefined> {
  if (queue.members.length === 0) return undefined;
  const [row] = await db.query<{ id: string }>(
    "SELECT id FROM api_keys WHERE workspace_id = $1 AND id = ANY($2::text[]) AND kind = 'reviewer' AND revoked_at IS NULL AND name = $3 LIMIT 1",
    [workspaceId, queue.members, name],
  );
  return row?.id;
}
