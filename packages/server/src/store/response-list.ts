/**
 * The searchable response list behind `GET /v1/responses` and the dashboard's Responses page:
 * responses newest first, filtered by composite score, rating, error category, comment text,
 * agent, model, experiment variant and time, each with its score and a tally of its feedback.
 *
 * Speed: a page stops after `limit` matches of a newest-first walk, and what it walks is what the
 * filters make rarest: a rating or category filter walks its tag in `response_list_tags`
 * (migration 0019), a dimension filter its `(workspace_id, <dimension>, created_at)` index
 * (migration 0016), otherwise `responses (workspace_id, created_at)`. A comment search asks
 * migration 0020's index of three-letter pieces first.
 */
import type { SqlExecutor } from '../db/sql-client.js';
import { COMMENT_TEXT, COMMENT_WALK_FIRST, CONFLICTING, commentMatches, likeLiteral, smallestStart, startsOf, tagsOf, type StartChoice } from './response-list-starts.js';
import { BY_USERS, CORRECTION_TAG } from './response-list-tags.js';
import type { ResponseListFilter } from './response-list-filter.js';
import { CURRENT_EVENT, SCORE_NAME, SCORE_VALUE, scoreFilterSql } from './score-reads.js';

export type { ResponseListFilter } from './response-list-filter.js';

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
  /** Counted positive / negative signals and corrections of the response's users (explicit, implicit, outcome). */
  positive: number;
  negative: number;
  corrections: number;
  /** Counted signals of reviewers and of judges, apart from the users' (docs/signals.md, "Sources"). */
  reviews: number;
  judgements: number;
  categories: string[];
  /** The response's current named scores: per name, how many and their mean (null: labels only). */
  scores: Array<{ name: string; count: number; mean: number | null }>;
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
  reviews: number;
  judgements: number;
  categories: string[] | null;
  scores: Array<{ name: string; count: number; mean: number | null }> | null;
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


/**
 * One page of a workspace's responses, newest first.
 *
 * What drives the walk (profiled in docs/dashboard.md): with one rating or category filter, that
 * tag's rows of `response_list_tags` newest first (migration 0019), so a rare or absent tag costs
 * what it matches; with one dimension filter, its index; with none, `responses (workspace_id,
 * created_at)`. With several, each is sized on its index first (`smallestStart`) and the rarest
 * one's responses are the candidates. A comment search alone first walks `COMMENT_WALK_FIRST`
 * responses (a common search's page is there), then asks the comment index which responses match
 * (`commentMatches`). `options` (tests): the comment probe's cap, how many responses the first
 * walk reads (0: none), and the sizing's cap.
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
  options: { commentProbeCap?: number; commentWalkFirst?: number; startProbeCap?: number } = {},
): Promise<{ data: ResponseListItem[]; nextCursor: string | null }> {
  const none = { data: [], nextCursor: null };
  const starts = startsOf(workspaceId, filter);
  if (filter.comment === undefined) {
    if (starts.length < 2 && !starts.some((s) => s.sizeAlone === true)) return listPage(db, workspaceId, filter, after, limit, { kind: 'none' });
    const start = await smallestStart(db, starts, options.startProbeCap);
    return start?.kind === 'none' ? none : listPage(db, workspaceId, filter, after, limit, { kind: 'none' }, start);
  }
  if (starts.length > 0) {
    // Another filter's few responses, each probed for the comment: at most START_PROBE_CAP (response-list-starts.ts) probes.
    const start = await smallestStart(db, starts, options.startProbeCap);
    if (start?.kind === 'none') return none;
    if (start !== undefined) return listPage(db, workspaceId, filter, after, limit, { kind: 'walk' }, start);
  }
  // A common search: a page among the newest responses the other filters let through.
  const walkFirst = options.commentWalkFirst ?? COMMENT_WALK_FIRST;
  if (walkFirst > 0) {
    const first = await listPage(db, workspaceId, filter, after, limit, { kind: 'walk', within: walkFirst });
    if (first.nextCursor !== null) return first;
  }
  const ids = await commentMatches(db, workspaceId, filter.comment, options.commentProbeCap);
  if (ids !== undefined && ids.length === 0) return none;
  return listPage(db, workspaceId, filter, after, limit, ids === undefined ? { kind: 'walk' } : { kind: 'none' }, ids === undefined ? undefined : { kind: 'among', ids });
}

/**
 * Which of these responses match a filter now (a review queue rule's check, issue 27): the list's
 * own page query, its candidates these ids, so a rule means exactly what the list shows.
 *
 * @example
 * await responsesMatching(db, ws, { rating: 'negative' }, ['r1', 'r2']) // ['r2']
 */
