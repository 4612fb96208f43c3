-- feedloop schema 17: training batches of every kind (issue 10). An event can be an example of
-- several kinds (a thumbs-up is an SFT and a KTO example), so "used" is per (event, kind): a row
-- here says the event is in batch batch_id of that kind. The primary key is the exactly-once
-- guarantee: a claim inserts with ON CONFLICT DO NOTHING, so no event joins two batches of a kind.
-- feedback_events.applied_to_training keeps its ADR-0012 meaning for the corrections kind (the
-- claim of a corrections batch sets both).
--
-- Holds event ids (and their log seq) of end users' events: erasing a user's events must delete
-- their rows here too (no foreign key: feedback_events is partitioned by month of receipt).

CREATE TABLE training_applied_events (
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  kind text NOT NULL,
  event_id text NOT NULL,
  seq bigint NOT NULL,
  batch_id text NOT NULL,
  PRIMARY KEY (workspace_id, kind, event_id)
);
-- A batch's events in log order, to write (and serve again) its file.
CREATE INDEX training_applied_events_batch ON training_applied_events (workspace_id, batch_id, seq);

-- The corrections batches made before this schema: their events, from the old column.
INSERT INTO training_applied_events (workspace_id, kind, event_id, seq, batch_id)
SELECT e.workspace_id, 'corrections', e.id, e.seq, e.applied_to_training
  FROM feedback_events e
 WHERE e.applied_to_training IS NOT NULL
ON CONFLICT DO NOTHING;
