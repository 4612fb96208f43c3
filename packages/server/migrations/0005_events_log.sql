-- feedloop schema 5: feedback_events becomes an append-only log, partitioned by month of receipt,
-- ready for retention (a month is dropped as a partition, never deleted row by row).
-- Measured before the change (docs/schema.md): the flush's INSERT spends most of its time
-- maintaining indexes (COPY into a one-index copy of the table is 4x faster than into the table
-- with its seven), and every index here was kept for all history. So:
--
-- * Idempotency by event id moves to feedback_event_ids (workspace_id, id) -> (received_at, seq),
--   a narrow key table: a partitioned table can only have unique keys that contain the partition
--   key, and a global unique index over all history is what retention must not keep. Its rows
--   are deleted with their month's partition (the id window = the retention of the log): a retry
--   of a stored id is answered `duplicate` for as long as its event is kept. It is also the way
--   from an id to its event: (received_at, seq) names the partition and the row, so the log needs
--   no index by id of its own.
-- * Content-dedup fingerprints move to feedback_fingerprints, rows kept only until their dedup
--   window has passed (expires_at; the sweep deletes the rest), instead of a partial index over
--   every event ever stored.
-- * The only update the log takes is superseded_by on a replaced vote (a mark, never a move:
--   received_at, the partition key, never changes).
-- * Current votes: feedback_current_votes (below).
--
-- The indexes left on the log, each per partition (dropped with it), and the reads they serve:
--   feedback_events_workspace_seq (workspace_id, seq): GET /v1/feedback, newest first, and its
--     cursor; with `type`, `since`, `until` filters (few rows skipped: those are common values);
--     and every read of one event by its id, through feedback_event_ids (seq, and received_at to
--     prune to one partition): the pipeline's claim (load-claimed.ts), a poison event moved aside
--     (process-events.ts), the rollup's and the rescore's join from signals to events, the
--     writer's update of a replaced vote.
--   feedback_events_response (workspace_id, response_id, seq): GET /v1/feedback?responseId= and
--     GET /v1/responses/:id (its feedback), the session summary's events of the session's
--     responses.
--   feedback_events_user (workspace_id, user_id, seq), partial: GET /v1/feedback?userId=.
--   feedback_events_session (workspace_id, session_id, seq), partial: GET /v1/feedback?sessionId=
--     and the session summary (GET /api/v1/feedback/summary).
-- The writer's lookup of a voter's current vote in a slot (replace it, or be replaced by it) is
-- served by feedback_current_votes, one row a voter and slot, not by an index on the log: a
-- lookup that spans all history would probe (and be planned over) every partition.
-- The pipeline keeps its outbox (pipeline_pending): the profile shows its insert at 6 % of the
-- flush's INSERT, so consuming the log by sequence is not worth its watermark.

ALTER TABLE feedback_events RENAME TO feedback_events_v4;
ALTER INDEX feedback_events_pkey RENAME TO feedback_events_v4_pkey;
ALTER INDEX feedback_events_workspace_seq RENAME TO feedback_events_v4_workspace_seq;
ALTER INDEX feedback_events_response RENAME TO feedback_events_v4_response;
ALTER INDEX feedback_events_user RENAME TO feedback_events_v4_user;
ALTER INDEX feedback_events_session RENAME TO feedback_events_v4_session;
ALTER INDEX feedback_events_content RENAME TO feedback_events_v4_content;
ALTER INDEX feedback_events_current_votes RENAME TO feedback_events_v4_current_votes;

-- A plain sequence, not an identity column: partitioned tables take identity columns only from
-- Postgres 17, and this must run on 15 and on PGlite alike.
CREATE SEQUENCE feedback_events_seq AS bigint;

CREATE TABLE feedback_events (
  seq bigint NOT NULL DEFAULT nextval('feedback_events_seq'),
  workspace_id text NOT NULL,
  id text NOT NULL,
  response_id text NOT NULL,
  type text NOT NULL,
  source text NOT NULL,
  user_id text,
  session_id text,
  target_id text,
  payload jsonb NOT NULL,
  metadata jsonb,
  edit_distance smallint,
  occurred_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL,
  content_hash text,
  voter text,
  vote_slot text,
  duplicate_of text,
  superseded_by text,
  verified boolean NOT NULL DEFAULT true
) PARTITION BY RANGE (received_at);
ALTER SEQUENCE feedback_events_seq OWNED BY feedback_events.seq;

-- Rows of a month nobody created a partition for land here, so an insert never fails; the sweep
-- moves them into their month's partition when it creates it.
CREATE TABLE feedback_events_default PARTITION OF feedback_events DEFAULT;

CREATE INDEX feedback_events_workspace_seq ON feedback_events (workspace_id, seq);
CREATE INDEX feedback_events_response ON feedback_events (workspace_id, response_id, seq);
CREATE INDEX feedback_events_user ON feedback_events (workspace_id, user_id, seq) WHERE user_id IS NOT NULL;
CREATE INDEX feedback_events_session ON feedback_events (workspace_id, session_id, seq) WHERE session_id IS NOT NULL;

