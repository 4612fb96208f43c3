-- Schema 26: targets registered with their content (issue 24, ADR-0012 end to end; docs/targets.md).
-- PUT /v1/targets/:id and the MCP tool register_target store what feedloop needs to turn a label
-- correction into an NLI sample (an edge's fragment text is the premise, its claim's text the
-- hypothesis) and to recompute a claim's confidence from its edges. Content written by the
-- client's agent, not by end users: no user id is kept here.
--   kind: fragment | claim | edge | page.
--   text: a fragment's, claim's or page's content (null for an edge).
--   fragment_id, claim_id, relation, confidence: an edge's ends and the model's label (null for
--     the other kinds; an edge always names both ends).
CREATE TABLE IF NOT EXISTS registered_targets (
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  target_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('fragment', 'claim', 'edge', 'page')),
  text text,
  fragment_id text,
  claim_id text,
  relation text,
  confidence double precision CHECK (confidence IS NULL OR (confidence >= 0 AND confidence <= 1)),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, target_id),
  CHECK (kind <> 'edge' OR (fragment_id IS NOT NULL AND claim_id IS NOT NULL))
);

-- A claim's edges, for its confidence.
CREATE INDEX IF NOT EXISTS registered_targets_claim ON registered_targets (workspace_id, claim_id) WHERE kind = 'edge';
