/**
 * The response list's tags (migration 0019): one row per response and tag it has, in the
 * response's creation order, so a rating or category filter walks its own responses newest first
 * instead of probing every response of the workspace. `unrated` is written with the response,
 * processing adds `rating:*`, `category:*` and `correction` (and takes `unrated` away) in its transaction, and
 * whatever deletes signals (retention, erasure) recomputes the tags of the responses it touched.
 * The tags are always what `TAGS_OF` derives from the counted signals.
 */
import type { SqlExecutor } from '../db/sql-client.js';

/** The tag of a rating filter value. */
export const ratingTag = (polarity: 'positive' | 'negative'): string => `rating:${polarity}`;
/** The tag of an error category. */
export const categoryTag = (category: string): string => `category:${category}`;
/** The tag of a response without a counted signal. */
export const UNRATED_TAG = 'unrated';
/** The tag of a response with a counted correction of a user's (migration 0048; `hasCorrection`). */
export const CORRECTION_TAG = 'correction';

/** What processing counted for a response: the tags its new counted signals give it. */
export interface CountedSignalTags {
  workspaceId: string;
  responseId: string;
  polarity: string | null;
  categories: readonly string[];
  /** The signal is a correction (`type = 'correction'`). */
  correction?: boolean;
}

/**
 * A signal `s` whose event is a user's: rating and category tags are what users said (a
 * reviewer's or a judge's verdict is counted apart: the list's `reviews` and `judgements`).
 */
export const BY_USERS = `NOT EXISTS (SELECT 1 FROM feedback_event_ids k
    JOIN feedback_events e ON e.workspace_id = k.workspace_id AND e.seq = k.seq AND e.received_at = k.received_at
   WHERE k.workspace_id = s.workspace_id AND k.id = s.event_id AND e.source IN ('review', 'judge'))`;

/**
 * The tags of the responses `r` ranges over, derived from their counted signals: the one
 * definition the migration's backfill, the recompute and the tests share.
 */
const TAGS_OF = `
  CROSS JOIN LATERAL (
    SELECT 'rating:' || s.polarity FROM feedback_signals s
     WHERE s.workspace_id = r.workspace_id AND s.response_id = r.id AND s.status = 'counted' AND s.polarity IN ('positive', 'negative') AND ${BY_USERS}
    UNION
    SELECT 'category:' || c FROM feedback_signals s, unnest(s.categories) AS c
     WHERE s.workspace_id = r.workspace_id AND s.response_id = r.id AND s.status = 'counted' AND ${BY_USERS}
    UNION
    SELECT '${CORRECTION_TAG}' FROM feedback_signals s
     WHERE s.workspace_id = r.workspace_id AND s.response_id = r.id AND s.status = 'counted' AND s.type = 'correction' AND ${BY_USERS}
    UNION
    SELECT 'unrated' WHERE NOT EXISTS (
      SELECT 1 FROM feedback_signals s WHERE s.workspace_id = r.workspace_id AND s.response_id = r.id AND s.status = 'counted')
  ) AS g(tag)`;

/** The tags of one response's signals, deduplicated (pure; what processing adds). */
export function tagsOfSignal(polarity: string | null, categories: readonly string[], correction = false): string[] {
  const tags = new Set<string>();
  if (correction) tags.add(CORRECTION_TAG);
  if (polarity === 'positive' || polarity === 'negative') tags.add(ratingTag(polarity));
  for (const c of categories) tags.add(categoryTag(c));
  return [...tags];
}

/**
 * Adds the tags of newly counted signals, and takes `unrated` away from their responses, inside
 * the processing transaction. With `known` (the responses' tags as an exclusive claim read them,
 * PGlite), only what changes is written ({@link addKnownTags}). Rows are locked in one order (workspace, response, tag) so two
 * workers processing events of the same responses never wait on each other in a cycle.
 *
 * @example
 * await addCountedTags(tx, [{ workspaceId: 'ws', responseId: 'r1', polarity: 'negative', categories: ['hallucination'] }]);
 * // r1: rating:negative, category:hallucination; no longer unrated
 */
