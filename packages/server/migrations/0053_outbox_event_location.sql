-- Schema 53: an outbox row says where its event lies in the log (issue 21). The processing claim
-- found each event through the key table (`feedback_event_ids`: its id to its seq and received_at)
-- and then its row in the log: two index probes an event. With the seq and received_at in the
-- outbox row, the claim goes to the row at once (docs/benchmarks.md, "Sixteenth session": on
-- PGlite the lookup of 50,000 events took 16.6-20.6 µs an event through the key table,
-- 12.5-13.3 µs without it).
--
-- Every writer of the outbox gives both: this function and a retraction, which puts its event
-- back (store/feedback-retraction.ts). A row whose event is not in the log is deleted here: a
-- claim found nothing for it before either, and deleted it.
ALTER TABLE pipeline_pending ADD COLUMN seq bigint, ADD COLUMN received_at timestamptz;
UPDATE pipeline_pending p SET seq = k.seq, received_at = k.received_at
  FROM feedback_event_ids k WHERE k.workspace_id = p.workspace_id AND k.id = p.event_id;
DELETE FROM pipeline_pending WHERE seq IS NULL;
ALTER TABLE pipeline_pending ALTER COLUMN seq SET NOT NULL, ALTER COLUMN received_at SET NOT NULL;

-- The writer of schema 52, whose outbox insert now carries the two columns; nothing else changed.
-- CREATE OR REPLACE resets the function's settings, so its plan cache mode is set again below.
CREATE OR REPLACE FUNCTION feedloop_write_feedback(batch json, lock_class integer, lock_buckets integer[])
  RETURNS TABLE (ws text, id text, duplicate boolean, held boolean)
  LANGUAGE plpgsql VOLATILE AS $fn$
