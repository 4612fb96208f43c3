-- feedloop schema 16: the dashboard's response list (GET /v1/responses). The list walks a
-- workspace's responses newest first on 0006's responses_created (workspace_id, created_at) and
-- stops after a page of matches; each dimension filter has
-- an index that starts with it so a rare agent, model or variant does not walk the whole workspace.
CREATE INDEX responses_agent_created ON responses (workspace_id, agent, created_at DESC) WHERE agent IS NOT NULL;
CREATE INDEX responses_model_created ON responses (workspace_id, model, created_at DESC) WHERE model IS NOT NULL;
CREATE INDEX responses_variant_created ON responses (workspace_id, experiment_id, variant, created_at DESC) WHERE variant IS NOT NULL;
-- A score range reads the scores in order instead of probing every response.
CREATE INDEX response_scores_score ON response_scores (workspace_id, score) WHERE score IS NOT NULL;
-- A comment search (ILIKE '%text%') reads this index alone: only events with a comment, reason
-- or note are in it, with the text and the response, so it scans those texts instead of every
-- event's payload (250,000 responses / 1,000,000 events: see docs/dashboard.md).
CREATE INDEX feedback_events_comment_text ON feedback_events
  (workspace_id, (coalesce(payload->>'comment', payload->>'reason', payload->>'note')), response_id)
  WHERE coalesce(payload->>'comment', payload->>'reason', payload->>'note') IS NOT NULL AND duplicate_of IS NULL;
