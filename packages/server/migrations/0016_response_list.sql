-- feedloop schema 16: the dashboard's response list (GET /v1/responses). The list walks a
-- workspace's responses newest first on 0006's responses_created (workspace_id, created_at) and
-- stops after a page of matches; each dimension filter has
-- an index that starts with it so a rare agent, model or variant does not walk the whole workspace.
CREATE INDEX responses_agent_created ON responses (workspace_id, agent, created_at DESC) WHERE agent IS NOT NULL;
CREATE INDEX responses_model_created ON responses (workspace_id, model, created_at DESC) WHERE model IS NOT NULL;
CREATE INDEX responses_variant_created ON responses (workspace_id, experiment_id, variant, created_at DESC) WHERE variant IS NOT NULL;
-- A score range reads the scores in order instead of probing every response.
CREATE INDEX response_scores_score ON response_scores (workspace_id, score) WHERE score IS NOT NULL;
