/**
 * The answers of registered responses, read for corrections and edits sent without an
 * `original`: their edit distance is measured against the answer, before the event joins a
 * group commit (the diff must not run inside the write).
 */
import type { SqlExecutor } from '../db/sql-client.js';

/**
 * The answers of the named responses of one workspace, by response id; unknown ids are absent.
 * One index probe per id.
 *
 * @example
 * const answers = await loadAnswers(db, workspaceId, ['resp-1']); // Map { 'resp-1' => 'SELECT …' }
 */
export async function loadAnswers(db: SqlExecutor, workspaceId: string, responseIds: readonly string[]): Promise<Map<string, string>> {
  if (responseIds.length === 0) return new Map();
  const rows = await db.query<{ id: string; answer: string }>(
    `SELECT r.id, r.answer FROM responses r
      WHERE r.workspace_id = $1 AND r.id IN (SELECT value FROM json_array_elements_text($2::json))`,
    [workspaceId, JSON.stringify([...new Set(responseIds)])],
  );
  return new Map(rows.map((r) => [r.id, r.answer]));
}
