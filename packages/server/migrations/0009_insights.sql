-- feedloop schema 9: one partial index on the events log for GET /v1/insights.
--
-- The read it serves: the insights report reads, per period (the asked range, and the period of
-- equal length before it for rising themes), the newest events that carry a text or a verdict
-- the report names: corrections (original vs corrected), comments (payload `comment`, `note`,
-- `reason`), negative ratings and escalations (the events named behind the agents, models and
-- query types it ranks). It is bounded: ORDER BY occurred_at DESC LIMIT n (5,000 a period),
-- on this index a walk of at most n matching entries within the range.
--
-- Why an index and not the existing ones: (workspace_id, seq) orders by receipt, not by the
-- occurrence the report's periods are in, and would filter every vote, edit, retry and abandon
-- of the range on the heap to find the few texts among them; a range of 30 days in a busy
-- workspace is millions of events. Partial, so the writes that pay for it are only the events it
-- can return (the implicit signals and the plain thumbs up, the bulk of the log, pay nothing),
-- and per partition, so it leaves with its month on retention like the others.
--
-- The predicate is repeated word for word in store/insights-queries.ts, which is what lets the
-- planner prove that the query's rows are in the index.
CREATE INDEX feedback_events_insights ON feedback_events (workspace_id, occurred_at)
  WHERE type IN ('correction', 'escalation', 'thumbs_down', 'rating', 'rate_usefulness') OR payload ?| array['comment', 'note', 'reason'];
