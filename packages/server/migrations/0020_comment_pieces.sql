-- feedloop schema 20: a comment search's cost follows its matches, not the workspace's events.
-- Before, the response list's comment filter read every comment of the workspace (migration
-- 0016's comment-text index, or a scan of the events: 0.2-0.4 s at 1,000,000 events, 1.4 s when
-- nothing matched, growing with the events; docs/dashboard.md).
--
-- Comment search: PGlite has no pg_trgm, so this is its idea in core Postgres. The three-letter
-- pieces of a lower-cased text, each prefixed with a scope (the workspace), in a GIN index: a search
-- for 'refund' first asks the index for the events whose comment has every piece of 'refund' in this
-- workspace, then checks ILIKE on those alone. Its cost follows the events that hold the pieces, not
-- the workspace's events. A search under three letters has no piece and walks the list instead.
-- PL/pgSQL, not SQL: Postgres before 18 plans a SQL function's query again at every call (3x slower
-- here). GIN drops repeated pieces itself. Measured cost at ingest: docs/schema.md §8.
CREATE FUNCTION feedloop_text_grams(scope text, body text) RETURNS text[]
  LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  l text := lower(body);
BEGIN
  RETURN ARRAY(SELECT scope || ' ' || substr(l, i, 3) FROM generate_series(1, length(l) - 2) AS i);
END
$$;
CREATE INDEX feedback_events_comment_grams ON feedback_events
  USING gin (feedloop_text_grams(workspace_id, coalesce(payload->>'comment', payload->>'reason', payload->>'note')))
  WHERE coalesce(payload->>'comment', payload->>'reason', payload->>'note') IS NOT NULL AND duplicate_of IS NULL;
-- Migration 0016's comment-text index served a scan of every comment; the pieces replace it.
DROP INDEX feedback_events_comment_text;
