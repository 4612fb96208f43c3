-- feedloop schema 13: privacy and the data lifecycle (issue 11, docs/privacy.md).

-- New workspaces default to implicitConsent = 'required' (ADR-004: implicit signals only from
-- users who opted in). Workspaces that existed before this migration collected implicit signals
-- without asking; they keep doing so ('assumed': the host app obtained consent, opt-outs apply)
-- until their owner changes the setting, so an upgrade breaks no running integration.
UPDATE workspaces SET settings = settings || '{"implicitConsent": "assumed"}'::jsonb
 WHERE NOT settings ? 'implicitConsent';

-- Each end user's consent per signal source and per event type (PUT /v1/users/:userId/consent).
-- NULL: the user said nothing about it (the workspace's implicitConsent decides for implicit
-- signals; explicit feedback and outcomes are collected unless refused).
CREATE TABLE user_consent (
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  user_id text NOT NULL,
  explicit boolean,
  implicit boolean,
  outcome boolean,
  types jsonb NOT NULL DEFAULT '{}'::jsonb,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, user_id)
);

-- The audit log (GET /v1/audit): erasures, consent changes, key and settings changes. It never
-- holds an end user's id in clear: `subject` is HMAC-SHA-256(user id) under the deployment's
-- audit key (privacy_keys, or FEEDLOOP_AUDIT_KEY), so an erased user's entry stays without
-- naming them, and someone who knows an id can still check it was erased.
CREATE TABLE audit_log (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id text NOT NULL,
  at timestamptz NOT NULL DEFAULT now(),
  action text NOT NULL,
  actor_key_id text,
  subject text,
  details jsonb NOT NULL DEFAULT '{}'::jsonb
);
-- GET /v1/audit: a workspace's entries newest first (id order is time order).
CREATE INDEX audit_log_workspace ON audit_log (workspace_id, id);

-- Deployment-wide secrets made on first use (the audit log's HMAC key), when no environment
-- variable supplies them.
CREATE TABLE privacy_keys (
  name text PRIMARY KEY,
  secret text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Sampling (implicitSampleRate): a kept implicit event carries 1 / rate so counts and rates
-- computed from the sample estimate the whole. NULL: not sampled (weight 1).
ALTER TABLE feedback_events ADD COLUMN sample_weight real;
ALTER TABLE feedback_signals ADD COLUMN sample_weight real;
