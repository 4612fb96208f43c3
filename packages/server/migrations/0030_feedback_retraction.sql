-- Schema 30: retracted feedback (issue 26; docs/scores.md#retraction). A retracted event stays
-- in the log, marked; the pipeline reverses what it counted (its signal becomes `dropped` with
-- reason `retracted`, the live counters, rollups, scores and tags follow), and every read of
-- current feedback leaves it out as it leaves out replaced votes.
--   retracted_at: when it was retracted (null: not retracted).
--   retraction_reason: the caller's reason, if any.
ALTER TABLE feedback_events ADD COLUMN IF NOT EXISTS retracted_at timestamptz;
ALTER TABLE feedback_events ADD COLUMN IF NOT EXISTS retraction_reason text;

