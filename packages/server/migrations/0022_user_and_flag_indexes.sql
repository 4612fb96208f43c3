-- Schema 22: two reads that walked a whole workspace at 10 M events (docs/dashboard.md, "At 10 M
-- events"). A user's responses (GET /v1/users/:userId/data, erasure) were a scan of every
-- response of the workspace (0.44-0.65 s of 2.5 M responses; 48 ms with this index); partial, so
-- responses without a user cost nothing more to register. A document's flags (GET /v1/documents)
-- read one heap row per flag event (0.2-0.4 s warm, 8.7 s cold for 53,063 flags; 52 ms as an
-- index-only scan): the columns the count needs are carried in the index.
CREATE INDEX IF NOT EXISTS responses_user ON responses (workspace_id, user_id) WHERE user_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS feedback_events_document_flags ON feedback_events (workspace_id, target_id)
  INCLUDE (type, user_id, session_id, id)
  WHERE type IN ('flag_irrelevant', 'flag_missing') AND duplicate_of IS NULL;
