-- feedloop schema 1: workspaces, API keys, responses, feedback events.
-- Every row carries its workspace and every key below starts with it, so each query is scoped
-- by workspace and served by an index.

CREATE TABLE workspaces (
  id text PRIMARY KEY,
  tenant_id text NOT NULL DEFAULT 'default',
  name text NOT NULL,
  settings jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, name)
);

-- Keys are stored as SHA-256 hashes of the secret: high-entropy random keys need no slow hash,
-- and a lookup by hash is one index probe. `prefix` is shown in listings to tell keys apart.
CREATE TABLE api_keys (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('secret', 'public')),
  key_hash text NOT NULL UNIQUE,
  prefix text NOT NULL,
  name text,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX api_keys_workspace ON api_keys (workspace_id);

CREATE TABLE responses (
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  id text NOT NULL,
  session_id text,
  user_id text,
  query text NOT NULL,
  answer text NOT NULL,
  sources jsonb NOT NULL DEFAULT '[]'::jsonb,
  context_document_ids jsonb NOT NULL DEFAULT '[]'::jsonb,
  context_token_count integer,
  model text,
  agent text,
  query_type text,
  experiment_id text,
  variant text,
  trace_id text,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX responses_session ON responses (workspace_id, session_id) WHERE session_id IS NOT NULL;

-- seq orders events for cursor pagination and for the pipeline's outbox.
-- No foreign key to responses: the writer checks that each event's response exists in its
-- workspace before inserting, and a foreign key would take a key-share lock on the response row
-- for every event, which turns many concurrent votes on one response into multixact contention.
-- duplicate_of: a content duplicate inside the dedup window, kept (so a retry of its own id is
--   still recognised) but never counted.
-- superseded_by: a vote replaced by the same voter's newer vote in the same slot.
CREATE TABLE feedback_events (
  seq bigint GENERATED ALWAYS AS IDENTITY,
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
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX feedback_events_workspace_seq ON feedback_events (workspace_id, seq);
CREATE INDEX feedback_events_response ON feedback_events (workspace_id, response_id, seq);
CREATE INDEX feedback_events_user ON feedback_events (workspace_id, user_id, seq) WHERE user_id IS NOT NULL;
CREATE INDEX feedback_events_session ON feedback_events (workspace_id, session_id, seq) WHERE session_id IS NOT NULL;
CREATE INDEX feedback_events_content ON feedback_events (workspace_id, content_hash, occurred_at)
  WHERE content_hash IS NOT NULL AND duplicate_of IS NULL;
CREATE INDEX feedback_events_current_votes ON feedback_events (workspace_id, response_id, voter, vote_slot)
  WHERE vote_slot IS NOT NULL AND superseded_by IS NULL AND duplicate_of IS NULL;
