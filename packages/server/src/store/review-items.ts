/**
 * `review_items` (issue 27, migration 0039): what a review queue holds, added by hand (response
 * ids, pairs, an experiment's two variants, a filter) or by the queue's rules; listed with their
 * state and the queue's progress. A response (or a pair) is in a queue once: `subject` is unique.
 */
import { v7 as uuidv7 } from 'uuid';
import type { SqlExecutor } from '../db/sql-client.js';

/** The prefix of an item id. */
export const REVIEW_ITEM_ID_PREFIX = 'ri_';
/** Rows one insert statement carries at most: a big add is several statements, none huge. */
const INSERT_BATCH = 1_000;

/** What became of one response (or pair) an add named. */
export type ItemAddStatus = 'added' | 'exists';

/** A pair of responses as a pairwise item holds it, in the order it was given. */
export type ResponsePair = readonly [string, string];

/** The unique subject of an item: the response id, or the pair's ids sorted, space-joined. */
export function itemSubject(responseId: string, responseBId?: string | null): string {
  if (responseBId === undefined || responseBId === null) return responseId;
  return [responseId, responseBId].sort().join(' ');
}

const newItemId = (): string => REVIEW_ITEM_ID_PREFIX + uuidv7().replaceAll('-', '');

/**
 * Which of these responses the workspace has (complete ones: a bare trace is not reviewable),
 * with their query text.
 *
 * @example
 * await knownResponses(db, 'ws_1', ['r1', 'nope']) // Map { 'r1' => 'What is…' }
 */
export async function knownResponses(db: SqlExecutor, workspaceId: string, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<{ id: string; query: string }>('SELECT id, query FROM responses WHERE workspace_id = $1 AND id = ANY($2::text[]) AND NOT bare', [
    workspaceId,
    [...new Set(ids)],
  ]);
  return new Map(rows.map((r) => [r.id, r.query]));
}

/**
 * Adds items to a queue, a response or pair once: each gets `added`, or `exists` when the queue
 * holds it already (the caller checked the responses exist). Inserts in batches.
 *
 * @example
 * await addReviewItems(db, 'ws_1', 'rq_1', [['r1'], ['r2', 'r3']], 'hand') // ['added', 'exists']
 */
export async function addReviewItems(
  db: SqlExecutor,
  workspaceId: string,
  queueId: string,
  items: ReadonlyArray<readonly [string] | ResponsePair>,
  addedBy: 'hand' | 'rule',
): Promise<ItemAddStatus[]> {
  const added = new Set<string>();
  for (let at = 0; at < items.length; at += INSERT_BATCH) {
    const batch = items.slice(at, at + INSERT_BATCH);
    const rows = await db.query<{ subject: string }>(
      `INSERT INTO review_items (workspace_id, queue_id, id, subject, response_id, response_b_id, added_by)
       SELECT $1, $2, t.id, t.subject, t.a, t.b, $7 FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) AS t(id, subject, a, b)
       ON CONFLICT (workspace_id, queue_id, subject) DO NOTHING RETURNING subject`,
      [
        workspaceId,
        queueId,
        batch.map(() => newItemId()),
        batch.map((i) => itemSubject(i[0], i[1])),
        batch.map((i) => i[0]),
        batch.map((i) => i[1] ?? null),
        addedBy,
      ],
    );
    for (const r of rows) added.add(r.subject);
  }
  // A subject named twice in one add is added once: the first naming says so, the rest `exists`.
  const told = new Set<string>();
  return items.map((i) => {
    const subject = itemSubject(i[0], i[1]);
    if (added.has(subject) && !told.has(subject)) {
      told.add(subject);
      return 'added';
    }
    return 'exists';
  });
}

/** Pairs an experiment's two variants make at most in one add. */
export const MAX_EXPERIMENT_PAIRS = 10_000;

/**
 * The pairs of an experiment's two variants: responses of variant `x` and of variant `y` with the
 * same query text, matched in creation order (the first `x` answer to a query with the first `y`
 * answer to it, and so on), at most `limit`.
 *
 * @example
 * await experimentPairs(db, 'ws_1', 'exp-1', 'control', 'treatment') // [['r1', 'r9'], …]
 */