-- Creates the monthly partition (UTC months) of each month from `first` on, `months` of them,
-- that does not exist yet; rows of such a month already in the default partition move into it.
-- Called by this migration and by the pipeline's sweep (partitions made ahead of time).
CREATE FUNCTION feedloop_ensure_event_partitions(first timestamptz, months integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  lo timestamptz;
  hi timestamptz;
  part text;
  made integer := 0;
BEGIN
  FOR i IN 0 .. months - 1 LOOP
    lo := (date_trunc('month', first AT TIME ZONE 'UTC') + make_interval(months => i)) AT TIME ZONE 'UTC';
    hi := (date_trunc('month', first AT TIME ZONE 'UTC') + make_interval(months => i + 1)) AT TIME ZONE 'UTC';
    part := 'feedback_events_' || to_char(lo AT TIME ZONE 'UTC', 'YYYY_MM');
    CONTINUE WHEN to_regclass(part) IS NOT NULL;
    -- Several processes sweep: the first to find a month missing creates it, the others wait
    -- for it and find it there.
    PERFORM pg_advisory_xact_lock(7263501890);
    CONTINUE WHEN to_regclass(part) IS NOT NULL;
    EXECUTE format('CREATE TABLE %I (LIKE feedback_events INCLUDING DEFAULTS)', part);
    EXECUTE format('INSERT INTO %I SELECT * FROM feedback_events_default WHERE received_at >= %L AND received_at < %L', part, lo, hi);
    EXECUTE format('DELETE FROM feedback_events_default WHERE received_at >= %L AND received_at < %L', lo, hi);
    EXECUTE format('ALTER TABLE feedback_events ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', part, lo, hi);
    made := made + 1;
  END LOOP;
  RETURN made;
END
$$;

-- The months the stored events fall in, this month and the next two.
SELECT feedloop_ensure_event_partitions(m, 1)
  FROM (SELECT DISTINCT date_trunc('month', received_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS m FROM feedback_events_v4) AS months;
SELECT feedloop_ensure_event_partitions(now(), 3);

INSERT INTO feedback_events (seq, workspace_id, id, response_id, type, source, user_id, session_id, target_id, payload, metadata,
                             edit_distance, occurred_at, received_at, content_hash, voter, vote_slot, duplicate_of, superseded_by, verified)
SELECT seq, workspace_id, id, response_id, type, source, user_id, session_id, target_id, payload, metadata,
       edit_distance, occurred_at, received_at, content_hash, voter, vote_slot, duplicate_of, superseded_by, verified
  FROM feedback_events_v4;
SELECT setval('feedback_events_seq', COALESCE((SELECT max(seq) FROM feedback_events_v4), 0) + 1, false);

-- The id key of every stored event. received_at tells which partition holds it (and which ids go
-- when that partition is dropped), seq which row.
CREATE TABLE feedback_event_ids (
  workspace_id text NOT NULL,
  id text NOT NULL,
  received_at timestamptz NOT NULL,
  seq bigint NOT NULL,
  PRIMARY KEY (workspace_id, id)
);
INSERT INTO feedback_event_ids (workspace_id, id, received_at, seq) SELECT workspace_id, id, received_at, seq FROM feedback_events_v4;

-- Fingerprints of the counted-content events (not themselves duplicates) whose dedup window may
-- still be open: a new event with the same fingerprint and an occurred_at within the window of
-- this one is a duplicate. expires_at = receipt + the workspace's window, after which the sweep
-- deletes the row (no index: the delete scans a table that holds only the open windows).
CREATE TABLE feedback_fingerprints (
  workspace_id text NOT NULL,
  content_hash text NOT NULL,
  occurred_at timestamptz NOT NULL,
  event_id text NOT NULL,
  expires_at timestamptz NOT NULL
);
-- The writer's duplicate lookup (one probe per new event that has a fingerprint).
CREATE INDEX feedback_fingerprints_lookup ON feedback_fingerprints (workspace_id, content_hash, occurred_at);
-- Windows are at most a day (workspace settings): older fingerprints are closed already.
INSERT INTO feedback_fingerprints (workspace_id, content_hash, occurred_at, event_id, expires_at)
SELECT e.workspace_id, e.content_hash, e.occurred_at, e.id,
       e.received_at + COALESCE((w.settings->>'dedupWindowSeconds')::float8, 10) * interval '1 second'
  FROM feedback_events_v4 e JOIN workspaces w ON w.id = e.workspace_id
 WHERE e.content_hash IS NOT NULL AND e.duplicate_of IS NULL AND e.received_at > now() - interval '1 day';

-- Each voter's current vote per response and slot (what the log's votes not replaced and not
-- duplicates are), with what ranks it (verified, occurred_at) and where its row is (seq,
-- received_at). When retention drops a month, the current votes stored in it go with it.
CREATE TABLE feedback_current_votes (
  workspace_id text NOT NULL,
  response_id text NOT NULL,
  voter text NOT NULL,
  vote_slot text NOT NULL,
  event_id text NOT NULL,
  occurred_at timestamptz NOT NULL,
  verified boolean NOT NULL,
  received_at timestamptz NOT NULL,
  seq bigint NOT NULL,
  PRIMARY KEY (workspace_id, response_id, voter, vote_slot)
);
INSERT INTO feedback_current_votes (workspace_id, response_id, voter, vote_slot, event_id, occurred_at, verified, received_at, seq)
SELECT DISTINCT ON (workspace_id, response_id, voter, vote_slot)
       workspace_id, response_id, voter, vote_slot, id, occurred_at, verified, received_at, seq
  FROM feedback_events_v4
 WHERE vote_slot IS NOT NULL AND voter IS NOT NULL AND superseded_by IS NULL AND duplicate_of IS NULL
 ORDER BY workspace_id, response_id, voter, vote_slot, verified DESC, occurred_at DESC, seq DESC;

DROP TABLE feedback_events_v4;
