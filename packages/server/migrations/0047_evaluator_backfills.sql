-- Backfills of evaluators (issue 28): judge what already exists. A backfill walks the responses
-- (pointwise) or pairwise review items (pairwise) in [since, until) a page at a time; its cursor
-- is stored after each page, so a restarted server resumes where it stopped. Calls it queues
-- conflict with any call of the same (evaluator, version, item), so an item is judged once per
-- evaluator version however many backfills cover it.
--   cursor_at, cursor_id: the last item considered (created_at, id order).
--   considered: items walked; queued: calls it made (the rest were sampled out, filtered out,
--   or judged already); status: running, done (walked to the end or reached `max_items`).
CREATE TABLE evaluator_backfills (
  id text PRIMARY KEY,
  workspace_id text NOT NULL,
  evaluator_id text NOT NULL,
  evaluator_version integer NOT NULL,
  since timestamptz NOT NULL,
  until timestamptz NOT NULL,
  max_items integer NOT NULL,
  cursor_at timestamptz,
  cursor_id text,
  considered integer NOT NULL DEFAULT 0,
  queued integer NOT NULL DEFAULT 0,
  status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done')),
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
-- Serves the tick's look-up of running backfills and an evaluator's listing.
CREATE INDEX evaluator_backfills_evaluator ON evaluator_backfills (evaluator_id, id);
CREATE INDEX evaluator_backfills_running ON evaluator_backfills (created_at) WHERE status = 'running';
