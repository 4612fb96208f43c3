-- feedloop schema 19: the response list's rare-match filters find their responses directly.
-- Profiled on bench/response-list.bench.ts (Postgres, 250,000 responses / 1,000,000 events; see
-- docs/dashboard.md): the list walked `responses (workspace_id, created_at)` newest first and
-- probed each response's signals (rating, category) or events (comment) until a page matched, so a
-- filter that matches few or no responses read the whole workspace: an absent category probed
-- 250,000 responses' 1,000,000 signals (1.7 M buffer hits, 0.9-2.9 s), `rating=unrated` with every
-- response rated hash-anti-joined every signal (0.6-1.8 s), and a comment search scanned every
-- event (0.2-0.4 s, 1.4 s when nothing matched; migration 0020).
--
-- response_list_tags: one row per response and tag it has, in the response's creation order:
--   'unrated'              the response has no counted signal (written with the response);
--   'rating:positive|negative'  it has a counted signal of that polarity;
--   'category:<name>'      it has a counted signal with that error category.
-- Processing adds a response's tags (and takes away 'unrated') in its transaction; retention and
-- erasure, which delete signals, recompute the tags of the responses they touched
-- (store/response-list-tags.ts). A tag filter walks (workspace_id, tag, created_at) newest first:
-- a page costs a page of rows however rare the tag, and an absent tag costs one index probe.
CREATE TABLE response_list_tags (
  workspace_id text NOT NULL,
  tag text NOT NULL,
  created_at timestamptz NOT NULL,
  response_id text NOT NULL,
  PRIMARY KEY (workspace_id, tag, created_at, response_id)
);
-- Recomputing one response's tags (retention, erasure), and a tag probed per response when
-- another filter drives the walk.
CREATE INDEX response_list_tags_response ON response_list_tags (workspace_id, response_id);

INSERT INTO response_list_tags (workspace_id, tag, created_at, response_id)
SELECT r.workspace_id, g.tag, r.created_at, r.id
  FROM responses r
 CROSS JOIN LATERAL (
   SELECT 'rating:' || s.polarity FROM feedback_signals s
    WHERE s.workspace_id = r.workspace_id AND s.response_id = r.id AND s.status = 'counted' AND s.polarity IN ('positive', 'negative')
   UNION
   SELECT 'category:' || c FROM feedback_signals s, unnest(s.categories) AS c
    WHERE s.workspace_id = r.workspace_id AND s.response_id = r.id AND s.status = 'counted'
   UNION
   SELECT 'unrated' WHERE NOT EXISTS (
     SELECT 1 FROM feedback_signals s WHERE s.workspace_id = r.workspace_id AND s.response_id = r.id AND s.status = 'counted')
 ) AS g(tag);
