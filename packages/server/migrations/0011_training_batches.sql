-- feedloop schema 11: training batches (issue 10). When a workspace's unused training examples of
-- a kind reach a threshold, a batch claims them: each event's applied_to_training is set to the
-- batch's id in the claiming statement, so an event joins exactly one batch, ever (the ADR-0012
-- feedback table's applied_to_training, holding the batch instead of a 0/1 flag so a batch's rows
-- can be read back).

ALTER TABLE feedback_events ADD COLUMN applied_to_training text;

-- The claim's and the threshold check's read: unused examples of the kinds batches take, in log
-- order. Partial, so only those event types pay for it at ingest, and only until they are used.
CREATE INDEX feedback_events_training_unused ON feedback_events (workspace_id, seq)
  WHERE applied_to_training IS NULL AND type IN ('correction');
-- A batch's events, to write (and serve again) its file.
CREATE INDEX feedback_events_training_batch ON feedback_events (workspace_id, applied_to_training)
  WHERE applied_to_training IS NOT NULL;

CREATE TABLE training_batches (
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  id text NOT NULL,
  kind text NOT NULL,
  format text NOT NULL,
  event_count integer NOT NULL,
  row_count integer NOT NULL,
  file text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX training_batches_created ON training_batches (workspace_id, created_at DESC, id DESC);
