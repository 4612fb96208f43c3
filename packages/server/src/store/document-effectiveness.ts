/**
 * `document_effectiveness`: each retrieved document's running tallies (positive, negative and
 * neutral signals, weighted value, error categories), added to by every processing transaction.
 */
import type { DocumentTally } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import { sumJsonbCounts } from '../db/sum-jsonb-counts.js';

/**
 * Adds a batch's tallies to the documents' running sums, rows in key order (as every writer
 * locks them, so concurrent batches never deadlock).
 *
 * @example
 * await addDocumentTallies(tx, [{ workspaceId: 'ws_1', tallies: [{ documentId: 'doc-7', positive: 1, ... }] }]);
 */
export async function addDocumentTallies(tx: SqlExecutor, documents: ReadonlyArray<{ workspaceId: string; tallies: readonly DocumentTally[] }>): Promise<void> {
  const rows = documents
    .flatMap(({ workspaceId, tallies }) => tallies.map((t) => ({ ws: workspaceId, ...t })))
    .sort((a, b) => (a.ws === b.ws ? (a.documentId < b.documentId ? -1 : 1) : a.ws < b.ws ? -1 : 1));
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO document_effectiveness AS d (workspace_id, document_id, positive, negative, neutral, weighted_value, weight, error_category_counts, updated_at)
     SELECT ws, "documentId", positive, negative, neutral, "weightedValue", weight, "errorCategoryCounts", now()
       FROM json_to_recordset($1::json) AS x(ws text, "documentId" text, positive int, negative int, neutral int,
            "weightedValue" double precision, weight double precision, "errorCategoryCounts" jsonb)
     ON CONFLICT (workspace_id, document_id) DO UPDATE
       SET positive = d.positive + EXCLUDED.positive, negative = d.negative + EXCLUDED.negative, neutral = d.neutral + EXCLUDED.neutral,
           weighted_value = d.weighted_value + EXCLUDED.weighted_value, weight = d.weight + EXCLUDED.weight,
           error_category_counts = ${sumJsonbCounts('d.error_category_counts', 'EXCLUDED.error_category_counts')},
           updated_at = now()`,
    [JSON.stringify(rows)],
    { prepare: true },
  );
}
