-- Schema 41: datasets (issue 27; docs/datasets.md). A dataset is a named, versioned set of
-- responses, each frozen with its expected output when it is added. Append-only: a change is a
-- new version and new rows; no row of a version is ever rewritten, so every version stays readable.
--   datasets: the name (unique per workspace) and the latest version with its item count (the one
--     row a change locks, so a dataset's changes are serialized and its versions dense).
CREATE TABLE IF NOT EXISTS datasets (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  latest_version integer NOT NULL DEFAULT 0,
  item_count integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, name)
);

-- One row per version: when, what changed (responses added and removed, and how: ids, a filter, a
-- review queue, a removal) and the items it holds. Read newest first by GET /v1/datasets/:id.
CREATE TABLE IF NOT EXISTS dataset_versions (
  workspace_id text NOT NULL,
  dataset_id text NOT NULL REFERENCES datasets (id) ON DELETE CASCADE,
  version integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  via text NOT NULL CHECK (via IN ('responseIds', 'filter', 'queue', 'remove')),
  added integer NOT NULL,
  removed integer NOT NULL,
  item_count integer NOT NULL,
  queue_id text,
  actor_key_id text,
  PRIMARY KEY (workspace_id, dataset_id, version)
);

-- One row per response per version it entered or left the dataset in. A version's items are the
-- responses whose newest row at or before it is an 'add'. An 'add' row holds the frozen item: the
-- response as it was (query, answer, context, model, agent, variant, composite score), its
-- expected output, where that came from, and the event it came from (what the exports build on).
--   prompt_key: the normalized prompt's md5, as the exports' (store/export-reads.ts): items are
--     read in (prompt_key, response_id) order, so a version's prompt groups come whole.
-- The primary key serves "is it in the latest version" (a change's check); dataset_item_changes_page
-- serves the reads of a version, a page at a time.
CREATE TABLE IF NOT EXISTS dataset_item_changes (
  workspace_id text NOT NULL,
  dataset_id text NOT NULL REFERENCES datasets (id) ON DELETE CASCADE,
  response_id text NOT NULL,
  version integer NOT NULL,
  op text NOT NULL CHECK (op IN ('add', 'remove')),
  prompt_key text NOT NULL,
  response jsonb,
  expected_output text,
  expected_source text CHECK (expected_source IN ('correction', 'approved')),
  expected_event jsonb,
  PRIMARY KEY (workspace_id, dataset_id, response_id, version)
);
CREATE INDEX IF NOT EXISTS dataset_item_changes_page ON dataset_item_changes (workspace_id, dataset_id, prompt_key, response_id, version DESC);
