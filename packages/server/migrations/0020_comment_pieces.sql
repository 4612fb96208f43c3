-- feedloop schema 20: a comment search's cost follows its matches, not the workspace's events.
-- Before, the response list's comment filter read every comment of the workspace (migration
-- 0016's comment-text index, or a scan of the events: 0.2-0.4 s at 1,000,000 events, 1.4 s when
-- nothing matched, growing with the events; docs/dashboard.md).
--
-- PGlite has no pg_trgm, so this is its method in core Postgres. The three-letter pieces of a
-- lower-cased text, each prefixed with 8 hex digits of the md5 of a scope (the workspace), in a GIN
-- index: a search for 'refund' first asks the index for the events whose comment has every piece
-- of 'refund' in this workspace, then checks ILIKE (and the workspace) on those alone. Its cost
-- follows the events that hold the pieces, not the workspace's events. A search under three
-- letters has no piece and walks the list instead (store/response-list.ts).
-- Why so: PL/pgSQL, because Postgres before 18 plans a SQL function's query again at every call
-- (three times slower here); a hashed scope, because a workspace id (a UUID) in every key made
-- inserts a third slower; a shared hash only costs a recheck. GIN drops repeated pieces itself.
-- What it costs at ingest: docs/schema.md §9.
CREATE FUNCTION feedloop_text_grams(scope text, body text) RETURNS text[]
  LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  l text := lower(body);
  h text := left(md5(scope), 8);
BEGIN
  RETURN ARRAY(SELECT h || substr(l, i, 3) FROM generate_series(1, length(l) - 2) AS i);
END
$$;
CREATE INDEX feedback_events_comment_grams ON feedback_events
  USING gin (feedloop_text_grams(workspace_id, coalesce(payload->>'comment', payload->>'reason', payload->>'note')))
  WHERE coalesce(payload->>'comment', payload->>'reason', payload->>'note') IS NOT NULL AND duplicate_of IS NULL;
-- Migration 0016's comment-text index served a scan of every comment; the pieces replace it.
DROP INDEX feedback_events_comment_text;
