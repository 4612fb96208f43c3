/**
 * SQL for adding two jsonb objects of counts key by key, as an upsert's `DO UPDATE` needs when a
 * row keeps per-category counts (`{"accuracy": 3}` + `{"accuracy": 1, "other": 2}`).
 */

/**
 * A scalar subquery summing the jsonb count objects `a` and `b` (SQL expressions) key by key;
 * `{}` when both are empty.
 *
 * @example
 * `SET counts = ${sumJsonbCounts('d.counts', 'EXCLUDED.counts')}`
 */
export function sumJsonbCounts(a: string, b: string): string {
  return `(SELECT COALESCE(jsonb_object_agg(key, total), '{}'::jsonb)
             FROM (SELECT key, sum(value::int) AS total
                     FROM (SELECT * FROM jsonb_each_text(${a}) UNION ALL SELECT * FROM jsonb_each_text(${b})) AS both_counts
                    GROUP BY key) AS summed)`;
}
