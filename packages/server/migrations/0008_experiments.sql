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

-- Reads must not grow with the experiment: the pipeline keeps what each response adds to its
-- variant (experiment_response_facts, written when the rescore recomputes the response from its
-- current signals) and the per-variant sums of those facts (experiment_variant_totals), moved by
-- the difference between a response's new and previous facts in the same transaction. An
-- experiment's read is then its variants' rows plus a count of its responses per variant from
-- responses_experiment. A response enters the facts once it carries an experiment and a variant.
CREATE TABLE experiment_response_facts (
  workspace_id text NOT NULL,
  response_id text NOT NULL,
  experiment_id text NOT NULL,
  variant text NOT NULL,
  rated boolean NOT NULL,
  positive boolean NOT NULL,
  corrected boolean NOT NULL,
  edits integer NOT NULL,
  edit_distance_sum double precision NOT NULL,
  score double precision,
  PRIMARY KEY (workspace_id, response_id)
);

CREATE TABLE experiment_variant_totals (
  workspace_id text NOT NULL,
  experiment_id text NOT NULL,
  variant text NOT NULL,
  rated bigint NOT NULL,
  positive bigint NOT NULL,
  corrected bigint NOT NULL,
  edits bigint NOT NULL,
  edit_distance_sum double precision NOT NULL,
  scored bigint NOT NULL,
  score_sum double precision NOT NULL,
  score_sum_squares double precision NOT NULL,
  PRIMARY KEY (workspace_id, experiment_id, variant)
);

-- Backfill from what the pipeline has already counted (the same rules as the rescore's: counted
-- signals without replaced votes; ratings are thumbs_up, thumbs_down, rating, rate_usefulness).
INSERT INTO experiment_response_facts (workspace_id, response_id, experiment_id, variant, rated, positive, corrected, edits,
                                       edit_distance_sum, score)
SELECT r.workspace_id, r.id, r.experiment_id, r.variant,
       COALESCE(f.up + f.down > 0, false), COALESCE(f.up > f.down, false), COALESCE(f.corrections > 0, false),
       COALESCE(f.edits, 0), COALESCE(f.edit_sum, 0), sc.score
  FROM responses r
  LEFT JOIN (
    SELECT s.workspace_id, s.response_id,
           count(*) FILTER (WHERE s.type IN ('thumbs_up', 'thumbs_down', 'rating', 'rate_usefulness') AND s.polarity = 'positive') AS up,
           count(*) FILTER (WHERE s.type IN ('thumbs_up', 'thumbs_down', 'rating', 'rate_usefulness') AND s.polarity = 'negative') AS down,
           count(*) FILTER (WHERE s.type = 'correction') AS corrections,
           count(e.edit_distance) FILTER (WHERE s.type IN ('correction', 'edit')) AS edits,
           sum(e.edit_distance) FILTER (WHERE s.type IN ('correction', 'edit')) AS edit_sum
      FROM feedback_signals s
      JOIN feedback_event_ids k ON k.workspace_id = s.workspace_id AND k.id = s.event_id
      JOIN feedback_events e ON e.workspace_id = k.workspace_id AND e.seq = k.seq AND e.received_at = k.received_at
                            AND e.superseded_by IS NULL
     WHERE s.status = 'counted'
     GROUP BY s.workspace_id, s.response_id
  ) f ON f.workspace_id = r.workspace_id AND f.response_id = r.id
  LEFT JOIN response_scores sc ON sc.workspace_id = r.workspace_id AND sc.response_id = r.id
 WHERE r.experiment_id IS NOT NULL AND r.variant IS NOT NULL AND (f.response_id IS NOT NULL OR sc.response_id IS NOT NULL);

INSERT INTO experiment_variant_totals (workspace_id, experiment_id, variant, rated, positive, corrected, edits, edit_distance_sum,
                                       scored, score_sum, score_sum_squares)
SELECT workspace_id, experiment_id, variant, count(*) FILTER (WHERE rated), count(*) FILTER (WHERE positive),
       count(*) FILTER (WHERE corrected), sum(edits), sum(edit_distance_sum), count(score), COALESCE(sum(score), 0),
       COALESCE(sum(score * score), 0)
  FROM experiment_response_facts
 GROUP BY workspace_id, experiment_id, variant;