export async function addCountedTags(tx: SqlExecutor, counted: readonly CountedSignalTags[], known?: KnownTags): Promise<void> {
  if (counted.length === 0) return;
  if (known) return addKnownTags(tx, counted, known);
  const rows = new Map<string, { ws: string; rid: string; tag: string }>();
  for (const c of counted) {
    rows.set(`${c.workspaceId}\u0000${c.responseId}\u0000${UNRATED_TAG}`, { ws: c.workspaceId, rid: c.responseId, tag: UNRATED_TAG });
    for (const tag of tagsOfSignal(c.polarity, c.categories, c.correction === true)) rows.set(`${c.workspaceId}\u0000${c.responseId}\u0000${tag}`, { ws: c.workspaceId, rid: c.responseId, tag });
  }
  // Sorted: rows are locked in this order (the probes below follow it), so two workers never wait on each other in a cycle.
  const all = [...rows.values()].sort((a, b) => (a.ws === b.ws ? (a.rid === b.rid ? (a.tag < b.tag ? -1 : 1) : a.rid < b.rid ? -1 : 1) : a.ws < b.ws ? -1 : 1));
  // Index probes per key (LATERAL, fenced with OFFSET 0): with plain joins the planner, guessing
  // json_to_recordset at 100 rows, hashed the whole tag and response tables (12 ms a batch on PGlite).
  // The probes lock the `unrated` rows in key order first; the DELETE then finds them by key.
  await tx.query(
    `WITH doomed AS (
       SELECT t.workspace_id, t.tag, t.created_at, t.response_id
         FROM json_to_recordset($1::json) AS x(ws text, rid text)
         CROSS JOIN LATERAL (SELECT r.created_at FROM responses r WHERE r.workspace_id = x.ws AND r.id = x.rid OFFSET 0) AS r
         CROSS JOIN LATERAL (SELECT t.workspace_id, t.tag, t.created_at, t.response_id FROM response_list_tags t
                              WHERE t.workspace_id = x.ws AND t.tag = '${UNRATED_TAG}' AND t.created_at = r.created_at AND t.response_id = x.rid
                                FOR UPDATE) AS t)
     DELETE FROM response_list_tags t
      WHERE (t.workspace_id, t.tag, t.created_at, t.response_id) IN (SELECT workspace_id, tag, created_at, response_id FROM doomed)`,
    [JSON.stringify(all.filter((r) => r.tag === UNRATED_TAG).map(({ ws, rid }) => ({ ws, rid })))],
    { prepare: true },
  );
  await tx.query(
    `INSERT INTO response_list_tags (workspace_id, tag, created_at, response_id)
     SELECT x.ws, x.tag, r.created_at, x.rid
       FROM json_to_recordset($1::json) AS x(ws text, rid text, tag text)
       CROSS JOIN LATERAL (SELECT r.created_at FROM responses r WHERE r.workspace_id = x.ws AND r.id = x.rid OFFSET 0) AS r
     ON CONFLICT DO NOTHING`,
    [JSON.stringify(all.filter((r) => r.tag !== UNRATED_TAG))],
    { prepare: true },
  );
}

/**
 * {@link addCountedTags} with the responses' tags known (an exclusive claim read them, with each
 * response's stored creation time): only what changes is written, by the tags' own key. Most
 * counted events give their response no tag it lacks; the probes of every tag (a response probe
 * and a tag probe each, twice) were a quarter of the embedded drain's statements.
 */
async function addKnownTags(tx: SqlExecutor, counted: readonly CountedSignalTags[], known: KnownTags): Promise<void> {
  const taken = new Map<string, { ws: string; rid: string; at: string }>();
  const added = new Map<string, { ws: string; rid: string; tag: string; at: string }>();
  for (const c of counted) {
    const key = responseKey(c.workspaceId, c.responseId);
    const has = known.get(key);
    if (!has) throw new Error(`the tags of response ${c.responseId} were not read by its claim`);
    if (has.tags.has(UNRATED_TAG)) taken.set(key, { ws: c.workspaceId, rid: c.responseId, at: has.createdAt });
    for (const tag of tagsOfSignal(c.polarity, c.categories, c.correction === true)) {
      if (!has.tags.has(tag)) added.set(`${key}\u0000${tag}`, { ws: c.workspaceId, rid: c.responseId, tag, at: has.createdAt });
    }
  }
  if (taken.size > 0) {
    await tx.query(
      `DELETE FROM response_list_tags t
        USING (SELECT * FROM json_to_recordset($1::json) AS x(ws text, rid text, at timestamptz)) AS x
        WHERE t.workspace_id = x.ws AND t.tag = '${UNRATED_TAG}' AND t.created_at = x.at AND t.response_id = x.rid`,
      [JSON.stringify([...taken.values()])],
      { prepare: true },
    );
  }
  if (added.size > 0) {
    await tx.query(
      `INSERT INTO response_list_tags (workspace_id, tag, created_at, response_id)
       SELECT ws, tag, at, rid FROM json_to_recordset($1::json) AS x(ws text, rid text, tag text, at timestamptz)
       ON CONFLICT DO NOTHING`,
      [JSON.stringify([...added.values()])],
      { prepare: true },
    );
  }
}

