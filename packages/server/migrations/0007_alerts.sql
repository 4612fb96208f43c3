-- feedloop schema 7: quality alerts (docs/alerts.md). Hourly counts the processing transaction
-- keeps, so a rolling window is a sum of at most 168 + 14 × 24 small rows and never a scan of
-- events; the workspaces' rule sets; the alerts and their lifecycle; the tick claim that lets one
-- evaluator of many run each tick; and the format of a webhook's body.

-- Per workspace and UTC hour (of the event's occurred_at, like the daily rollup's day): counted
-- rating events by polarity, corrections, escalations, and negatives per error category. Added to
-- in the processing transaction, so the claim that makes processing exactly once makes these
-- counts exactly once too (a replayed batch claims nothing and adds nothing).
CREATE TABLE feedback_metrics_hourly (
  workspace_id text NOT NULL,
  hour timestamptz NOT NULL,
  rated integer NOT NULL DEFAULT 0,
  positive integer NOT NULL DEFAULT 0,
  negative integer NOT NULL DEFAULT 0,
  corrections integer NOT NULL DEFAULT 0,
  escalations integer NOT NULL DEFAULT 0,
  negative_categories jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- The key serves the upsert of the processing transaction and the evaluator's range read of
  -- one workspace's window and baseline (workspace_id = $1 AND hour >= $2).
  PRIMARY KEY (workspace_id, hour)
);
-- The evaluator lists the workspaces with counts in the last window (hour >= $1, workspace_id
-- read from the index alone), and the upkeep deletes hours older than the longest window plus
-- baseline (hour < $1); both without reading the whole table.
CREATE INDEX feedback_metrics_hourly_hour ON feedback_metrics_hourly (hour, workspace_id);

-- The registered responses and distinct sessions of a window, for the correction and escalation
-- rates (distinct counts do not add up by hour), are an index-only range scan of 0006's
-- responses_created (workspace_id, created_at) INCLUDE (session_id): no index of its own.

-- A workspace's rules, as PUT /v1/alert-rules stored them (defaults applied). No row: the
-- defaults of core's defaultAlertRules().
CREATE TABLE alert_rules (
  workspace_id text PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
  rules jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- One row per alert: pending → firing → resolved, or pending → cleared (deleted: it never fired).
CREATE TABLE alerts (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  rule_id text NOT NULL,
  fingerprint text NOT NULL,
  kind text NOT NULL,
  severity text NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'firing', 'resolved')),
  labels jsonb NOT NULL DEFAULT '{}'::jsonb,
  metric text NOT NULL,
  value double precision NOT NULL,
  threshold double precision NOT NULL,
  sample integer NOT NULL,
  message text NOT NULL,
  active_at timestamptz NOT NULL,
  fired_at timestamptz,
  resolved_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- One open alert per rule and fingerprint (a second evaluator could never open another), and the
-- evaluator's read of a workspace's open alerts and of the workspaces that have any.
CREATE UNIQUE INDEX alerts_open ON alerts (workspace_id, rule_id, fingerprint) WHERE state IN ('pending', 'firing');
-- GET /v1/alerts: a workspace's alerts newest first (ids are uuid v7, so id order is time order).
CREATE INDEX alerts_list ON alerts (workspace_id, id);

-- One row per evaluation tick, named by its start in epoch milliseconds (floor(now / interval) ×
-- interval, so ticks of another interval setting never collide with these): the evaluator that
-- inserts it evaluates, any other finds it taken (INSERT … ON CONFLICT DO NOTHING). The key is the
-- conflict target, and serves the upkeep's delete of old ticks (tick < $1).
CREATE TABLE alert_ticks (
  tick bigint PRIMARY KEY,
  evaluated_at timestamptz NOT NULL DEFAULT now()
);

-- How a webhook's body is written: feedloop's own event, an Alertmanager webhook body, or a Slack
-- incoming-webhook message (docs/webhooks.md).
ALTER TABLE webhooks ADD COLUMN format text NOT NULL DEFAULT 'feedloop' CHECK (format IN ('feedloop', 'alertmanager', 'slack'));
