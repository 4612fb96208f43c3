/**
 * The issue-8 baselines' "minimal table": one row per event, one index (the primary key on the
 * event id, which also makes a retried event a no-op). The minimal durable server inserts into it
 * and the batched benchmark `COPY`s into it, so both baselines measure what the store takes for a
 * lean row, without feedloop's schema.
 */

/** Creates the minimal table (idempotent). */
export const MINIMAL_TABLE_DDL = `CREATE TABLE IF NOT EXISTS minimal_events (
  id text PRIMARY KEY,
  received_at timestamptz NOT NULL DEFAULT now(),
  body jsonb NOT NULL
)`;

/** One multi-row INSERT of a group commit: `$1` the ids, `$2` the bodies (JSON text). */
export const MINIMAL_INSERT = `INSERT INTO minimal_events (id, body)
  SELECT * FROM unnest($1::text[], $2::jsonb[]) ON CONFLICT (id) DO NOTHING`;

/** The `COPY` statement of the minimal-table baseline (rows: `id \t body`). */
export const MINIMAL_COPY = 'COPY minimal_events (id, body) FROM STDIN';
