-- feedloop schema 10: training-data exports.
-- Exports read a workspace's responses grouped by normalized prompt (trimmed, runs of whitespace
-- made one space, lower-cased), so that contrast pairs (answers to the same question) and dedup
-- are worked out one group at a time and the stream holds one page, never the workspace.
-- This index serves that order and its keyset pagination: (workspace, prompt key, id) > cursor.
-- md5 keeps entries small: a query is up to the text limit, a btree entry is at most ~2.7 kB.
-- The expression is the one the export's query orders by (store/export-reads.ts): keep them equal.
CREATE INDEX responses_prompt_key ON responses (workspace_id, md5(lower(regexp_replace(btrim(query), '\s+', ' ', 'g'))), id);