#variable_conflict use_column
BEGIN
  PERFORM pg_advisory_xact_lock(lock_class, b) FROM unnest(lock_buckets) AS b;
  RETURN QUERY
    WITH b AS MATERIALIZED (
           SELECT x.*, COALESCE(x.consent_unread, false)
                       AND EXISTS (SELECT 1 FROM user_consent c WHERE c.workspace_id = x.ws AND c.user_id = x.user_id) AS held
             FROM json_to_recordset($1) AS x(window_ms double precision, ws text, id text, response_id text, type text, source text, user_id text, session_id text, target_id text, payload jsonb, metadata jsonb, edit_distance smallint, occurred_at timestamptz, received_at timestamptz, content_hash text, voter text, vote_slot text, duplicate_of text, superseded_by text, verified boolean, sample_weight real, consent_unread boolean)),
         n AS NOT MATERIALIZED (SELECT * FROM b WHERE NOT b.held),
         ids AS (
           INSERT INTO feedback_event_ids (workspace_id, id, received_at, seq)
           SELECT n.ws, n.id, n.received_at, nextval('feedback_events_seq') FROM n ORDER BY n.ws, n.id
           ON CONFLICT (workspace_id, id) DO NOTHING
           RETURNING workspace_id, id, seq),
         ins AS (
           INSERT INTO feedback_events (seq, workspace_id, id, response_id, type, source, user_id, session_id, target_id, payload, metadata,
                                        edit_distance, occurred_at, received_at, content_hash, voter, vote_slot, duplicate_of, superseded_by, verified, sample_weight)
           SELECT ids.seq, n.ws, n.id, n.response_id, n.type, n.source, n.user_id, n.session_id, n.target_id, n.payload, n.metadata,
                  n.edit_distance, n.occurred_at, n.received_at, n.content_hash, n.voter, n.vote_slot, d.dup,
                  COALESCE(n.superseded_by, CASE WHEN d.dup IS NULL THEN v.newer END), n.verified, n.sample_weight
             FROM n
             JOIN ids ON ids.workspace_id = n.ws AND ids.id = n.id
             CROSS JOIN LATERAL (
               SELECT COALESCE(n.duplicate_of, (
                 SELECT f.event_id FROM feedback_fingerprints f
                  WHERE n.content_hash IS NOT NULL AND f.workspace_id = n.ws AND f.content_hash = n.content_hash AND f.event_id <> n.id
                    AND f.occurred_at BETWEEN n.occurred_at - n.window_ms * interval '1 millisecond'
                                          AND n.occurred_at + n.window_ms * interval '1 millisecond'
                  LIMIT 1)) AS dup OFFSET 0) AS d
             CROSS JOIN LATERAL (
               SELECT max(c.event_id) AS newer FROM (SELECT c.event_id FROM feedback_current_votes c
                WHERE n.vote_slot IS NOT NULL AND n.superseded_by IS NULL AND c.workspace_id = n.ws AND c.response_id = n.response_id AND c.voter = n.voter AND c.vote_slot = n.vote_slot AND c.event_id <> n.id AND ((c.verified AND NOT n.verified) OR (c.verified = n.verified AND c.occurred_at > n.occurred_at)) OFFSET 0) AS c) AS v
            ORDER BY n.ws, n.id
           RETURNING seq, workspace_id, id, response_id, voter, vote_slot, occurred_at, received_at, content_hash, duplicate_of, superseded_by, verified),
         current AS (SELECT * FROM ins WHERE vote_slot IS NOT NULL AND duplicate_of IS NULL AND superseded_by IS NULL),
         replaced AS (
           UPDATE feedback_events AS f SET superseded_by = older.by
             FROM (SELECT c.workspace_id AS ws, c.seq, c.received_at, n.id AS by
                     FROM current AS n
                     CROSS JOIN LATERAL (SELECT c.workspace_id, c.seq, c.received_at FROM feedback_current_votes AS c
                                          WHERE c.workspace_id = n.workspace_id AND c.response_id = n.response_id AND c.voter = n.voter AND c.vote_slot = n.vote_slot AND c.event_id <> n.id AND NOT ((c.verified AND NOT n.verified) OR (c.verified = n.verified AND c.occurred_at > n.occurred_at)) OFFSET 0) AS c) AS older
            WHERE f.workspace_id = older.ws AND f.seq = older.seq AND f.received_at = older.received_at
           RETURNING f.id),
         votes AS (
           INSERT INTO feedback_current_votes AS c (workspace_id, response_id, voter, vote_slot, event_id, occurred_at, verified, received_at, seq)
           SELECT workspace_id, response_id, voter, vote_slot, id, occurred_at, verified, received_at, seq FROM current
            ORDER BY workspace_id, response_id, voter, vote_slot
           ON CONFLICT (workspace_id, response_id, voter, vote_slot) DO UPDATE
              SET event_id = excluded.event_id, occurred_at = excluded.occurred_at, verified = excluded.verified,
                  received_at = excluded.received_at, seq = excluded.seq
           RETURNING 1),
         fingerprints AS (
           INSERT INTO feedback_fingerprints (workspace_id, content_hash, occurred_at, event_id, expires_at)
           SELECT i.workspace_id, i.content_hash, i.occurred_at, i.id, i.received_at + n.window_ms * interval '1 millisecond'
             FROM ins i JOIN n ON n.ws = i.workspace_id AND n.id = i.id
            WHERE i.content_hash IS NOT NULL AND i.duplicate_of IS NULL
           RETURNING 1),
         pending AS (INSERT INTO pipeline_pending (workspace_id, event_id, seq, received_at) SELECT workspace_id, id, seq, received_at FROM ins RETURNING 1)
         SELECT workspace_id AS ws, id, duplicate_of IS NOT NULL AS duplicate, false AS held FROM ins
         UNION ALL
         SELECT b.ws, b.id, false, true FROM b WHERE b.held;
END
$fn$;

-- On a Postgres server, one plan for every call: a plan made for each call's own values was the
-- same plan made again (single-event ingest: a flush of ~22 events took 4.6-5.1 ms with a plan a
-- call, 3.7-3.9 ms with the cached one). Not on PGlite, whose statements are planned for their
-- values (db/pglite-thread.ts: its generic plans, made without statistics, were the slower ones).
DO $$
BEGIN
  IF version() NOT LIKE '%PGlite%' THEN
    ALTER FUNCTION feedloop_write_feedback(json, integer, integer[]) SET plan_cache_mode = force_generic_plan;
  END IF;
END
$$;
