-- Schema 18: weekly top-issue counts. GET /v1/stats's top issues grouped one row per day and
-- distinct negatively rated query over the range (about 27,000 rows for 90 days of a 500,000-event
-- workspace: the one part of a stats read that grew with the data; p95 29.6 ms at 10 M events on
-- a loaded machine, target 25 ms). The same counts per ISO week (Monday) let a range read its
-- whole weeks here and only its loose days (at most 6 at each end) from feedback_issue_counts.
-- The rollup rewrites a day's week from that week's days, under a per-week lock.
CREATE TABLE feedback_issue_counts_weekly (
  workspace_id text NOT NULL,
  week date NOT NULL,
  query text NOT NULL,
  negatives integer NOT NULL,
  PRIMARY KEY (workspace_id, week, query)
);

INSERT INTO feedback_issue_counts_weekly (workspace_id, week, query, negatives)
SELECT workspace_id, date_trunc('week', day)::date, query, sum(negatives)::int
  FROM feedback_issue_counts
 GROUP BY 1, 2, 3;
