/**
 * Planner statistics the database would otherwise lack. PGlite has no autovacuum daemon, so an
 * embedded database never had statistics and its planner guessed. One guess cost the pipeline
 * most of its time: looking a response up by its key, it chose the export index
 * `(workspace_id, md5(query), id)` over the primary key and skip-scanned every prompt of the
 * workspace for each event (0.2-0.5 ms a lookup with 500 responses, growing with them; 0.008 ms on
 * the primary key once analyzed). Postgres's autovacuum analyzes a table only on its next round
 * (`autovacuum_naptime`, a minute) and never analyzes a partitioned table itself: a new install
 * that took a burst of events planned its upkeep with no statistics, and the scheduled training
 * batches' check of 3,739 corrections among 70,000 signals scanned a whole index of the workspace
 * for each of them (4-29 s of a core, against 35 ms once analyzed; docs/benchmarks.md, "Fifteenth
 * session").
 */
import type { SqlClient } from './sql-client.js';

/**
 * Grown: at least this fraction larger than when last analyzed, and by at least
 * {@link MIN_GROWN_PAGES} pages, so small tables are not analyzed on every sweep. A doubling, not
 * autovacuum's tenth: the planner scales a table's row count with its size between analyses, and
 * what the statistics are for (a key's index over a skip scan) does not change as a table grows.
 * At a tenth, a new install's growing tables were analyzed every sweep or two: 41 analyses of
 * 100-420 ms in the keep-up benchmark's 100 s, each holding the one connection (docs/benchmarks.md,
 * "Twelfth session").
 */
const GROWTH = 1;
const MIN_GROWN_PAGES = 8;
/**
 * Rows sampled are 300 × this: 3,000 instead of Postgres's default 30,000. The transaction holds
 * the one connection while it samples, and coarse statistics suffice to pick a key's index over a
 * skip scan.
 */
const STATISTICS_TARGET = 10;

/**
 * Analyzes the tables that grew since their statistics were taken (or never had them), as
 * autovacuum would, each in a background transaction of its own so requests go first; a
 * partitioned table's own statistics are refreshed when one of its partitions was. Run by the
 * sweep on both stores. On Postgres only the tables nobody analyzed yet: autovacuum keeps the others
 * (a doubling rule there re-analyzed a new install's growing tables beside autovacuum, and a
 * 50,000-event backlog drained ~15 % slower); a table another session is analyzing is skipped, not
 * waited for, and the sample is Postgres's own size (the coarse one is for PGlite, whose one
 * connection the sample holds).
 *
 * @returns the tables analyzed.
 * @example
 * await analyzeGrownTables(db); // ['responses', 'feedback_signals']
 */
export async function analyzeGrownTables(db: SqlClient): Promise<string[]> {
  const grown = await db.query<{ name: string; parent: string | null }>(
    `SELECT quote_ident(c.relname) AS name, quote_ident(p.relname) AS parent
       FROM pg_class c
       LEFT JOIN pg_inherits i ON i.inhrelid = c.oid
       LEFT JOIN pg_class p ON p.oid = i.inhparent
      WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND c.relkind = 'r'
        AND pg_relation_size(c.oid) / current_setting('block_size')::int >= GREATEST(c.relpages, 0) * (1 + $1::float8) + $2::int
        AND ($3::boolean OR c.reltuples < 0)
      ORDER BY c.relname`,
    [GROWTH, MIN_GROWN_PAGES, db.dialect === 'pglite'],
  );
  const analyze = (target: string): Promise<void> =>
    db.transaction(
      (tx) => tx.exec(db.dialect === 'pglite' ? `SET LOCAL default_statistics_target = ${STATISTICS_TARGET}; ANALYZE ${target}` : `ANALYZE (SKIP_LOCKED) ${target}`),
      { background: true },
    );
  const parents = new Set<string>();
  for (const { name, parent } of grown) {
    await analyze(name);
    if (parent !== null) parents.add(parent);
  }
  // The parent's statistics over all its partitions: ONLY (Postgres 17, PGlite) spares analyzing each
  // partition again; Postgres before 17 knows no ONLY, and its ANALYZE of the parent does both.
  for (const parent of parents) await analyze(db.dialect === 'pglite' ? `ONLY ${parent}` : parent);
  return [...grown.map((g) => g.name), ...parents];
}