export async function responsesMatching(db: SqlExecutor, workspaceId: string, filter: ResponseListFilter, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const page = await listPage(db, workspaceId, filter, undefined, ids.length, filter.comment === undefined ? { kind: 'none' } : { kind: 'walk' }, { kind: 'among', ids: [...new Set(ids)] });
  return page.data.map((r) => r.id);
}

/**
 * How a page meets the comment filter: not here (no comment filter, or the candidates are the
 * comment's matches), or by probing each response's events on the walk, over at most `within`
 * responses the other filters let through (a bounded first try) or over all.
 */
type CommentWay = { kind: 'none' } | { kind: 'walk'; within?: number };

/**
 * One page; `listResponses` picks the comment way and the start (`among`: every match is one of
 * these responses, so the page is read from them alone; `tag`: the walk runs down this tag).
 * A bounded walk's page is full or has no cursor.
 */
async function listPage(
  db: SqlExecutor,
  workspaceId: string,
  filter: ResponseListFilter,
  after: { createdAt: Date; id: string } | undefined,
  limit: number,
  comment: CommentWay,
  start?: Exclude<StartChoice, { kind: 'none' }>,
): Promise<{ data: ResponseListItem[]; nextCursor: string | null }> {
  // A bare response (a trace known by id only, migration 0031) is not listed until completed.
  const where = ['r.workspace_id = $1', 'NOT r.bare'];
  const params: unknown[] = [workspaceId];
  const p = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const tags = tagsOf(filter);
  const among = start?.kind === 'among' ? start.ids : undefined;
  // Candidates drive and the tags are probed; else a tag drives (the chosen one, or the first):
  // its rows carry the response's created_at, so ordering by them runs the walk down its index.
  const first = start?.kind === 'tag' ? start.tag : tags[0];
  const [driver, ...more] = among !== undefined ? [undefined, ...tags] : [first, ...tags.filter((t) => t !== first)];
  const [at, id] = driver === undefined ? ['r.created_at', 'r.id'] : ['lt.created_at', 'lt.response_id'];
  const from =
    among !== undefined
      ? `unnest(${p(among)}::text[]) AS st(id) JOIN responses r ON r.workspace_id = $1 AND r.id = st.id`
      : driver === undefined
        ? 'responses r'
        : `response_list_tags lt JOIN responses r ON r.workspace_id = lt.workspace_id AND r.id = lt.response_id AND lt.workspace_id = $1 AND lt.tag = ${p(driver)}`;
  for (const tag of more) {
    if (tag === undefined) continue;
    where.push(`EXISTS (SELECT 1 FROM response_list_tags t2 WHERE t2.workspace_id = r.workspace_id AND t2.response_id = r.id AND t2.tag = ${p(tag)})`);
  }
  if (filter.hasCorrection === false) {
    where.push(`NOT EXISTS (SELECT 1 FROM response_list_tags t3 WHERE t3.workspace_id = r.workspace_id AND t3.response_id = r.id AND t3.tag = ${p(CORRECTION_TAG)})`);
  }
  if (filter.conflicting !== undefined) where.push(filter.conflicting ? CONFLICTING : `NOT ${CONFLICTING}`);
  if (filter.agent !== undefined) where.push(`r.agent = ${p(filter.agent)}`);
  if (filter.model !== undefined) where.push(`r.model = ${p(filter.model)}`);
  if (filter.experimentId !== undefined) where.push(`r.experiment_id = ${p(filter.experimentId)}`);
  if (filter.variant !== undefined) where.push(`r.variant = ${p(filter.variant)}`);
  if (filter.since !== undefined) where.push(`${at} >= ${p(filter.since)}`);
  if (filter.until !== undefined) where.push(`${at} < ${p(filter.until)}`);
  if (filter.score !== undefined) where.push(scoreFilterSql(filter.score, p));
  if (filter.minScore !== undefined) where.push(`sc.score >= ${p(filter.minScore)}`);
  if (filter.maxScore !== undefined) where.push(`sc.score <= ${p(filter.maxScore)}`);
  if (after !== undefined) where.push(`(${at}, ${id}) < (${p(after.createdAt)}, ${p(after.id)})`);
  const scored = filter.minScore !== undefined || filter.maxScore !== undefined;
  const joins = `${from}${scored ? ' JOIN response_scores sc ON sc.workspace_id = r.workspace_id AND sc.response_id = r.id' : ''}`;
  const ordered = `SELECT r.id, ${at} AS at FROM ${joins} WHERE ${where.join(' AND ')} ORDER BY ${at} DESC, ${id} DESC`;
  let pageSql: string;
  if (comment.kind !== 'walk' || filter.comment === undefined) pageSql = `${ordered} LIMIT ${p(limit + 1)}`;
  else {
    // OFFSET 0 keeps the probe per response: flattened into a join, a misjudged ILIKE has the
    // planner read every matching event of the workspace before sorting (1.5 s at 1 M events).
    const matches = `EXISTS (SELECT 1 FROM feedback_events e WHERE e.workspace_id = $1 AND e.response_id = c.id AND e.duplicate_of IS NULL AND e.retracted_at IS NULL
          AND ${COMMENT_TEXT} ILIKE ${p(`%${likeLiteral(filter.comment)}%`)} OFFSET 0)`;
    pageSql = `SELECT c.id, c.at FROM (${ordered}${comment.within === undefined ? '' : ` LIMIT ${p(comment.within)}`}) AS c
             WHERE ${matches} ORDER BY c.at DESC, c.id DESC LIMIT ${p(limit + 1)}`;
  }
  // The page's ids first, then what is shown of those alone: a plan that sorts its matches
  // (a comment search's responses, a rare dimension's) must not tally the feedback of each.
  const rows = await db.query<Row>(
    `SELECT r.id, left(r.query, 300) AS query, left(r.answer, 300) AS answer, r.user_id, r.model, r.agent, r.query_type,
            r.experiment_id, r.variant, r.created_at, sc.score, sc.confidence,
            coalesce(t.positive, 0)::int AS positive, coalesce(t.negative, 0)::int AS negative,
            coalesce(t.corrections, 0)::int AS corrections, coalesce(t.reviews, 0)::int AS reviews,
            coalesce(t.judgements, 0)::int AS judgements, t.categories, ns.scores
       FROM (${pageSql}) AS pg
       JOIN responses r ON r.workspace_id = $1 AND r.id = pg.id
       LEFT JOIN response_scores sc ON sc.workspace_id = r.workspace_id AND sc.response_id = r.id
       LEFT JOIN LATERAL (
         SELECT count(*) FILTER (WHERE s.polarity = 'positive' AND s.by_user) AS positive,
                count(*) FILTER (WHERE s.polarity = 'negative' AND s.by_user) AS negative,
                count(*) FILTER (WHERE s.type = 'correction' AND s.by_user) AS corrections,
                count(*) FILTER (WHERE s.source = 'review') AS reviews,
                count(*) FILTER (WHERE s.source = 'judge') AS judgements,
                (SELECT array_agg(DISTINCT c) FROM feedback_signals s, unnest(s.categories) c
                  WHERE s.workspace_id = r.workspace_id AND s.response_id = r.id AND s.status = 'counted' AND ${BY_USERS}) AS categories
           FROM (SELECT s.polarity, s.type, e.source, e.source NOT IN ('review', 'judge') AS by_user
                   FROM feedback_signals s
                   JOIN feedback_event_ids k ON k.workspace_id = s.workspace_id AND k.id = s.event_id
                   JOIN feedback_events e ON e.workspace_id = k.workspace_id AND e.seq = k.seq AND e.received_at = k.received_at
                  WHERE s.workspace_id = r.workspace_id AND s.response_id = r.id AND s.status = 'counted') s
       ) t ON true
       LEFT JOIN LATERAL (
         SELECT json_agg(json_build_object('name', x.name, 'count', x.n, 'mean', x.mean) ORDER BY x.name) AS scores
           FROM (SELECT ${SCORE_NAME('e')} AS name, count(*)::int AS n, avg(${SCORE_VALUE('e')}) AS mean FROM feedback_events e
                  WHERE e.workspace_id = r.workspace_id AND e.response_id = r.id AND ${SCORE_NAME('e')} IS NOT NULL AND ${CURRENT_EVENT('e')}
                  GROUP BY 1) x
       ) ns ON true
      ORDER BY pg.at DESC, pg.id DESC`,
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
      reviews: r.reviews,
      judgements: r.judgements,
      categories: r.categories ?? [],
      scores: r.scores ?? [],
    })),
    nextCursor: rows.length > limit && last ? encodeListCursor(last.created_at, last.id) : null,
  };
}
