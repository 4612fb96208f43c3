-- The rollup reads a day's counted signals in pages keyed by (occurred_at, event_id) (issue 21,
-- store/day-rollups.ts). On the index by occurred_at alone, events that share a timestamp (a batch
-- sent with one time, an import) were all read again by every page: a day of 50,000 such events
-- read 25,000 index entries a page on average, quadratic in the day. Keyed by the page's own key,
-- and by workspace first (every reader of the signals by time names its workspace), a page reads
-- its own rows only.
CREATE INDEX feedback_signals_day_key ON feedback_signals (workspace_id, occurred_at, event_id) WHERE status = 'counted';
DROP INDEX feedback_signals_day;
