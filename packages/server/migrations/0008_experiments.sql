-- feedloop schema 8: A/B experiments (issue 9).
--
-- What a team declares about an experiment (PUT /v1/experiments/:id). An experiment needs no row
-- to be analysed: responses carry experiment_id and variant, and an undeclared experiment takes
-- the defaults (control "control", even split, satisfaction, 100 units per variant).
CREATE TABLE experiments (
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  id text NOT NULL,
  control text NOT NULL,
  -- Expected traffic share per variant (any scale); NULL: an even split over the variants seen.
  weights jsonb,
  metric text NOT NULL CHECK (metric IN ('satisfaction', 'correction_rate', 'composite_score')),
  min_sample integer NOT NULL CHECK (min_sample >= 2),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);

-- The experiment read sums its responses' votes, corrections and scores per variant. Without this
-- index that read scans every response of the workspace (responses has only its primary key and
-- the session index); with it the read touches the experiment's responses alone, and the list
-- (GET /v1/experiments) walks only responses that belong to some experiment. Partial, because most
-- responses belong to none: the index costs nothing on their inserts. variant is in the key so the
-- per-variant response counts (the sample-ratio test) come from the index.
CREATE INDEX responses_experiment ON responses (workspace_id, experiment_id, variant) WHERE experiment_id IS NOT NULL;
