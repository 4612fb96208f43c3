/**
 * The response list as it was before migration 0019, kept as the response-list benchmark's
 * same-run baseline: it walks `responses (workspace_id, created_at)` newest first and probes each
 * response's signals (rating, category) or events (comment, through migration 0016's comment-text
 * index, which the benchmark recreates for it) until a page matches.
 */
import type { SqlExecutor } from '../packages/server/src/db/sql-client.js';
import type { ResponseListFilter } from '../packages/server/src/store/response-list.js';

/** Migration 0016's comment-text index, which 0019 dropped: the baseline's comment search read it. */
export const WALK_COMMENT_INDEX = `CREATE INDEX IF NOT EXISTS feedback_events_comment_text ON feedback_events
  (workspace_id, (coalesce(payload->>'comment', payload->>'reason', payload->>'note')), response_id)
  WHERE coalesce(payload->>'comment', payload->>'reason', payload->>'note') IS NOT NULL AND duplicate_of IS NULL`;

const likeLiteral = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * One page (ids only, and the row count) as the pre-0019 query found it.
 *
 * @example
 * await walkList(db, 'ws_bench', { category: 'absent' }, 50) // 0
 */
export async function walkList(db: SqlExecutor, workspaceId: string, filter: ResponseListFilter, limit: number): Promise<number> {
  const where = ['r.workspace_id = $1'];
  const params: unknown[] = [workspaceId];
  const p = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const signal = (cond: string): string =>
    `EXISTS (SELECT 1 FROM feedback_signals s WHERE s.workspace_id = r.workspace_id AND s.response_id = r.id AND s.status = 'counted' AND ${cond})`;
  if (filter.agent !== undefined) where.push(`r.agent = ${p(filter.agent)}`);
  if (filter.model !== undefined) where.push(`r.model = ${p(filter.model)}`);
  if (filter.experimentId !== undefined) where.push(`r.experiment_id = ${p(filter.experimentId)}`);
  if (filter.variant !== undefined) where.push(`r.variant = ${p(filter.variant)}`);
  if (filter.since !== undefined) where.push(`r.created_at >= ${p(filter.since)}`);
  if (filter.until !== undefined) where.push(`r.created_at < ${p(filter.until)}`);
  if (filter.minScore !== undefined) where.push(`sc.score >= ${p(filter.minScore)}`);
  if (filter.maxScore !== undefined) where.push(`sc.score <= ${p(filter.maxScore)}`);
  if (filter.rating === 'positive' || filter.rating === 'negative') where.push(signal(`s.polarity = ${p(filter.rating)}`));
  if (filter.rating === 'unrated') where.push(`NOT ${signal('true')}`);
  if (filter.category !== undefined) where.push(signal(`s.categories @> ARRAY[${p(filter.category)}]::text[]`));
  if (filter.comment !== undefined) {
    const pattern = p(`%${likeLiteral(filter.comment)}%`);
    where.push(
      `r.id IN (SELECT e.response_id FROM feedback_events e WHERE e.workspace_id = $1 AND e.duplicate_of IS NULL
          AND coalesce(e.payload->>'comment', e.payload->>'reason', e.payload->>'note') IS NOT NULL
          AND coalesce(e.payload->>'comment', e.payload->>'reason', e.payload->>'note') ILIKE ${pattern})`,
    );
  }
  const rows = await db.query<{ id: string }>(
    `SELECT r.id, left(r.query, 300) AS query, left(r.answer, 300) AS answer, r.user_id, r.model, r.agent, r.query_type,
            r.experiment_id, r.variant, r.created_at, sc.score, sc.confidence,
            coalesce(t.positive, 0)::int AS positive, coalesce(t.negative, 0)::int AS negative,
            coalesce(t.corrections, 0)::int AS corrections, t.categories
       FROM responses r
       LEFT JOIN response_scores sc ON sc.workspace_id = r.workspace_id AND sc.response_id = r.id
       LEFT JOIN LATERAL (
         SELECT count(*) FILTER (WHERE s.polarity = 'positive') AS positive,
                count(*) FILTER (WHERE s.polarity = 'negative') AS negative,
                count(*) FILTER (WHERE s.type = 'correction') AS corrections,
                (SELECT array_agg(DISTINCT c) FROM feedback_signals s2, unnest(s2.categories) c
                  WHERE s2.workspace_id = r.workspace_id AND s2.response_id = r.id AND s2.status = 'counted') AS categories
           FROM feedback_signals s
          WHERE s.workspace_id = r.workspace_id AND s.response_id = r.id AND s.status = 'counted'
       ) t ON true
      WHERE ${where.join(' AND ')}
      ORDER BY r.created_at DESC, r.id DESC
      LIMIT ${p(limit + 1)}`,
    params,
  );
  return Math.min(rows.length, limit);
}
