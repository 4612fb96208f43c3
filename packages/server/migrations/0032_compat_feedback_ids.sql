-- feedloop schema 32: feedback ids of the drop-in protocols (issue 26, docs/compat.md).
-- A Langfuse score id (and a LangSmith feedback id) is an upsert key: sent again with another
-- value, the value is replaced. A feedback event is immutable, so each version of a score is an
-- event of its own, and this table says which event holds a score's current value (the one GET
-- shows and DELETE retracts; the earlier one is retracted when a new one is stored).
--   protocol: 'langfuse' (others may follow); external_id: the id as the client sent it (Langfuse
--   allows 800 characters); event_id: the current event; deleted_at: retracted by DELETE.
-- Ids only, no end-user data: an erased user's event leaves a row that points at nothing.
CREATE TABLE IF NOT EXISTS compat_feedback_ids (
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  protocol text NOT NULL,
  external_id text NOT NULL,
  event_id text NOT NULL,
  response_id text NOT NULL,
  deleted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, protocol, external_id)
);
