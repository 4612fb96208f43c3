-- The response list's "has correction" and "conflicting signals" filters (issue 27: queue rules
-- and dataset filters use the list's filters), each found through an index of its own so a rare
-- match costs a page of rows, not a walk of the workspace.
--
-- 'correction' tag in response_list_tags (migration 0019): the response has a counted correction
-- signal of a user's (a reviewer's or a judge's is counted apart, as the rating and category tags
-- are). Processing adds it with the other tags; retention and erasure recompute it
-- (store/response-list-tags.ts). Backfilled here from the counted signals.
INSERT INTO response_list_tags (workspace_id, tag, created_at, response_id)
SELECT DISTINCT r.workspace_id, 'correction', r.created_at, r.id
  FROM feedback_signals s
  JOIN responses r ON r.workspace_id = s.workspace_id AND r.id = s.response_id
 WHERE s.status = 'counted' AND s.type = 'correction'
   AND NOT EXISTS (SELECT 1 FROM feedback_event_ids k
        JOIN feedback_events e ON e.workspace_id = k.workspace_id AND e.seq = k.seq AND e.received_at = k.received_at
       WHERE k.workspace_id = s.workspace_id AND k.id = s.event_id AND e.source IN ('review', 'judge'))
ON CONFLICT DO NOTHING;

-- conflicting=true: the responses whose composite score found conflicting signals
-- (response_scores.conflicts, written by rescoring). Few responses have any: a partial index
-- lists them, so the filter starts from it.
CREATE INDEX response_scores_conflicting ON response_scores (workspace_id, response_id) WHERE conflicts <> '[]'::jsonb;
