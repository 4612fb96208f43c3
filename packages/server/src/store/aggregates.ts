/**
 * Aggregates that leave a workspace or cross workspaces (`GET /v1/aggregates`,
 * `GET /v1/baselines`), each group with its number of distinct users so that groups under the
 * workspace's `kAnonymity` can be suppressed (core suppressSmallGroups).
 */
import type { SqlExecutor } from '../db/sql-client.js';
import { BY_USERS } from './response-list-tags.js';

/** Dimensions a group can be formed by. */
export const AGGREGATE_GROUP_BY = ['agent', 'model', 'query_type', 'variant', 'day'] as const;
/** One of {@link AGGREGATE_GROUP_BY}. */
export type AggregateGroupBy = (typeof AGGREGATE_GROUP_BY)[number];

/** One group's counts. */
export interface AggregateGroup {
  group: string | null;
  events: number;
  rated: number;
  positive: number;
  negative: number;
  /** Implicit signals, estimated from the sample (each kept one counts 1 / rate). */
  implicit: number;
  /** Distinct users whose feedback the group counts (events without a user are not users). */
  users: number;
}

const GROUP_EXPR: Record<AggregateGroupBy, string> = {
  agent: 'r.agent',
  model: 'r.model',
  query_type: 'r.query_type',
  variant: 'r.variant',
  day: "to_char(s.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')",
};

/**
 * Events are counted by their sample weight (1, or 1 / rate for a sampled implicit signal): the
 * estimate of all events. Aggregates are what users said: reviewers' and judges' signals are left
 * out (`BY_USERS`).
 */
const SELECT_COUNTS = `round(sum(COALESCE(s.sample_weight, 1)))::int AS events,
  count(*) FILTER (WHERE s.type IN ('thumbs_up', 'thumbs_down', 'rating', 'rate_usefulness') AND s.polarity IN ('positive', 'negative'))::int AS rated,
  count(*) FILTER (WHERE s.type IN ('thumbs_up', 'thumbs_down', 'rating', 'rate_usefulness') AND s.polarity = 'positive')::int AS positive,
  count(*) FILTER (WHERE s.type IN ('thumbs_up', 'thumbs_down', 'rating', 'rate_usefulness') AND s.polarity = 'negative')::int AS negative,
  round(sum(COALESCE(s.sample_weight, 1)) FILTER (WHERE s.type IN ('edit', 'retry', 'abandon', 'continue', 'implicit_accept', 'implicit_reject')))::int AS implicit`;

/**
 * A workspace's counted feedback of a period, grouped, with distinct users per group.
 *
 * @example
 * await workspaceAggregates(db, ws, 'agent', from, to) // [{ group: 'sql', events: 120, users: 31, … }]
 */
export async function workspaceAggregates(db: SqlExecutor, workspaceId: string, groupBy: AggregateGroupBy, from: Date, to: Date): Promise<AggregateGroup[]> {
  return db.query<AggregateGroup>(
    `SELECT ${GROUP_EXPR[groupBy]} AS "group", ${SELECT_COUNTS}, count(DISTINCT s.user_id)::int AS users
       FROM feedback_signals s JOIN responses r ON r.workspace_id = s.workspace_id AND r.id = s.response_id
      WHERE s.workspace_id = $1 AND s.status = 'counted' AND s.occurred_at >= $2 AND s.occurred_at < $3 AND ${BY_USERS}
      GROUP BY 1 ORDER BY 1 NULLS LAST`,
    [workspaceId, from, to],
  );
}

/** One workspace's part of a cross-workspace group, with that workspace's stored settings. */
export interface BaselinePartRow extends AggregateGroup {
  workspaceId: string;
  /** The workspace's stored settings (its `kAnonymity` decides whether its part may be shown). */
  settings: unknown;
}

/**
 * The tenant's counted feedback of a period, grouped, one row per group and workspace (a user is
 * a (workspace, user id) pair: the same id in two workspaces is not assumed to be one person), so
 * each workspace's own k can be applied to its own part (core suppressBaselineParts).
 *
 * @example
 * await tenantBaselineParts(db, 'default', 'model', from, to) // [{ group: 'gpt-4o', workspaceId: 'ws-1', users: 14, settings, … }]
 */
export async function tenantBaselineParts(db: SqlExecutor, tenantId: string, groupBy: AggregateGroupBy, from: Date, to: Date): Promise<BaselinePartRow[]> {
  return db.query<BaselinePartRow>(
    `SELECT ${GROUP_EXPR[groupBy]} AS "group", ${SELECT_COUNTS},
            count(DISTINCT s.user_id)::int AS users, w.id AS "workspaceId", min(w.settings::text)::jsonb AS settings
       FROM workspaces w
       JOIN feedback_signals s ON s.workspace_id = w.id
       JOIN responses r ON r.workspace_id = s.workspace_id AND r.id = s.response_id
      WHERE w.tenant_id = $1 AND s.status = 'counted' AND s.occurred_at >= $2 AND s.occurred_at < $3 AND ${BY_USERS}
      GROUP BY 1, w.id ORDER BY 1 NULLS LAST, w.id`,
    [tenantId, from, to],
  );
}
