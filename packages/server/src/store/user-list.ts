/**
 * The workspace's end users (`GET /v1/users`, the dashboard's Users page): every user id that
 * registered a response, sent feedback or has a consent row, in id order, with what the pages show
 * of each: responses, events sent, when last seen, satisfaction (counted ratings of the daily user
 * sums, the figures of `GET /v1/stats?userId=`) and consent.
 *
 * How it stays cheap: the ids are walked with a loose index scan (one probe per user in each of
 * `responses_user`, `feedback_events_user` and `user_consent`'s key, the least of the three next),
 * so a page costs its users, not the workspace's events; a search walks the users (not the events)
 * until a page is found. Each page user's figures are then read by key. An id known only from
 * reviewers' or judges' events (a reviewer's name, issue 27) is no end user and is left out.
 */
import type { Consent } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';

/** One user of the list. */
export interface UserListItem {
  userId: string;
  /** Responses registered for the user. */
  responses: number;
  /** Feedback events the user sent (every stored event with their id, as `GET /v1/users/:userId/data` lists them). */
  events: number;
  /** The latest of their events' `occurredAt` and their responses' `createdAt`; null when neither exists. */
  lastSeenAt: string | null;
  /** Counted positive and negative ratings (thumbs, stars, usefulness), summed over the daily user rollups. */
  ratings: { positive: number; negative: number };
  /** positive / (positive + negative) in percent, one decimal; null without ratings. */
  satisfaction: number | null;
  /** The user's stated consent (null: never stated) and when it last changed. */
  consent: Consent & { updatedAt: string | null };
}

/** A page of users and the cursor of the next (the last id of this one), null at the end. */
export interface UserListPage {
  data: UserListItem[];
  nextCursor: string | null;
}

/** The next user id after `$2` in any of the three sources: one index probe each. */
const NEXT_AFTER = (after: string) => `least(
    (SELECT min(user_id) FROM responses WHERE workspace_id = $1 AND user_id > ${after}),
    (SELECT min(user_id) FROM feedback_events WHERE workspace_id = $1 AND user_id > ${after}),
    (SELECT min(user_id) FROM user_consent WHERE workspace_id = $1 AND user_id > ${after}))`;

const IDS_SQL = `
  WITH RECURSIVE ids(user_id) AS (
    SELECT ${NEXT_AFTER('$2')}
    UNION ALL
    SELECT ${NEXT_AFTER('ids.user_id')} FROM ids WHERE ids.user_id IS NOT NULL
  )
  SELECT user_id FROM ids
   WHERE user_id IS NOT NULL AND ($3::text IS NULL OR strpos(lower(user_id), lower($3::text)) > 0)
     AND (EXISTS (SELECT 1 FROM responses WHERE workspace_id = $1 AND user_id = ids.user_id)
          OR EXISTS (SELECT 1 FROM user_consent WHERE workspace_id = $1 AND user_id = ids.user_id)
          OR EXISTS (SELECT 1 FROM feedback_events WHERE workspace_id = $1 AND user_id = ids.user_id AND source NOT IN ('review', 'judge')))
   LIMIT $4`;

interface FiguresRow {
  user_id: string;
  responses: string;
  last_response_at: Date | null;
  events: string;
  last_event_at: Date | null;
  positive: string | null;
  negative: string | null;
  explicit: boolean | null;
  implicit: boolean | null;
  outcome: boolean | null;
  types: Consent['types'] | null;
  updated_at: Date | null;
}

const FIGURES_SQL = `
  SELECT u.user_id, r.responses, r.last_response_at, e.events, e.last_event_at, d.positive, d.negative,
         c.explicit, c.implicit, c.outcome, c.types, c.updated_at
    FROM unnest($2::text[]) AS u(user_id)
    CROSS JOIN LATERAL (SELECT count(*) AS responses, max(created_at) AS last_response_at
                          FROM responses WHERE workspace_id = $1 AND user_id = u.user_id) r
    CROSS JOIN LATERAL (SELECT count(*) AS events, max(occurred_at) AS last_event_at
                          FROM feedback_events WHERE workspace_id = $1 AND user_id = u.user_id) e
    CROSS JOIN LATERAL (SELECT sum((sums->>'positiveRatings')::bigint) AS positive, sum((sums->>'negativeRatings')::bigint) AS negative
                          FROM feedback_user_stats_daily WHERE workspace_id = $1 AND user_id = u.user_id) d
    LEFT JOIN user_consent c ON c.workspace_id = $1 AND c.user_id = u.user_id`;

const PERCENT = 100;
const latest = (a: Date | null, b: Date | null): Date | null => (a === null ? b : b === null ? a : a > b ? a : b);

/**
 * One page of the workspace's users in id order after `after` (a user id), `search` a
 * case-insensitive piece of the id.
 *
 * @example
 * const page = await listUsers(db, 'ws-1', { search: 'user-4', limit: 50 });
 * // { data: [{ userId: 'user-4', events: 97, satisfaction: 81.3, consent: { implicit: true, … }, … }], nextCursor: null }
 */
export async function listUsers(db: SqlExecutor, workspaceId: string, page: { search?: string; after?: string; limit: number }): Promise<UserListPage> {
  const ids = await db.query<{ user_id: string }>(IDS_SQL, [workspaceId, page.after ?? '', page.search ?? null, page.limit + 1]);
  const more = ids.length > page.limit;
  const userIds = ids.slice(0, page.limit).map((r) => r.user_id);
  if (userIds.length === 0) return { data: [], nextCursor: null };
  const rows = await db.query<FiguresRow>(FIGURES_SQL, [workspaceId, userIds]);
  const byId = new Map(rows.map((r) => [r.user_id, r]));
  const data = userIds.map((userId): UserListItem => {
    const r = byId.get(userId) as FiguresRow;
    const positive = Number(r.positive ?? 0);
    const negative = Number(r.negative ?? 0);
    const rated = positive + negative;
    const seen = latest(r.last_event_at, r.last_response_at);
    return {
      userId,
      responses: Number(r.responses),
      events: Number(r.events),
      lastSeenAt: seen ? seen.toISOString() : null,
      ratings: { positive, negative },
      satisfaction: rated === 0 ? null : Math.round((positive / rated) * PERCENT * 10) / 10,
      consent: { explicit: r.explicit, implicit: r.implicit, outcome: r.outcome, types: r.types ?? {}, updatedAt: r.updated_at ? r.updated_at.toISOString() : null },
    };
  });
  return { data, nextCursor: more ? (userIds.at(-1) ?? null) : null };
}
