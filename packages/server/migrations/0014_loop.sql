-- Schema 14: closing the loop. Target corrections (ADR-0012) are read per target from the event
-- log, newest history first, so the log needs an index by target. User memory reads the existing
-- (workspace_id, user_id, seq) index; documents build on document_effectiveness.
CREATE INDEX feedback_events_target ON feedback_events (workspace_id, target_id, seq) WHERE target_id IS NOT NULL;
