/**
 * Seeds a workspace with many responses and events in a few statements (generate_series inside
 * the database), with the pipeline's signals and scores already in place, for the export
 * streaming test and `npm run bench export`. Not the ingest path: this measures reads only.
 */
import type { SqlExecutor } from '../src/db/sql-client.js';

/** The shape of a seeded workspace. */
export interface ExportSeed {
  responses: number;
  /** Events a response: a thumbs vote, a rating, a correction or comment, an error category. */
  eventsPerResponse: 4;
  /** Responses share a question in groups of this many (a normalized prompt group). */
  groupSize: number;
}

/**
 * Writes `responses` responses and 4 events each to `workspaceId`: thumbs up on two responses in
 * three and down on the third, ratings of 1-5 stars, a correction on every fourth response (a
 * comment on the rest), error categories; each event counted with weight 1 and a learning
 * signal, each response scored. Answers are ~250 characters.
 *
 * @example
 * await seedExportData(db, 'ws-1', { responses: 250_000, eventsPerResponse: 4, groupSize: 2 }); // 1 M events
 */
export async function seedExportData(db: SqlExecutor, workspaceId: string, seed: ExportSeed): Promise<void> {
  await db.query(
    `INSERT INTO responses (workspace_id, id, query, answer, model, agent, variant, context_document_ids, context_token_count, created_at)
     SELECT $1, 'r' || g, 'Question number ' || (g / $3) || '?', 'Answer ' || g || ': ' || repeat('lorem ipsum ', 20),
            'm' || (g % 3), 'agent', CASE WHEN g % 2 = 0 THEN 'A' ELSE 'B' END, '["doc:1"]'::jsonb, 1000, now() - make_interval(secs => g)
     FROM generate_series(1, $2::int) g`,
    [workspaceId, seed.responses, seed.groupSize],
  );
  await db.query(
    `INSERT INTO feedback_events (workspace_id, id, response_id, type, source, user_id, payload, occurred_at, received_at)
     SELECT $1, 'e' || g || '-' || k, 'r' || g, t.type, 'explicit', 'u' || (g % 97), t.payload, now(), now()
     FROM generate_series(1, $2::int) g
     CROSS JOIN generate_series(1, 4) k
     CROSS JOIN LATERAL (SELECT
       CASE k WHEN 1 THEN CASE WHEN g % 3 = 0 THEN 'thumbs_down' ELSE 'thumbs_up' END
              WHEN 2 THEN 'rating'
              WHEN 3 THEN CASE WHEN g % 4 = 0 THEN 'correction' ELSE 'comment' END
              ELSE 'error_categories' END AS type,
       CASE k WHEN 1 THEN '{}'::jsonb
              WHEN 2 THEN jsonb_build_object('rating', g % 5 + 1)
              WHEN 3 THEN CASE WHEN g % 4 = 0 THEN jsonb_build_object('corrected', 'Corrected answer ' || g || ': ' || repeat('dolor sit ', 20))
                               ELSE jsonb_build_object('comment', 'fine') END
              ELSE '{"categories":["hallucination"]}'::jsonb END AS payload) t`,
    [workspaceId, seed.responses],
  );
  await db.query(
    `INSERT INTO feedback_signals (workspace_id, event_id, response_id, user_id, type, status, weight, value, learning_signal, occurred_at)
     SELECT e.workspace_id, e.id, e.response_id, e.user_id, e.type, 'counted', 1, 0.5,
            -- Stored as processing stores it: the context's ids are the row's own columns (store/stored-learning-signal.ts).
            jsonb_build_object('signal_type', e.type, 'expected_output', e.payload->>'corrected', 'reward', 0.5),
            e.occurred_at
     FROM feedback_events e WHERE e.workspace_id = $1`,
    [workspaceId],
  );
  await db.query(
    `INSERT INTO response_scores (workspace_id, response_id, score, confidence, weight_sum, signal_count, computed_at)
     SELECT $1, 'r' || g, ((g % 7) - 3) / 3.0, 0.8, 4, 4, now() FROM generate_series(1, $2::int) g`,
    [workspaceId, seed.responses],
  );
  await db.exec('ANALYZE responses; ANALYZE feedback_events; ANALYZE feedback_signals; ANALYZE response_scores');
}
