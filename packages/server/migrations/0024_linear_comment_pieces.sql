-- feedloop schema 24: the comment pieces of a long text in linear time (issue 22).
-- Migration 0020's feedloop_text_grams took substr(l, i, 3) for every i: in a UTF-8 database
-- substr walks the string from its start to find character i, so a text of n characters cost
-- n²/2 steps. A 10,000-character comment took 0.6 s on Postgres and about 1 s on PGlite, inside
-- the insert that indexes it (feedback_events_comment_grams), and a batch of six held the
-- database for seconds. Long texts are now cut into characters once (string_to_array with a
-- NULL delimiter) and each piece is a character and the two after it (lead() over the
-- characters' order): linear, 17 ms for 10,000 characters. Short texts keep the substr form,
-- which costs less there (no window); both give the very same array, so the GIN index built
-- with the old body stays valid and needs no rebuild.
CREATE OR REPLACE FUNCTION feedloop_text_grams(scope text, body text) RETURNS text[]
  LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  l text := lower(body);
  h text := left(md5(scope), 8);
BEGIN
  IF length(l) <= 256 THEN
    RETURN ARRAY(SELECT h || substr(l, i, 3) FROM generate_series(1, length(l) - 2) AS i);
  END IF;
  RETURN ARRAY(
    SELECT g FROM (
      SELECT h || c || lead(c, 1) OVER w || lead(c, 2) OVER w AS g, i
        FROM unnest(string_to_array(l, NULL)) WITH ORDINALITY AS t(c, i)
      WINDOW w AS (ORDER BY i)
    ) pieces
    WHERE g IS NOT NULL
    ORDER BY i);
END
$$;
