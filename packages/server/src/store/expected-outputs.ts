/**
 * The events a dataset item's expected output may come from (issue 27): a response's counted,
 * verified `correction` and `review` events, with what the pipeline made of them. Core's
 * `expectedOutputOf` picks one; this module only reads them.
 */
import type { SqlExecutor } from '../db/sql-client.js';
import { readWholeSignal, type EventRow, type StoredEventRow } from './export-reads.js';
import { signalFactColumns, signalFactNames } from './stored-learning-signal.js';

/** A candidate event as read: its row as the exports read theirs, without an NLI sample's texts. */
export type CandidateEventRow = Omit<EventRow, 'premise_text' | 'hypothesis_text'>;

/**
 * The counted, verified corrections and reviews of some responses: neither content duplicates,
 * replaced votes nor retracted, not dropped or failed by the pipeline (an event it has not
 * processed yet is read, without weight or learning signal: a review is a dataset item as soon as
 * it is stored). Only verified events: a public key's correction never becomes an expected output.
 *
 * @example
 * const rows = await readExpectedCandidates(db, 'ws-1', ['r-1', 'r-2']);
 */
export async function readExpectedCandidates(db: SqlExecutor, workspaceId: string, responseIds: readonly string[]): Promise<CandidateEventRow[]> {
  if (responseIds.length === 0) return [];
  const rows = await db.query<Omit<StoredEventRow, 'premise_text' | 'hypothesis_text'>>(
    // One probe of feedback_events_response a response; the OFFSET 0 fence keeps it so (see
    // store/export-reads.ts readResponseEvents: flattened, the planner merges the whole partition).
    `SELECT e.response_id, e.id, e.type, e.source, e.payload, e.user_id, e.target_id, e.metadata, e.edit_distance, e.occurred_at,
            e.weight, e.learning_signal, e.verified, ${signalFactNames('e')}
       FROM unnest($2::text[]) AS page (response_id)
       CROSS JOIN LATERAL (
         SELECT e.*, sg.status, sg.weight, sg.learning_signal, ${signalFactColumns('sg')}
           FROM feedback_events e
           LEFT JOIN feedback_signals sg ON sg.workspace_id = e.workspace_id AND sg.event_id = e.id
          WHERE e.workspace_id = $1 AND e.response_id = page.response_id AND e.type IN ('correction', 'review')
            AND e.duplicate_of IS NULL AND e.superseded_by IS NULL AND e.retracted_at IS NULL AND e.verified
         OFFSET 0
       ) e
      WHERE e.status IS NULL OR e.status = 'counted'
      ORDER BY e.response_id, e.seq`,
    [workspaceId, [...new Set(responseIds)]],
  );
  return rows.map((r) => readWholeSignal(workspaceId, r));
}
