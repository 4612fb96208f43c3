-- Schema 23: user memory snapshots (docs/memory.md, "How a read stays fast"). GET
-- /v1/users/:userId/context re-derived every fact of the user's newest 2,000 events (payload and
-- answer decoded, regular expressions over both) on every request: 254 ms p50 at 2,000 events.
-- A snapshot keeps each event's facts (core's memoryFacts, JSON) up to an event seq; a read
-- takes the snapshot, checks that the events it covers are still the ones the log holds, and
-- derives facts only for the events committed since. It is a cache of the log, never the only
-- copy: a snapshot that fails its check, or of an older facts version, is rebuilt from the log.
--   through_seq: the newest event folded in.
--   low_seq: the oldest event kept when the snapshot holds the user's newest 2,000 (the read's
--     limit); 0 when it holds every event the user had.
--   event_count, seq_sum: how many events it holds and the sum of their seq. The read recomputes
--     both over the log's eligible events in [low_seq, through_seq]; a difference means an event
--     there was superseded, erased, dropped by retention or committed late, and the snapshot is
--     rebuilt.
-- Retention and erasure delete the snapshots of the users whose events they delete (a snapshot
-- would be rebuilt on its next read anyway; this keeps no copy of those events' facts meanwhile).
-- No index beyond the primary key: the only read is by (workspace, user); writes happen on reads
-- (a first read, a rebuild, or 64 new events), never on ingest.
CREATE TABLE IF NOT EXISTS user_memory_snapshots (
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  user_id text NOT NULL,
  facts_version integer NOT NULL,
  through_seq bigint NOT NULL,
  low_seq bigint NOT NULL,
  event_count integer NOT NULL,
  seq_sum numeric NOT NULL,
  facts text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, user_id)
);