/** A response's tags and its creation time as stored (the tags' key), as an exclusive claim read them (claimed-events.ts). */
export interface KnownResponseTags {
  tags: ReadonlySet<string>;
  createdAt: string;
}

/** Responses' {@link KnownResponseTags} by {@link responseKey}. */
export type KnownTags = ReadonlyMap<string, KnownResponseTags>;

/** The key of a response in {@link KnownTags}. */
export const responseKey = (workspaceId: string, responseId: string): string => `${workspaceId}\u0000${responseId}`;

/**
 * Recomputes the tags of the given responses from their counted signals (after signals were
 * deleted: retention, erasure); a response that no longer exists loses its tags.
 *
 * @example
 * await recomputeTags(tx, [{ workspaceId: 'ws', responseId: 'r1' }]);
 */
export async function recomputeTags(tx: SqlExecutor, responses: ReadonlyArray<{ workspaceId: string; responseId: string }>): Promise<void> {
  const keys = new Map(responses.map((r) => [`${r.workspaceId}\u0000${r.responseId}`, { ws: r.workspaceId, rid: r.responseId }]));
  const sorted = [...keys.values()];
  for (let i = 0; i < sorted.length; i += RECOMPUTE_CHUNK) {
    const json = JSON.stringify(sorted.slice(i, i + RECOMPUTE_CHUNK));
    await tx.query(
      `DELETE FROM response_list_tags t USING json_to_recordset($1::json) AS x(ws text, rid text)
        WHERE t.workspace_id = x.ws AND t.response_id = x.rid`,
      [json],
    );
    await tx.query(
      `INSERT INTO response_list_tags (workspace_id, tag, created_at, response_id)
       SELECT r.workspace_id, g.tag, r.created_at, r.id
         FROM json_to_recordset($1::json) AS x(ws text, rid text)
         JOIN responses r ON r.workspace_id = x.ws AND r.id = x.rid
         ${TAGS_OF}
        ORDER BY r.workspace_id, r.id, g.tag
       ON CONFLICT DO NOTHING`,
      [json],
    );
  }
}

/** Responses recomputed per statement: bounds the JSON of one statement. */
const RECOMPUTE_CHUNK = 5_000;

/**
 * Rebuilds every tag of a workspace from its responses and counted signals (a database loaded
 * straight into its tables, as the benchmark does; the migration's backfill is the same query).
 *
 * @example
 * await rebuildWorkspaceTags(db, 'ws_bench');
 */
export async function rebuildWorkspaceTags(db: SqlExecutor, workspaceId: string): Promise<void> {
  await db.query('DELETE FROM response_list_tags WHERE workspace_id = $1', [workspaceId]);
  await db.query(
    `INSERT INTO response_list_tags (workspace_id, tag, created_at, response_id)
     SELECT r.workspace_id, g.tag, r.created_at, r.id FROM responses r ${TAGS_OF} WHERE r.workspace_id = $1`,
    [workspaceId],
  );
}

/**
 * A workspace's tags as they should be, derived from scratch, as sorted `response_id tag` lines
 * (what the tests compare the maintained table with).
 *
 * @example
 * await derivedTags(db, 'ws') // ['r1 rating:negative', 'r2 unrated']
 */
export async function derivedTags(db: SqlExecutor, workspaceId: string): Promise<string[]> {
  const rows = await db.query<{ line: string }>(
    `SELECT r.id || ' ' || g.tag AS line FROM responses r ${TAGS_OF} WHERE r.workspace_id = $1 ORDER BY 1`,
    [workspaceId],
  );
  return rows.map((r) => r.line);
}
