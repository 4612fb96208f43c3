/**
 * The values a workspace's response list can be filtered by (`GET /v1/response-facets`, the
 * Responses page's filter choices): its agents, models, experiment variants and error categories.
 *
 * Each is a loose index scan (one probe per distinct value) on the index the list's own filter
 * uses: `responses_agent_created`, `responses_model_created`, `responses_variant_created`
 * (migration 0016) and `response_list_tags`' key (`category:<name>` tags, migration 0019). A
 * workspace of millions of responses with five agents costs six probes; at most
 * {@link FACET_LIMIT} values each are listed.
 */
import type { SqlExecutor } from '../db/sql-client.js';

/** Values listed a facet at most (`truncated` says when there were more). */
export const FACET_LIMIT = 200;

/** The facets. */
export interface ResponseFacets {
  agents: string[];
  models: string[];
  variants: Array<{ experimentId: string; variant: string }>;
  categories: string[];
  /** Facets that had more than {@link FACET_LIMIT} values (the first ones are listed). */
  truncated: string[];
}

/** The distinct values of a column of `responses`, walked on its index. */
const distinctColumn = (column: 'agent' | 'model') => `
  WITH RECURSIVE v(value) AS (
    SELECT min(${column}) FROM responses WHERE workspace_id = $1 AND ${column} IS NOT NULL
    UNION ALL
    SELECT (SELECT min(${column}) FROM responses WHERE workspace_id = $1 AND ${column} > v.value) FROM v WHERE v.value IS NOT NULL
  )
  SELECT value FROM v WHERE value IS NOT NULL LIMIT $2`;

const VARIANTS_SQL = `
  WITH RECURSIVE v(experiment_id, variant) AS (
    (SELECT experiment_id, variant FROM responses
      WHERE workspace_id = $1 AND variant IS NOT NULL AND experiment_id IS NOT NULL ORDER BY experiment_id, variant LIMIT 1)
    UNION ALL
    SELECT n.experiment_id, n.variant FROM v CROSS JOIN LATERAL (
      SELECT experiment_id, variant FROM responses
       WHERE workspace_id = $1 AND variant IS NOT NULL AND experiment_id IS NOT NULL AND (experiment_id, variant) > (v.experiment_id, v.variant)
       ORDER BY experiment_id, variant LIMIT 1) n
  )
  SELECT experiment_id, variant FROM v LIMIT $2`;

// Category tags share the prefix `category:` and so sort together: the walk starts at the first
// tag after 'category' and stops at the first tag that is not a category.
const CATEGORIES_SQL = `
  WITH RECURSIVE c(tag) AS (
    SELECT min(tag) FROM response_list_tags WHERE workspace_id = $1 AND tag > 'category'
    UNION ALL
    SELECT (SELECT min(tag) FROM response_list_tags WHERE workspace_id = $1 AND tag > c.tag) FROM c WHERE c.tag LIKE 'category:%'
  )
  SELECT substr(tag, 10) AS value FROM c WHERE tag LIKE 'category:%' LIMIT $2`;

/**
 * The workspace's facets, each sorted.
 *
 * @example
 * await responseFacets(db, 'ws-1')
 * // { agents: ['search', 'sql', 'support'], models: ['gpt-4o', …], variants: [{ experimentId: 'support-prompt-v2', variant: 'concise' }, …], categories: ['hallucination', …], truncated: [] }
 */
export async function responseFacets(db: SqlExecutor, workspaceId: string): Promise<ResponseFacets> {
  const p = [workspaceId, FACET_LIMIT + 1];
  const agents = (await db.query<{ value: string }>(distinctColumn('agent'), p)).map((r) => r.value);
  const models = (await db.query<{ value: string }>(distinctColumn('model'), p)).map((r) => r.value);
  const variants = (await db.query<{ experiment_id: string; variant: string }>(VARIANTS_SQL, p)).map((r) => ({ experimentId: r.experiment_id, variant: r.variant }));
  const categories = (await db.query<{ value: string }>(CATEGORIES_SQL, p)).map((r) => r.value);
  const all = { agents, models, variants, categories };
  const truncated = Object.entries(all).filter(([, values]) => values.length > FACET_LIMIT).map(([name]) => name);
  return {
    agents: agents.slice(0, FACET_LIMIT),
    models: models.slice(0, FACET_LIMIT),
    variants: variants.slice(0, FACET_LIMIT),
    categories: categories.slice(0, FACET_LIMIT),
    truncated,
  };
}
