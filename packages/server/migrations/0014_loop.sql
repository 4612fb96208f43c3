-- Schema 14: closing the loop. Target corrections (ADR-0012) are read per target from the event
-- log, newest history first, so the log needs an index by target. User memory reads the existing
-- (workspace_id, user_id, seq) index; documents build on document_effectiveness.
CREATE INDEX feedback_events_target ON feedback_events (workspace_id, target_id, seq) WHERE target_id IS NOT NULL;

-- How many responses used each context document (ADR-016 `uses`): counted as responses are
-- registered, in the same statement, so a document's effectiveness can be read beside its reach.
-- A response's documents are its context_document_ids, else its sources (as the pipeline's tallies).
CREATE TABLE document_uses (
  workspace_id text NOT NULL,
  document_id text NOT NULL,
  uses bigint NOT NULL,
  PRIMARY KEY (workspace_id, document_id)
);
INSERT INTO document_uses (workspace_id, document_id, uses)
SELECT r.workspace_id, d.id, count(DISTINCT r.id)
  FROM responses r
  CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN jsonb_array_length(r.context_document_ids) > 0 THEN r.context_document_ids ELSE r.sources END) AS d(id)
 GROUP BY 1, 2;