export async function experimentPairs(db: SqlExecutor, workspaceId: string, experimentId: string, x: string, y: string, limit = MAX_EXPERIMENT_PAIRS): Promise<ResponsePair[]> {
  const rows = await db.query<{ a: string; b: string }>(
    `WITH v AS (
       SELECT id, variant, md5(query) AS q, row_number() OVER (PARTITION BY variant, md5(query) ORDER BY created_at, id) AS n
         FROM responses WHERE workspace_id = $1 AND experiment_id = $2 AND variant = ANY(ARRAY[$3, $4]::text[]) AND NOT bare)
     SELECT vx.id AS a, vy.id AS b FROM v vx JOIN v vy ON vy.q = vx.q AND vy.n = vx.n AND vy.variant = $4
      WHERE vx.variant = $3 ORDER BY vx.id LIMIT $5`,
    [workspaceId, experimentId, x, y, limit],
  );
  return rows.map((r) => [r.a, r.b] as const);
}

/** An item as a listing shows it. */
export interface ReviewItemView {
  id: string;
  responseId: string;
  /** The pair's second response (pairwise items). */
  responseBId: string | null;
  /** pending: nobody reviewed or holds it; in_progress: some reviews or a live reservation; done. */
  state: 'pending' | 'in_progress' | 'done';
  reviews: number;
  /** Live reservations now. */
  reserved: number;
  addedBy: 'hand' | 'rule';
  createdAt: string;
}

/** A queue's progress: items by state. */
export interface QueueProgress {
  total: number;
  pending: number;
  inProgress: number;
  done: number;
}

/**
 * A queue's items in the order they came (`after`: the last id of the previous page), with
 * their state; `state` keeps one state only.
 *
 * @example
 * await listReviewItems(db, 'ws_1', 'rq_1', { limit: 50 })
 */
export async function listReviewItems(
  db: SqlExecutor,
  workspaceId: string,
  queueId: string,
  options: { limit: number; after?: string; state?: ReviewItemView['state'] },
): Promise<{ data: ReviewItemView[]; nextCursor: string | null }> {
  const rows = await db.query<{ id: string; response_id: string; response_b_id: string | null; reviews: number; state: ReviewItemView['state']; reserved: number; added_by: 'hand' | 'rule'; created_at: Date }>(
    `SELECT * FROM (
       SELECT i.id, i.response_id, i.response_b_id, i.reviews, i.added_by, i.created_at, x.reserved,
              CASE WHEN i.state = 'done' THEN 'done' WHEN i.reviews > 0 OR x.reserved > 0 THEN 'in_progress' ELSE 'pending' END AS state
         FROM review_items i
         CROSS JOIN LATERAL (SELECT count(*)::int AS reserved FROM review_reservations v
                              WHERE v.workspace_id = i.workspace_id AND v.item_id = i.id AND NOT v.skipped AND v.expires_at > now()) x
        WHERE i.workspace_id = $1 AND i.queue_id = $2 AND ($3::text IS NULL OR i.id > $3)
          AND ($4::text IS NULL OR (i.state = 'done') = ($4 = 'done'))
        ORDER BY i.id) AS s
      WHERE $4::text IS NULL OR s.state = $4
      ORDER BY s.id LIMIT $5`,
    [workspaceId, queueId, options.after ?? null, options.state ?? null, options.limit + 1],
  );
  const page = rows.slice(0, options.limit);
  const last = page[page.length - 1];
  return {
    data: page.map((r) => ({
      id: r.id,
      responseId: r.response_id,
      responseBId: r.response_b_id,
      state: r.state,
      reviews: r.reviews,
      reserved: r.reserved,
      addedBy: r.added_by,
      createdAt: r.created_at.toISOString(),
    })),
    nextCursor: rows.length > options.limit && last ? last.id : null,
  };
}

/**
 * A queue's progress: items done, in progress (reviewed by some, or reserved now) and pending.
 *
 * @example
 * await queueProgress(db, 'ws_1', 'rq_1') // { total: 120, pending: 90, inProgress: 10, done: 20 }
 */
export async function queueProgress(db: SqlExecutor, workspaceId: string, queueId: string): Promise<QueueProgress> {
  const [row] = await db.query<{ total: number; done: number; started: number }>(
    `SELECT count(*)::int AS total, count(*) FILTER (WHERE i.state = 'done')::int AS done,
            count(*) FILTER (WHERE i.state = 'open' AND (i.reviews > 0 OR EXISTS (
              SELECT 1 FROM review_reservations v WHERE v.workspace_id = i.workspace_id AND v.item_id = i.id AND NOT v.skipped AND v.expires_at > now())))::int AS started
       FROM review_items i WHERE i.workspace_id = $1 AND i.queue_id = $2`,
    [workspaceId, queueId],
  );
  const total = row?.total ?? 0;
  const done = row?.done ?? 0;
  const inProgress = row?.started ?? 0;
  return { total, pending: total - done - inProgress, inProgress, done };
}
