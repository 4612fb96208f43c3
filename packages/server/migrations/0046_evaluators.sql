-- Automated judges (issue 28; docs/evaluators.md). An evaluator is an HTTP endpoint a team runs;
-- feedloop POSTs it responses (or pairwise review items) and records its answers as feedback
-- events of source `judge`.
--
-- evaluators: one row per evaluator, soft-deleted (its calls and events stay readable).
--   version: bumped when what changes answers changes (url, kind, output, score_config_id, filter);
--     an item is judged once per version.
--   secret: stored as given, as webhooks store theirs: every call is signed with it.
CREATE TABLE evaluators (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name text NOT NULL,
  url text NOT NULL,
  secret text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('pointwise', 'pairwise')),
  output text NOT NULL CHECK (output IN ('thumbs', 'rating', 'score')),
  score_config_id text,
  sample double precision NOT NULL CHECK (sample >= 0 AND sample <= 1),
  filter jsonb NOT NULL DEFAULT '{}'::jsonb,
  timeout_ms integer NOT NULL,
  rate_per_minute integer NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  version integer NOT NULL DEFAULT 1,
  -- Pairwise: the review items up to this id were considered (item ids grow with time).
  pairwise_cursor text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
-- Serves the listing and the dispatch's look-up of a workspace's live evaluators.
CREATE INDEX evaluators_workspace ON evaluators (workspace_id) WHERE deleted_at IS NULL;

-- evaluator_calls: one row per (evaluator, version, item): the outbox of calls, their log, and the
-- dead letters. status: pending (waiting for its next attempt), done (answered, event written),
-- dead (gave up: attempts used, a refusal no retry fixes, or an answer that is not one).
--   item_key: the response id (pointwise) or the review item id (pairwise).
--   origin: new (a new response or item), backfill (backfill_id names it), retry (by hand).
CREATE TABLE evaluator_calls (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id text NOT NULL,
  evaluator_id text NOT NULL,
  evaluator_version integer NOT NULL,
  item_key text NOT NULL,
  response_id text NOT NULL,
  response_b_id text,
  origin text NOT NULL CHECK (origin IN ('new', 'backfill')),
  backfill_id text,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'dead')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_until timestamptz,
  last_attempt_at timestamptz,
  last_status_code integer,
  last_error text,
  latency_ms integer,
  event_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  UNIQUE (evaluator_id, evaluator_version, item_key)
);
-- Serves the dispatch's claim of due calls.
CREATE INDEX evaluator_calls_due ON evaluator_calls (next_attempt_at) WHERE status = 'pending';
-- Serves GET /v1/evaluators/:id/calls (newest first) and the per-minute budget count.
CREATE INDEX evaluator_calls_log ON evaluator_calls (evaluator_id, id);
-- Serves the per-minute budget: the attempts an evaluator started in the last minute.
CREATE INDEX evaluator_calls_recent ON evaluator_calls (evaluator_id, last_attempt_at) WHERE last_attempt_at IS NOT NULL;

-- The weight rule (docs/evaluators.md, "Weight"): the evaluator's kappa against the human labels
-- over the last 30 days, its n, and the factor its events weigh with in the composite score
-- (0.3 while kappa >= 0.6 with n >= 50, else 0), refreshed by the evaluators tick.
ALTER TABLE evaluators ADD COLUMN weight_factor double precision NOT NULL DEFAULT 0;
ALTER TABLE evaluators ADD COLUMN weight_kappa double precision;
ALTER TABLE evaluators ADD COLUMN weight_n integer NOT NULL DEFAULT 0;
ALTER TABLE evaluators ADD COLUMN weight_checked_at timestamptz;
