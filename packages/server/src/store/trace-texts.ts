/**
 * Which of some traces' responses already hold a query or an answer: the OpenTelemetry drop-in
 * sets an LLM span's texts only where the response has none, so a root span's texts (stored
 * earlier or later) win whatever order the spans arrive in (core's `otel/trace-updates.ts`).
 */
import type { StoredTexts } from '@feedloop/core';
import type { SqlClient } from '../db/sql-client.js';

/**
 * The stored texts of the responses with these ids in a workspace; an id not stored is absent.
 *
 * @example
 * const texts = await storedTraceTexts(db, workspaceId, ['0af7…']);
 * texts.get('0af7…') // { query: true, answer: false }
 */
export async function storedTraceTexts(db: SqlClient, workspaceId: string, ids: readonly string[]): Promise<Map<string, StoredTexts>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<{ id: string; has_query: boolean; has_answer: boolean }>(
    `SELECT id, query <> '' AS has_query, answer <> '' AS has_answer FROM responses WHERE workspace_id = $1 AND id = ANY($2::text[])`,
    [workspaceId, [...ids]],
  );
  return new Map(rows.map((r) => [r.id, { query: r.has_query, answer: r.has_answer }]));
}
