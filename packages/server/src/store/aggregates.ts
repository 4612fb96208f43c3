/**
 * Aggregates that leave a workspace or cross workspaces (`GET /v1/aggregates`,
 * `GET /v1/baselines`), each group with its number of distinct users so that groups under the
 * workspace's `kAnonymity` can be suppressed (core suppressSmallGroups).
 */
import type { SqlExecutor } from '../db/sql-client.js';

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

/** Events are counted by their sample weight (1, or 1 / rate for a sampled implicit signal): the estimate of all events. */
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
      WHERE s.workspace_id = $1 AND s.status = 'counted' AND s.occurred_at >= $2 AND s.occurred_at < $3
      GROUP BY 1 ORDER BY 1 NULLS LAST`,
    [workspaceId, from, to],
  );
}

/** One cross-workspace group: its counts, users and the workspaces it spans. */
export interface BaselineGroup extends AggregateGroup {
  workspaces: number;
}

/**
 * The tenant's counted feedback of a period across all its workspaces, grouped; a user is a
 * (workspace, user id) pair: the same id in two workspaces is not assumed to be one person.
 *
 * @example
 * await tenantBaselines(db, 'default', 'model', from, to) // [{ group: 'gpt-4o', workspaces: 3, users: 140, … }]
 */
export async function tenantBaselines(db: SqlExecutor, tenantId: string, groupBy: AggregateGroupBy, from: Date, to: Date): Promise<BaselineGroup[]> {
  return db.query<BaselineGroup>(
    `SELECT ${GROUP_EXPR[groupBy]} AS "group", ${SELECT_COUNTS},
            count(DISTINCT (s.workspace_id, s.user_id)) FILTER (WHERE s.user_id IS NOT NULL)::int AS users,
            count(DISTINCT s.workspace_id)::int AS workspaces
       FROM workspaces w
       JOIN feedback_signals s ON s.workspace_id = w.id
       JOIN responses r ON r.workspace_id = s.workspace_id AND r.id = s.response_id
      WHERE w.tenant_id = $1 AND s.status = 'counted' AND s.occurred_at >= $2 AND s.occurred_at < $3
      GROUP BY 1 ORDER BY 1 NULLS LAST`,
    [tenantId, from, to],
  );
}
