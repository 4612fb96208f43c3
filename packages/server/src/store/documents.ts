/**
 * Reads of context-document effectiveness (ADR-016): the pipeline's tallies (positive, negative)
 * beside the uses counted at registration (document_uses) and the flags label actions put on a
 * document as their target (distinct voters, so one user's repeated flags count once).
 */
import type { SqlExecutor } from '../db/sql-client.js';

/** One document's stored counts. */
export interface DocumentRow {
  documentId: string;
  uses: number;
  positive: number;
  negative: number;
  neutral: number;
  flaggedIrrelevant: number;
  flaggedMissing: number;
  errorCategoryCounts: Record<string, number>;
}

interface Row {
  document_id: string;
  uses: string | number | null;
  positive: number | null;
  negative: number | null;
  neutral: number | null;
  irrelevant: string | number | null;
  missing: string | number | null;
  error_category_counts: Record<string, number> | null;
}

/**
 * The counts of the workspace's documents, all of them or those of `ids`. Flags count distinct
 * voters (user, else session, else the event). A flagged target that no response used as a
 * document (a fragment, a page) is not a document and is not listed.
 *
 * @example
 * await readDocuments(db, ws, ['doc-1', 'doc-2'])
 */
export async function readDocuments(db: SqlExecutor, workspaceId: string, ids?: readonly string[]): Promise<DocumentRow[]> {
  const only = ids === undefined ? '' : 'AND document_id = ANY($2::text[])';
  const onlyTarget = ids === undefined ? '' : 'AND target_id = ANY($2::text[])';
  const rows = await db.query<Row>(
    `WITH flags AS (
       SELECT target_id AS document_id,
              count(DISTINCT coalesce('u:' || user_id, 's:' || session_id, 'e:' || id)) FILTER (WHERE type = 'flag_irrelevant') AS irrelevant,
              count(DISTINCT coalesce('u:' || user_id, 's:' || session_id, 'e:' || id)) FILTER (WHERE type = 'flag_missing') AS missing
         FROM feedback_events
        WHERE workspace_id = $1 AND target_id IS NOT NULL AND duplicate_of IS NULL AND retracted_at IS NULL
          AND type IN ('flag_irrelevant', 'flag_missing') ${onlyTarget}
        GROUP BY target_id
     ), docs AS (
       SELECT document_id FROM document_uses WHERE workspace_id = $1 ${only}
       UNION SELECT document_id FROM document_effectiveness WHERE workspace_id = $1 ${only}
     )
     SELECT d.document_id, u.uses, e.positive, e.negative, e.neutral, f.irrelevant, f.missing, e.error_category_counts
       FROM docs d
       LEFT JOIN document_uses u ON u.workspace_id = $1 AND u.document_id = d.document_id
       LEFT JOIN document_effectiveness e ON e.workspace_id = $1 AND e.document_id = d.document_id
       LEFT JOIN flags f ON f.document_id = d.document_id`,
    ids === undefined ? [workspaceId] : [workspaceId, [...ids]],
  );
  return rows.map((r) => ({
    documentId: r.document_id,
    uses: Number(r.uses ?? 0),
    positive: r.positive ?? 0,
    negative: r.negative ?? 0,
    neutral: r.neutral ?? 0,
    flaggedIrrelevant: Number(r.irrelevant ?? 0),
    flaggedMissing: Number(r.missing ?? 0),
    errorCategoryCounts: r.error_category_counts ?? {},
  }));
}
