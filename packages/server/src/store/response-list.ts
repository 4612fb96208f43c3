/**
 * The searchable response list behind `GET /v1/responses` and the dashboard's Responses page:
 * responses newest first, filtered by composite score, rating, error category, comment text,
 * agent, model, experiment variant and time, each with its score and a tally of its feedback.
 *
 * Speed: the walk is over `responses (workspace_id, created_at, id)` (migration 0016) newest
 * first, so a page stops after `limit` matches; dimension filters have their own
 * `(workspace_id, <dimension>, created_at)` indexes; feedback filters are `EXISTS` probes on the
 * per-response signal index. A comment search reads the comment-text index of migration 0016.
 */
import type { SqlExecutor } from '../db/sql-client.js';

/** Filters of the list; all optional, combined with AND. */
export interface ResponseListFilter {
  /** Composite score at least / at most (-1..1); a response without a score never matches. */
  minScore?: number;
  maxScore?: number;
  /** positive / negative: has a counted signal of that polarity; unrated: has no counted signal. */
  rating?: 'positive' | 'negative' | 'unrated';
  /** Has a counted signal with this error category. */
  category?: string;
  /** Case-insensitive substring of a comment (a vote's, a comment's, a review's, a correction's). */
  comment?: string;
  agent?: string;
  model?: string;
  experimentId?: string;
  variant?: string;
  /** Created at or after / before. */
  since?: Date;
  until?: Date;
}

/** One row of the list. */
export interface ResponseListItem {
  id: string;
  query: string;
  answer: string;
  userId: string | null;
  model: string | null;
  agent: string | null;
  queryType: string | null;
  experimentId: string | null;
  variant: string | null;
  createdAt: string;
  score: number | null;
  confidence: number | null;
  positive: number;
  negative: number;
  corrections: number;
  categories: string[];
}

interface Row {
  id: string;
  query: string;
  answer: string;
  user_id: string | null;
  model: string | null;
  agent: string | null;
  query_type: string | null;
  experiment_id: string | null;
  variant: string | null;
  created_at: Date;
  score: number | null;
  confidence: number | null;
  positive: number;
  negative: number;
  corrections: number;
  categories: string[] | null;
}

/** Encodes a list position (created_at, id); opaque to clients. */
export function encodeListCursor(createdAt: Date, id: string): string {
  return Buffer.from(JSON.stringify([createdAt.toISOString(), id])).toString('base64url');
}

/** Decodes a list cursor; `undefined` when it is not one of ours. */
export function decodeListCursor(cursor: string): { createdAt: Date; id: string } | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    if (!Array.isArray(v) || v.length !== 2 || typeof v[0] !== 'string' || typeof v[1] !== 'string') return undefined;
    const createdAt = new Date(v[0]);
    return Number.isNaN(createdAt.getTime()) ? undefined : { createdAt, id: v[1] };
  } catch {
    return undefined;
  }
}

/** Escapes LIKE's wildcards so a search for `50%` finds "50%". */
const likeLiteral = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * One page of a workspace's responses, newest first.
 *
 * @example
 * const page = await listResponses(db, ws, { rating: 'negative', agent: 'sql' }, undefined, 50);
 * // { data: ResponseListItem[], nextCursor: string | null }
 */
export async function listResponses(
  db: SqlExecutor,
  workspaceId: string,
  filter: ResponseListFilter,
  after: { createdAt: Date; id: string } | undefined,
  limit: number,
): Promise<{ data: ResponseListItem[]; nextCursor: string | null }> {
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
      // The expression of migration 0016's partial index, written the same way so the index serves it.
      `r.id IN (SELECT e.response_id FROM feedback_events e WHERE e.workspace_id = $1 AND e.duplicate_of IS NULL
          AND coalesce(e.payload->>'comment', e.payload->>'reason', e.payload->>'note') IS NOT NULL
          AND coalesce(e.payload->>'comment', e.payload->>'reason', e.payload->>'note') ILIKE ${pattern})`,
    );
  }
  if (after !== undefined) where.push(`(r.created_at, r.id) < (${p(after.createdAt)}, ${p(after.id)})`);
  const rows = await db.query<Row>(
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
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    data: page.map((r) => ({
      id: r.id,
      query: r.query,
      answer: r.answer,
      userId: r.user_id,
      model: r.model,
      agent: r.agent,
      queryType: r.query_type,
      experimentId: r.experiment_id,
      variant: r.variant,
      createdAt: r.created_at.toISOString(),
      score: r.score,
      confidence: r.confidence,
      positive: r.positive,
      negative: r.negative,
      corrections: r.corrections,
      categories: r.categories ?? [],
    })),
    nextCursor: rows.length > limit && last ? encodeListCursor(last.created_at, last.id) : null,
  };
}
