/**
 * Where a page of the response list (response-list.ts) starts its newest-first walk: the comment
 * search's probe of migration 0020's piece index, and each filter sized on its own index so the
 * walk starts from the rarest. The list's speed rests on these choices (docs/dashboard.md).
 */
import type { SqlExecutor } from '../db/sql-client.js';
import type { ResponseListFilter } from './response-list-filter.js';
import { CORRECTION_TAG, categoryTag, ratingTag, UNRATED_TAG } from './response-list-tags.js';

/** Escapes LIKE's wildcards so a search for `50%` finds "50%". */
export const likeLiteral = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Comment-matching events read at most by the probe of a comment search (see `commentMatches`). */
export const COMMENT_PROBE_CAP = 10_000;
/**
 * Responses a comment search walks first, newest first, before it asks the piece index: a common
 * search fills a page among them (the index would read every event holding its pieces: 0.5 s for
 * a word in every comment at 10 M events), a rare one costs this many probes more.
 */
export const COMMENT_WALK_FIRST = 2_000;

/** The text a comment search looks in, written as in migration 0020's index so the index serves it. */
export const COMMENT_TEXT = "coalesce(e.payload->>'comment', e.payload->>'reason', e.payload->>'note')";

/**
 * The responses whose feedback has a comment containing `text`, when few do: the events whose
 * comment holds every three-letter piece of `text` come from migration 0020's index, and only
 * those are checked with ILIKE. `undefined` when the search is too common to list this way (at
 * least `COMMENT_PROBE_CAP` events match: the newest-first walk finds a page of those sooner) or
 * too short to have a piece (under three letters: the walk, too).
 *
 * @example
 * await commentMatches(db, ws, 'refund') // ['r15', 'r902'] (or undefined for 'the')
 */
export async function commentMatches(db: SqlExecutor, workspaceId: string, text: string, cap = COMMENT_PROBE_CAP): Promise<string[] | undefined> {
  if ([...text].length < 3) return undefined;
  const rows = await db.query<{ response_id: string }>(
    `SELECT e.response_id FROM feedback_events e
      WHERE e.workspace_id = $1 AND e.duplicate_of IS NULL AND e.retracted_at IS NULL AND ${COMMENT_TEXT} IS NOT NULL
        AND feedloop_text_grams(e.workspace_id, ${COMMENT_TEXT}) @> feedloop_text_grams($1, $2)
        AND ${COMMENT_TEXT} ILIKE $3
      LIMIT $4`,
    [workspaceId, text, `%${likeLiteral(text)}%`, cap],
  );
  return rows.length >= cap ? undefined : [...new Set(rows.map((r) => r.response_id))];
}

/** Index entries read at most to size a filter (`sizeStarts`), and so candidates a start holds at most. */
export const START_PROBE_CAP = 10_000;

/** A filter whose own index lists its responses: a possible start of the walk. */
interface Start {
  /** The list tag, when the filter is one (its index is in creation order: the walk can start there). */
  tag?: string;
  /** `SELECT <response id> AS id ...` of its responses (time bounds applied), parameters from $1 (the workspace). */
  sql: string;
  params: unknown[];
  /** Sized even when alone: the page query cannot walk from its index (it is no tag and no column of `responses`). */
  sizeAlone?: boolean;
}

/** A response whose score found conflicting signals (`r`: the response); the partial index of migration 0048 serves it. */
export const CONFLICTING = `EXISTS (SELECT 1 FROM response_scores cf WHERE cf.workspace_id = r.workspace_id AND cf.response_id = r.id AND cf.conflicts <> '[]'::jsonb)`;

