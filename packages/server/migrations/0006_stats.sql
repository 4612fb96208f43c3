-- Stats (issue 9): what GET /v1/stats and GET /api/rag/feedback/stats read. Every table here is
-- written only by the daily rollup, which recomputes a (workspace, day) whole in one transaction,
-- so each stays exact and idempotent like feedback_metrics_daily.

-- The additive sums behind each rollup row's rates (counts, numerators, denominators, sums and
-- their sample sizes; core StatsSums). Rates cannot be added across days, sums can: a 90-day rate
-- is sum(numerators) / sum(denominators), not a mean of daily rates. jsonb, not 20 columns: the
-- reader adds whole rows and never filters on a sum.
-- positive_category_counts: Phase 4.1 byCategory.positive (error_category_counts stays the
-- negative counts, which the alerts read).
ALTER TABLE feedback_metrics_daily
  ADD COLUMN positive_category_counts jsonb NOT NULL DEFAULT '{}'::jsonb,
  ADD COLUMN sums jsonb;

-- Rows rolled up before this migration have no sums, and their response totals counted
-- responses with feedback: mark their days dirty so the next rollup recomputes them.
INSERT INTO rollup_dirty AS d (workspace_id, day)
SELECT DISTINCT workspace_id, day FROM feedback_metrics_daily
ON CONFLICT (workspace_id, day) DO UPDATE SET version = d.version + 1;

-- The stats cells: a day's sums per combination of the response's agent, model, query type,
-- experiment and variant ('' for none: key columns cannot be null). They answer what the
-- one-dimension rollup cannot: combined filters, experimentId, a bare variant across experiments.
-- No user column: crossed with users, nearly every event would be a cell of its own.
-- Primary key: the rollup deletes and rewrites a (workspace, day) and a range read is
-- (workspace, day BETWEEN); both are a prefix of it.
CREATE TABLE feedback_stats_cells (
  workspace_id text NOT NULL,
  day date NOT NULL,
  agent text NOT NULL,
  model text NOT NULL,
  query_type text NOT NULL,
  experiment_id text NOT NULL,
  variant text NOT NULL,
  sums jsonb NOT NULL,
  PRIMARY KEY (workspace_id, day, agent, model, query_type, experiment_id, variant)
);

-- A day's sums per user (the feedback's user for events, the response's for registrations), for
-- the userId filter. Primary key: the rollup rewrites a (workspace, day).
CREATE TABLE feedback_user_stats_daily (
  workspace_id text NOT NULL,
  day date NOT NULL,
  user_id text NOT NULL,
  sums jsonb NOT NULL,
  PRIMARY KEY (workspace_id, day, user_id)
);
-- A userId filter reads one user's days of a range; the primary key would make it read every
-- user's rows of every day of the range.
CREATE INDEX feedback_user_stats_daily_user ON feedback_user_stats_daily (workspace_id, user_id, day);

-- Phase 4.1 topIssues: negative ratings per normalized query (core normalizeQuery) per day.
-- Primary key: the rollup rewrites a (workspace, day); the top issues of a range group the
-- (workspace, day BETWEEN) prefix by query.
CREATE TABLE feedback_issue_counts (
  workspace_id text NOT NULL,
  day date NOT NULL,
  query text NOT NULL,
  negatives integer NOT NULL,
  PRIMARY KEY (workspace_id, day, query)
);

-- The rollup reads the responses registered on its day (the correction and escalation rates'
-- population); without this it would scan the workspace's responses for every day rolled up.
-- session_id is carried so the quality alerts' window read (0007: registered responses and
-- distinct sessions of the last hours) is an index-only scan.
CREATE INDEX responses_created ON responses (workspace_id, created_at) INCLUDE (session_id);

-- The /metrics gauges read every workspace's whole-workspace rows of the last 7 days on a scrape;
-- the primary key leads with workspace_id, so without this that read scans the whole table.
CREATE INDEX feedback_metrics_daily_all_day ON feedback_metrics_daily (day) WHERE dimension = 'all';
