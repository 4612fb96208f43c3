-- Schema 30: retracted feedback (issue 26; docs/scores.md#retraction). A retracted event stays
-- in the log, marked; the pipeline reverses what it counted (its signal becomes `dropped` with
-- reason `retracted`, the live counters, rollups, scores and tags follow), and every read of
-- current feedback leaves it out as it leaves out replaced votes.
--   retracted_at: when it was retracted (null: not retracted).
--   retraction_reason: the caller's reason, if any.
ALTER TABLE feedback_events ADD COLUMN IF NOT EXISTS retracted_at timestamptz;
ALTER TABLE feedback_events ADD COLUMN IF NOT EXISTS retraction_reason text;

-- Named scores (issue 26 §1, docs/scores.md): a `score` event's name, or the score a mapped vote
-- carries (`payload.score`), indexed for the stats by score, the response list's score filters
-- and score alerts. Partial: only events that carry a score pay for it at ingest. The expression
-- is store/score-reads.ts's SCORE_NAME, written the same way so the planner matches it.
CREATE INDEX IF NOT EXISTS feedback_events_score_name ON feedback_events
  (workspace_id, (CASE WHEN type = 'score' THEN payload->>'name' ELSE payload->'score'->>'name' END), occurred_at)
  WHERE (CASE WHEN type = 'score' THEN payload->>'name' ELSE payload->'score'->>'name' END) IS NOT NULL;