/** The filters of `filter` that can start a walk from an index of their own. */
export function startsOf(workspaceId: string, filter: ResponseListFilter): Start[] {
  const starts: Start[] = [];
  /** `conds`: [column and operator, value]; time bounds on `time` when it has one. */
  const add = (tag: string | undefined, table: string, id: string, conds: Array<[string, unknown]>, time?: string) => {
    const all = [...conds];
    if (time !== undefined && filter.since !== undefined) all.push([`${time} >=`, filter.since]);
    if (time !== undefined && filter.until !== undefined) all.push([`${time} <`, filter.until]);
    const where = all.map(([cond], i) => `${cond} $${i + 2}`);
    starts.push({ ...(tag === undefined ? {} : { tag }), sql: `SELECT ${id} AS id FROM ${table} WHERE workspace_id = $1 AND ${where.join(' AND ')}`, params: [workspaceId, ...all.map(([, v]) => v)] });
  };
  for (const tag of tagsOf(filter)) add(tag, 'response_list_tags', 'response_id', [['tag =', tag]], 'created_at');
  if (filter.agent !== undefined) add(undefined, 'responses', 'id', [['agent =', filter.agent]], 'created_at');
  if (filter.model !== undefined) add(undefined, 'responses', 'id', [['model =', filter.model]], 'created_at');
  if (filter.experimentId !== undefined) {
    const variant: Array<[string, unknown]> = filter.variant !== undefined ? [['variant =', filter.variant]] : [];
    add(undefined, 'responses', 'id', [['experiment_id =', filter.experimentId], ...variant], 'created_at');
  }
  const score: Array<[string, unknown]> = [];
  if (filter.minScore !== undefined) score.push(['score >=', filter.minScore]);
  if (filter.maxScore !== undefined) score.push(['score <=', filter.maxScore]);
  if (score.length > 0) add(undefined, 'response_scores', 'response_id', score);
  if (filter.conflicting === true) {
    starts.push({ sql: "SELECT response_id AS id FROM response_scores WHERE workspace_id = $1 AND conflicts <> '[]'::jsonb", params: [workspaceId], sizeAlone: true });
  }
  return starts;
}

/** The list tags a filter asks for. */
export function tagsOf(filter: ResponseListFilter): string[] {
  const tags: string[] = [];
  if (filter.category !== undefined) tags.push(categoryTag(filter.category));
  if (filter.rating === 'positive' || filter.rating === 'negative') tags.push(ratingTag(filter.rating));
  if (filter.rating === 'unrated') tags.push(UNRATED_TAG);
  if (filter.hasCorrection === true) tags.push(CORRECTION_TAG);
  return tags;
}

/**
 * Where a page of several filters starts (`smallestStart`): a tag whose rows are few (walk them,
 * newest first), these responses (a rare dimension or score range: every match is one of them),
 * nothing (a filter matches no response), or the planner's choice (every filter is common).
 */
export type StartChoice = { kind: 'tag'; tag: string } | { kind: 'among'; ids: string[] } | { kind: 'none' } | undefined;

/**
 * Sizes each filter on its own index (up to `START_PROBE_CAP` entries read for each) and picks the
 * one with the fewest responses, when one has fewer than that: a walk from it reads at most that
 * many. A filter that matches nothing answers the page with that one probe.
 *
 * Why not leave it to the planner: it costs a LIMIT plan as if matches were spread evenly, so for
 * a rare agent with `rating=negative` it walked all 1,250,000 negative responses of a 10 M-event
 * workspace (1.6 s) to find that none of that agent's was negative.
 */
export async function smallestStart(db: SqlExecutor, starts: Start[], cap = START_PROBE_CAP): Promise<StartChoice> {
  let best: { start: Start; size: number } | undefined;
  for (const start of starts) {
    const [row] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${start.sql} LIMIT ${Math.max(1, Math.floor(cap))}) AS x`, start.params);
    const size = row?.n ?? 0;
    if (size === 0) return { kind: 'none' };
    if (best === undefined || size < best.size) best = { start, size };
  }
  if (best === undefined || best.size >= cap) return undefined;
  if (best.start.tag !== undefined) return { kind: 'tag', tag: best.start.tag };
  return { kind: 'among', ids: (await db.query<{ id: string }>(best.start.sql, best.start.params)).map((r) => r.id) };
}
