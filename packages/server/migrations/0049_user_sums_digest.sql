-- A digest of each user's sums of a day (issue 21): the rollup of a busy day recomputes every
-- user's sums, but between two rollups of today only the users with new feedback change. It
-- compares each user's digest with the stored one and writes only the rows that changed: writing
-- all of them (33,000 users, 13 MB of JSON to parse) held the embedded database's one connection
-- for 0.6-0.9 s every rollup, and every request waited behind it (docs/benchmarks.md, "Eleventh
-- session"). Rows written before this migration have none, and are rewritten by their day's next
-- rollup.
ALTER TABLE feedback_user_stats_daily ADD COLUMN digest text;
