-- Schema 33: the LangSmith drop-in (issue 26 §3; docs/compat.md "LangSmith").
--
-- langsmith_runs: the trace of each child run, so feedback on a child run (the SDK's run id of
-- an llm call inside a chain) lands on its trace's response. Root runs are not stored: a root
-- run's id is its trace's and its response's id. One row per child run: kept with the workspace.
CREATE TABLE IF NOT EXISTS langsmith_runs (
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  run_id text NOT NULL,
  trace_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, run_id)
);

-- langsmith_feedback: each LangSmith feedback as the SDK reads it back (GET /feedback/:id, the
-- listing by run), and the feedloop events that carry it now (event_ids: the current revision's
-- score, comment or correction events; a PATCH retracts them and writes the next revision's).
--   state: { key, score, value, comment, correction, feedback_source } as last written.
--   deleted_at: set by DELETE; the row stays so a repeated DELETE is answered, and its events
--   stay in the log marked retracted.
CREATE TABLE IF NOT EXISTS langsmith_feedback (
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  feedback_id text NOT NULL,
  run_id text NOT NULL,
  response_id text NOT NULL,
  feedback_key text NOT NULL,
  state jsonb NOT NULL,
  event_ids text[] NOT NULL,
  revision integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  modified_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  PRIMARY KEY (workspace_id, feedback_id)
);

-- GET /langsmith/feedback?run=: a run's feedback, oldest first (the SDK pages by offset).
CREATE INDEX IF NOT EXISTS langsmith_feedback_run ON langsmith_feedback (workspace_id, run_id, created_at);
