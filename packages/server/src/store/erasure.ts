/**
 * Erasure of one end user (`DELETE /v1/users/:userId`, GDPR art. 17): in one transaction, every
 * row keyed by the user or holding their id, their responses and every event on them, and what
 * was derived from those rows; the days and scores they counted in are marked for recomputation
 * so no aggregate stays traceable to them. A second erasure of the same user finds nothing.
 * The tables and how each is treated: user-data-tables.ts.
 */
import { normalizeQuery } from '@feedloop/core';
import type { SqlClient, SqlExecutor } from '../db/sql-client.js';
import { removeExperimentFacts } from './experiment-upkeep.js';
import { recomputeTags } from './response-list-tags.js';

/** What an erasure removed, per table (rows deleted or stripped). */
export type ErasureReport = Record<string, number>;

/** `"<json string of id>"` as a LIKE pattern: matches the id as a whole JSON string value, nowhere else. */
function jsonStringPattern(userId: string): string {
  return `%${JSON.stringify(userId).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

async function count(tx: SqlExecutor, sql: string, params: unknown[]): Promise<number> {
  return (await tx.query(`${sql} RETURNING 1`, params)).length;
}

/**
 * Erases a user from a workspace and returns what went, table by table (all zero: nothing was there).
 * Days older than `keepDaysFrom` are not marked for recomputation: their events are past
 * retention, and a recomputation would find nothing to count (their anonymous totals stay).
 *
 * @example
 * await eraseUser(db, ws, 'u1', new Date(Date.now() - 90 * 86_400_000)) // { responses: 2, feedback_events: 9, … }
 */
export async function eraseUser(db: SqlClient, workspaceId: string, userId: string, keepDaysFrom: Date): Promise<ErasureReport> {
  return db.transaction(async (tx) => {
    const report: ErasureReport = {};
    const p = [workspaceId, userId];
    const responses = await tx.query<{ id: string; query: string; day: string }>(
      "SELECT id, query, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM responses WHERE workspace_id = $1 AND user_id = $2",
      p,
    );
    const responseIds = responses.map((r) => r.id);
    const events = await tx.query<{ id: string; response_id: string; user_id: string | null; day: string }>(
      `SELECT id, response_id, user_id, to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM feedback_events
        WHERE workspace_id = $1 AND (user_id = $2 OR voter = $2 OR response_id = ANY ($3::text[]))`,
      [...p, responseIds],
    );
    const eventIds = events.map((e) => e.id);
    const touched = [...new Set(events.map((e) => e.response_id).filter((id) => !responseIds.includes(id)))];
    const days = [...new Set([...responses.map((r) => r.day), ...events.map((e) => e.day)])];
    const ev = [workspaceId, eventIds];

    report.feedback_events = await count(tx, 'DELETE FROM feedback_events WHERE workspace_id = $1 AND id = ANY ($2::text[])', ev);
    report.feedback_event_ids = await count(tx, 'DELETE FROM feedback_event_ids WHERE workspace_id = $1 AND id = ANY ($2::text[])', ev);
    report.feedback_fingerprints = await count(tx, 'DELETE FROM feedback_fingerprints WHERE workspace_id = $1 AND event_id = ANY ($2::text[])', ev);
    report.training_applied_events = await count(tx, 'DELETE FROM training_applied_events WHERE workspace_id = $1 AND event_id = ANY ($2::text[])', ev);
    report.pipeline_pending = await count(tx, 'DELETE FROM pipeline_pending WHERE workspace_id = $1 AND event_id = ANY ($2::text[])', ev);
    report.feedback_current_votes = await count(
      tx,
      'DELETE FROM feedback_current_votes WHERE workspace_id = $1 AND (voter = $2 OR event_id = ANY ($3::text[]) OR response_id = ANY ($4::text[]))',
      [...p, eventIds, responseIds],
    );
    const signalsGone = await tx.query<{ response_id: string }>(
      'DELETE FROM feedback_signals WHERE workspace_id = $1 AND (user_id = $2 OR event_id = ANY ($3::text[]) OR response_id = ANY ($4::text[])) RETURNING response_id',
      [...p, eventIds, responseIds],
    );
    report.feedback_signals = signalsGone.length;
    const pattern = jsonStringPattern(userId);
    // Messages about the user not yet published or delivered: their bodies name the user.
    report.pipeline_effects = await count(tx, 'DELETE FROM pipeline_effects WHERE messages::text LIKE $1', [pattern]);
    report.webhook_deliveries = await count(tx, 'DELETE FROM webhook_deliveries WHERE workspace_id = $1 AND body::text LIKE $2', [workspaceId, pattern]);
    // Experiments: take the user's responses out of their variants' sums, then their facts.
    report.experiment_response_facts = await removeExperimentFacts(tx, workspaceId, responseIds);
    report.score_dirty = await count(tx, 'DELETE FROM score_dirty WHERE workspace_id = $1 AND response_id = ANY ($2::text[])', [workspaceId, responseIds]);
    report.response_scores = await count(tx, 'DELETE FROM response_scores WHERE workspace_id = $1 AND response_id = ANY ($2::text[])', [workspaceId, responseIds]);
    // Scores of other users' responses the user voted on: their conflicts name the user until the
    // rescore recomputes them; strip those now, and mark the responses for the rescore.
    report.response_scores += await count(
      tx,
      `UPDATE response_scores SET conflicts = COALESCE((SELECT jsonb_agg(c) FROM jsonb_array_elements(conflicts) c WHERE c->>'userId' IS DISTINCT FROM $2), '[]'::jsonb)
        WHERE workspace_id = $1 AND conflicts @> jsonb_build_array(jsonb_build_object('userId', $2::text))`,
      p,
    );
    await tx.query(
      `INSERT INTO score_dirty AS d (workspace_id, response_id) SELECT $1, unnest($2::text[])
       ON CONFLICT (workspace_id, response_id) DO UPDATE SET version = d.version + 1`,
      [workspaceId, touched],
    );
    report.feedback_user_stats_daily = await count(tx, 'DELETE FROM feedback_user_stats_daily WHERE workspace_id = $1 AND user_id = $2', p);
    const queries = [...new Set(responses.map((r) => normalizeQuery(r.query)))];
    report.feedback_issue_counts = await count(tx, 'DELETE FROM feedback_issue_counts WHERE workspace_id = $1 AND query = ANY ($2::text[])', [workspaceId, queries]);
    report.feedback_issue_counts_weekly = await count(tx, 'DELETE FROM feedback_issue_counts_weekly WHERE workspace_id = $1 AND query = ANY ($2::text[])', [workspaceId, queries]);
    // Memory snapshots hold facts of events (ids, response ids, comment excerpts): the user's own,
    // and those of other users whose events on the user's responses went with them.
    const memoryUsers = [...new Set(events.map((e) => e.user_id).filter((u): u is string => u !== null))];
    report.user_memory_snapshots = await count(tx, 'DELETE FROM user_memory_snapshots WHERE workspace_id = $1 AND (user_id = $2 OR user_id = ANY ($3::text[]))', [...p, memoryUsers]);
    report.user_consent = await count(tx, 'DELETE FROM user_consent WHERE workspace_id = $1 AND user_id = $2', p);
    report.responses = await count(tx, 'DELETE FROM responses WHERE workspace_id = $1 AND id = ANY ($2::text[])', [workspaceId, responseIds]);
    // The response list's tags: the erased responses lose theirs, the others whose signals went are recomputed.
    report.response_list_tags = await count(tx, 'DELETE FROM response_list_tags WHERE workspace_id = $1 AND response_id = ANY ($2::text[])', [workspaceId, responseIds]);
    // LangSmith's feedback and child runs of the erased responses (their comments and corrections may name the user).
    report.langsmith_feedback = await count(tx, 'DELETE FROM langsmith_feedback WHERE workspace_id = $1 AND (response_id = ANY ($2::text[]) OR event_ids && $3::text[])', [workspaceId, responseIds, eventIds]);
    report.langsmith_runs = await count(tx, 'DELETE FROM langsmith_runs WHERE workspace_id = $1 AND trace_id = ANY ($2::text[])', [workspaceId, responseIds]);
    // Dataset items (issue 27) of the erased responses, and those frozen from the user's feedback (a
    // correction's text): erasure is the one change that removes rows from past dataset versions.
    report.dataset_item_changes = await count(
      tx,
      "DELETE FROM dataset_item_changes WHERE workspace_id = $1 AND (response_id = ANY ($2::text[]) OR expected_event->>'id' = ANY ($3::text[]))",
      [workspaceId, responseIds, eventIds],
    );
    // Review items (issue 27) of the erased responses, with their reservations and reviews (a
    // reviewer's correction quotes the answer): the foreign keys cascade, counted before they go.
    const itemRows = await tx.query<{ id: string }>(
      'SELECT id FROM review_items WHERE workspace_id = $1 AND (response_id = ANY ($2::text[]) OR response_b_id = ANY ($2::text[]))',
      [workspaceId, responseIds],
    );
    const itemIds = itemRows.map((r) => r.id);
    report.reviews = await count(tx, 'DELETE FROM reviews WHERE workspace_id = $1 AND item_id = ANY ($2::text[])', [workspaceId, itemIds]);
    report.review_reservations = await count(tx, 'DELETE FROM review_reservations WHERE workspace_id = $1 AND item_id = ANY ($2::text[])', [workspaceId, itemIds]);
    report.review_items = await count(tx, 'DELETE FROM review_items WHERE workspace_id = $1 AND id = ANY ($2::text[])', [workspaceId, itemIds]);
    // Evaluator calls (issue 28) about the erased responses: a pending one would send them out.
    report.evaluator_calls = await count(
      tx,
      'DELETE FROM evaluator_calls WHERE workspace_id = $1 AND (response_id = ANY ($2::text[]) OR response_b_id = ANY ($2::text[]))',
      [workspaceId, responseIds],
    );
    const erased = new Set(responseIds);
    await recomputeTags(tx, [...new Set(signalsGone.map((s) => s.response_id))].filter((id) => !erased.has(id)).map((responseId) => ({ workspaceId, responseId })));
    const keepFrom = keepDaysFrom.toISOString().slice(0, 10);
    await tx.query(
      `INSERT INTO rollup_dirty AS d (workspace_id, day) SELECT $1, x::date FROM unnest($2::text[]) x WHERE x >= $3
       ON CONFLICT (workspace_id, day) DO UPDATE SET version = d.version + 1, not_before = NULL`,
      [workspaceId, days, keepFrom],
    );
    return report;
  });
}
