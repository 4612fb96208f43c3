-- feedloop schema 2: the processing pipeline.
-- An event is processed exactly once: the row in feedback_signals is the mark, written in the same
-- transaction as every database effect of processing (response score, document tally, embedded live
-- counters, rollup marks, webhook deliveries). Effects outside the database (Redis counters, the
-- stream) go through pipeline_effects, an outbox applied after commit and idempotent on its id.

-- What the pipeline made of each event. status: counted (it counts), dropped (a content duplicate
-- or a replaced vote: kept for the record, never counted), failed (a stage threw: moved aside with
-- its error so it never blocks the rest).
CREATE TABLE feedback_signals (
  workspace_id text NOT NULL,
  event_id text NOT NULL,
  response_id text NOT NULL,
  user_id text,
  session_id text,
  type text NOT NULL,
  status text NOT NULL CHECK (status IN ('counted', 'dropped', 'failed')),
  drop_reason text,
  error text,
  polarity text,
  severity text,
  categories text[] NOT NULL DEFAULT '{}',
  signal_class text,
  value double precision,
  weight double precision,
  first_pass boolean,
  learning_signal jsonb,
  occurred_at timestamptz NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, event_id)
);
CREATE INDEX feedback_signals_response ON feedback_signals (workspace_id, response_id) WHERE status = 'counted';
-- The rollup's day scan. It does not lead with workspace_id on purpose: on a fresh table without
-- statistics the planner took a (workspace_id, occurred_at) index for per-response lookups and
-- scanned the whole workspace for each response rescored (2 ms a response at 10,000 signals).
CREATE INDEX feedback_signals_day ON feedback_signals (occurred_at) WHERE status = 'counted';
CREATE INDEX feedback_signals_failed ON feedback_signals (workspace_id, processed_at) WHERE status = 'failed';

-- The outbox: every stored event waits here until a processing transaction claims it (deletes its
-- row, with SKIP LOCKED, so two workers never take the same event). Ingest inserts into it in the
-- same statement as the event; the sweep re-enqueues rows a queue lost.
CREATE TABLE pipeline_pending (
  workspace_id text NOT NULL,
  event_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, event_id)
);
-- No index on created_at: every index here costs ingest and processing on each event, and the
-- sweep's scan is of a table that holds only what is in flight (or what an outage left).
INSERT INTO pipeline_pending (workspace_id, event_id) SELECT workspace_id, id FROM feedback_events;

-- Effects to apply outside the database after the processing transaction commits. A row is deleted
-- once all its parts are applied; what a crash leaves behind, the sweep applies again.
CREATE TABLE pipeline_effects (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  counters jsonb,
  messages jsonb,
  counters_done boolean NOT NULL DEFAULT false,
  messages_done boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Live counters of the embedded profile (in production they are Redis hashes): per workspace, UTC
-- day of receipt and field (total, type:<type>, polarity:<polarity>, severity:<severity>).
CREATE TABLE live_counters (
  workspace_id text NOT NULL,
  day date NOT NULL,
  field text NOT NULL,
  value bigint NOT NULL,
  PRIMARY KEY (workspace_id, day, field)
);

-- Responses whose composite score must be recomputed (a processed event touched them), versioned
-- like rollup_dirty: the rescore job recomputes each once, however many events arrived since.
CREATE TABLE score_dirty (
  workspace_id text NOT NULL,
  response_id text NOT NULL,
  version bigint NOT NULL DEFAULT 1,
  PRIMARY KEY (workspace_id, response_id)
);

-- Each response's composite quality from all its current signals.
CREATE TABLE response_scores (
  workspace_id text NOT NULL,
  response_id text NOT NULL,
  score double precision,
  confidence double precision NOT NULL,
  weight_sum double precision NOT NULL,
  signal_count integer NOT NULL,
  conflicts jsonb NOT NULL DEFAULT '[]'::jsonb,
  computed_at timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, response_id)
);

-- ADR-016 updateContextEffectiveness: how responses that used a document fared.
CREATE TABLE document_effectiveness (
  workspace_id text NOT NULL,
  document_id text NOT NULL,
  positive integer NOT NULL DEFAULT 0,
  negative integer NOT NULL DEFAULT 0,
  neutral integer NOT NULL DEFAULT 0,
  weighted_value double precision NOT NULL DEFAULT 0,
  weight double precision NOT NULL DEFAULT 0,
  error_category_counts jsonb NOT NULL DEFAULT '{}'::jsonb,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, document_id)
);

-- Days whose rollup must be recomputed (a processed event fell on them). Marks are versioned, not
-- locked: a rollup reads a mark, computes, and deletes it only if its version is unchanged, so a
-- long rollup never holds a lock that processing waits on, and an event processed meanwhile
-- (which bumps the version) keeps the day dirty.
CREATE TABLE rollup_dirty (
  workspace_id text NOT NULL,
  day date NOT NULL,
  version bigint NOT NULL DEFAULT 1,
  marked_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, day)
);

-- ADR-016 feedback_metrics_daily plus the Feedback-and-RLHF rates, per workspace and day, for the
-- whole workspace (dimension 'all', value '') and per agent, model, query_type, variant, category.
-- Rates and averages of scores are percentages 0-100.
CREATE TABLE feedback_metrics_daily (
  workspace_id text NOT NULL,
  day date NOT NULL,
  dimension text NOT NULL,
  dimension_value text NOT NULL,
  total_events integer NOT NULL,
  total_responses integer NOT NULL,
  total_sessions integer NOT NULL,
  positive_ratings integer NOT NULL,
  negative_ratings integer NOT NULL,
  skipped_ratings integer NOT NULL,
  first_pass_acceptance_rate numeric(5, 2),
  average_edit_distance numeric(5, 2),
  error_category_counts jsonb NOT NULL,
  avg_accuracy_score numeric(5, 2),
  avg_completeness_score numeric(5, 2),
  avg_style_match_score numeric(5, 2),
  positive_rate numeric(5, 2),
  correction_rate numeric(5, 2),
  escalation_rate numeric(5, 2),
  avg_response_time_ms double precision,
  avg_value double precision,
  computed_at timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, day, dimension, dimension_value)
);

-- Webhook subscriptions. The secret is kept as given: it is needed to sign each delivery.
CREATE TABLE webhooks (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  url text NOT NULL,
  events text[] NOT NULL,
  secret text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX webhooks_workspace ON webhooks (workspace_id) WHERE deleted_at IS NULL;

-- One row per (webhook, message): created with the processing transaction, so a message is
-- delivered to a webhook at most once after a 2xx. status: pending, delivered, failed (gave up).
CREATE TABLE webhook_deliveries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  webhook_id text NOT NULL,
  workspace_id text NOT NULL,
  message_id text NOT NULL,
  event_type text NOT NULL,
  body jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_until timestamptz,
  last_status_code integer,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  UNIQUE (webhook_id, message_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (workspace_id, webhook_id, id);
