-- Schema 52: the feedback writer's statement as a function (issue 21). A flush of the group
-- commit took three round trips on Postgres (BEGIN with the response locks, this INSERT, COMMIT),
-- and the locks were held from the first to the last of them: while a flush's answer waited for a
-- busy event loop, every flush on the same responses waited too. Called as one autocommit
-- statement, a flush is one round trip, and the locks are released the moment it commits.
--
-- The locks first, then the write: a PL/pgSQL function takes a new snapshot for each statement it
-- runs (it is VOLATILE), so the INSERT's duplicate and vote checks see every commit made before
-- its locks were granted, as the INSERT after `BEGIN; SELECT pg_advisory_xact_lock(…)` did.
-- `lock_buckets` must be ascending (db/response-locks.ts), so writers never deadlock; empty on
-- PGlite, whose one connection has one writer.
--
-- What the INSERT does (store/feedback-writer.ts calls it with `batch`, the rows of one flush):
-- - each id is claimed in the key table `feedback_event_ids` (ON CONFLICT DO NOTHING) with the
--   event's seq: an id stored before is a retry, and its event is not written again;
-- - a content duplicate of a stored event inside its window gets `duplicate_of` (a probe of
--   `feedback_fingerprints`, which holds only the open windows; duplicates inside the batch come
--   marked); each new counted event leaves its fingerprint there, to expire with its window;
-- - a vote outranked by the voter's current vote in its slot gets `superseded_by`; current votes
--   live in `feedback_current_votes`, one row a voter and slot;
-- - a current vote a new vote outranks is marked replaced by it in the log, and the new vote
--   takes its place as current. A vote outranks another when it is verified and the other is not,
--   or both are alike and it is newer: an unverified (public-key) vote never replaces a verified one;
-- - each new event is put in the pipeline's outbox (`pipeline_pending`).
-- - an event whose user's consent ingest did not read (`consent_unread`, ingest/privacy-screen.ts)
--   is held back, nothing of it stored, when its user has a consent row: ingest then reads that
--   consent and submits it again. An opt-out committed before this statement's snapshot is seen.
-- Lookups are LATERAL index probes fenced with OFFSET 0: json_to_recordset is always guessed at
-- 100 rows, and plain joins scanned whole indexes.
-- Returns the keys stored (a retry's is not), each with whether it is a content duplicate, and the
-- keys held back (`held`).
CREATE FUNCTION feedloop_write_feedback(batch json, lock_class integer, lock_buckets integer[])
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
         pending AS (INSERT INTO pipeline_pending (workspace_id, event_id) SELECT workspace_id, id FROM ins RETURNING 1)
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
