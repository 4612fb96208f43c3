-- Schema 29: score configs (issue 26 §1; docs/scores.md). A workspace's named feedback dimensions
-- (helpfulness, tone, groundedness) with a data type and range, and what a score of that name
-- maps to among feedloop's votes. Never deleted (archived instead): events keep naming them.
--   data_type: numeric | categorical | boolean.
--   min, max: a numeric config's range (null: open).
--   categories: a categorical config's [{ value, label }].
--   maps_to: thumbs (a boolean score becomes thumbs_up/thumbs_down) | rating (a 1-5 score becomes a
--     rating) | none (stored as a score).
--   weight: the score's weight in the composite response score (0: none).
CREATE TABLE IF NOT EXISTS score_configs (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name text NOT NULL,
  data_type text NOT NULL CHECK (data_type IN ('numeric', 'categorical', 'boolean')),
  min double precision,
  max double precision,
  categories jsonb,
  description text,
  maps_to text NOT NULL DEFAULT 'none' CHECK (maps_to IN ('thumbs', 'rating', 'none')),
  weight double precision NOT NULL DEFAULT 0,
  archived boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, name)
);

-- The configs every workspace starts with (core's DEFAULT_SCORE_CONFIGS; editable): the names the
-- Langfuse and LangSmith SDKs' user feedback arrives under, and feedloop's own thumbs and rating.
CREATE FUNCTION feedloop_seed_score_configs(ws text) RETURNS void LANGUAGE sql AS $$
  INSERT INTO score_configs (id, workspace_id, name, data_type, min, max, maps_to, description)
  SELECT 'sc_' || replace(gen_random_uuid()::text, '-', ''), ws, d.name, d.data_type, d.min, d.max, d.maps_to, d.description
    FROM (VALUES
      ('user-feedback', 'boolean', NULL::double precision, NULL::double precision, 'thumbs', 'Langfuse''s user feedback: 1 thumbs up, 0 thumbs down'),
      ('user_feedback', 'boolean', NULL, NULL, 'thumbs', 'User feedback: 1 thumbs up, 0 thumbs down'),
      ('user_score', 'boolean', NULL, NULL, 'thumbs', 'LangSmith''s user score: 1 thumbs up, 0 thumbs down'),
      ('thumbs', 'boolean', NULL, NULL, 'thumbs', 'A thumbs vote: 1/true up, 0/false down'),
      ('rating', 'numeric', 1, 5, 'rating', 'A 1-5 star rating')
    ) AS d (name, data_type, min, max, maps_to, description)
  ON CONFLICT (workspace_id, name) DO NOTHING
$$;

CREATE FUNCTION feedloop_seed_new_workspace() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM feedloop_seed_score_configs(NEW.id);
  RETURN NULL;
END
$$;

CREATE TRIGGER workspaces_seed_score_configs AFTER INSERT ON workspaces
  FOR EACH ROW EXECUTE FUNCTION feedloop_seed_new_workspace();

SELECT feedloop_seed_score_configs(id) FROM workspaces;
