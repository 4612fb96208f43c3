/**
 * The reads behind GET /v1/insights: a bounded read of the events that carry texts and verdicts
 * (corrections, comments, negative ratings, escalations) through the partial index of migration
 * 0009, with each correction's stored classification (migration 0021), and sums of the daily
 * rollup per agent, model and query type. Never a scan of all history.
 */
import { storedCorrectionPair } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import { CORRECTION_CLASS_VERSION, CORRECTION_TEXT_CHARS, type StoredCorrectionClass } from './correction-class.js';

/** Events read per period at most; the report says `sampled: true` when a period had more. */
export const INSIGHT_EVENTS_LIMIT = 5_000;
/** Characters of a comment read. */
const COMMENT_CHARS = 2_000;
/**
 * Index probes for the read's responses and signal rows (LATERAL, fenced with OFFSET 0), as in
 * claimed-events.ts: with plain joins the planner hashed the whole tables for the 5,000 rows,
 * 1.0 M signal rows and 100,000 responses read to answer 5,000 (250 ms of a 300 ms read at 1 M
 * events, growing with the workspace).
 */
const PROBE = 'OFFSET 0';
/** The latest an event may be received before it occurred: the future skew ingest allows (LIMITS.futureSkewMs). */
const SKEW_INTERVAL = '5 minutes';

/**
 * The bounded read of {@link readInsightEvents}; exported so a test can check its plan. The
 * first parenthesised condition is the predicate of the index feedback_events_insights, word for
 * word (migration 0009): keep them identical, or the planner cannot prove the rows are in it.
 * A correction's texts are read only when it has no stored classification of the current version
 * (a primary-key probe of its signal row): up to 20,000 characters a correction otherwise. The
 * response and the signal row are each found by their primary key ({@link PROBE}).
 * Judges' events are left out (a model's rationale is no error report); reviewers' comments and
 * corrections are people's and stay in.
 * Parameters: workspace, from, to, limit, comments only, text and comment lengths, classifier version.
 */
export const INSIGHT_EVENTS_SQL = `SELECT e.id, e.type, e.payload->>'format' AS format, s.correction,
            CASE WHEN e.type = 'correction' AND s.correction IS NULL THEN left(e.payload->>'original', $6) END AS "ownOriginal",
            CASE WHEN e.type = 'correction' AND s.correction IS NULL THEN left(r.answer, $6) END AS answer,
            CASE WHEN e.type = 'correction' AND s.correction IS NULL THEN left(e.payload->>'corrected', $6) END AS corrected,
            left(COALESCE(e.payload->>'comment', e.payload->>'note', e.payload->>'reason'), $7) AS comment,
            CASE WHEN e.type IN ('rating', 'rate_usefulness') THEN (e.payload->>'rating')::int END AS rating,
            r.agent, r.model, r.query_type AS "queryType", e.user_id AS "userId"
       FROM (SELECT id, type, payload, response_id, occurred_at, user_id FROM feedback_events
              WHERE workspace_id = $1
                AND (type IN ('correction', 'escalation', 'thumbs_down', 'rating', 'rate_usefulness') OR payload ?| array['comment', 'note', 'reason'])
                AND occurred_at >= $2 AND occurred_at < $3 AND received_at >= $2::timestamptz - interval '${SKEW_INTERVAL}'
                AND duplicate_of IS NULL AND superseded_by IS NULL AND retracted_at IS NULL AND source <> 'judge'
                AND ($5::boolean IS FALSE OR payload ?| array['comment', 'note', 'reason'])
              ORDER BY occurred_at DESC
              LIMIT $4) e
       LEFT JOIN LATERAL (SELECT answer, agent, model, query_type FROM responses r
                           WHERE r.workspace_id = $1 AND r.id = e.response_id ${PROBE}) AS r ON true
       LEFT JOIN LATERAL (SELECT correction FROM feedback_signals s
                           WHERE e.type = 'correction' AND s.workspace_id = $1 AND s.event_id = e.id AND (s.correction->>'v')::int = $8 ${PROBE}) AS s ON true
      ORDER BY e.occurred_at DESC, e.id`;

/** One event of the read, with its response's dimensions. */
export interface InsightEvent {
  id: string;
  type: string;
  format: string | null;
  /** A correction's stored classification of the current version; its texts are then not read (null). */
  correction: StoredCorrectionClass | null;
  original: string | null;
  corrected: string | null;
  comment: string | null;
  rating: number | null;
  agent: string | null;
  model: string | null;
  queryType: string | null;
  /** The user who gave it (distinct users of a theme). */
  userId: string | null;
}

/** A row of {@link INSIGHT_EVENTS_SQL}: a correction's own original and its response's answer, each cut to the texts' length. */
type InsightRow = Omit<InsightEvent, 'original'> & { ownOriginal: string | null; answer: string | null };

/** A row as the insights' event: the text corrected by core's rule (the correction's original, else the answer). */
function toInsightEvent({ ownOriginal, answer, ...row }: InsightRow): InsightEvent {
  // Non-corrections, and corrections with a stored classification, read no texts: no pair, null.
  return { ...row, original: storedCorrectionPair({ corrected: row.corrected, original: ownOriginal }, answer)?.original ?? null };
}

/**
 * The newest counted events of `[from, to)` (by occurrence) that carry a correction, a comment
 * (`comment`, `note`, `reason`), a rating or an escalation, at most `limit` of them (newest first),
 * with `commentsOnly` those with a comment. A correction without its `original` is compared with
 * its response's answer, as its edit distance was; one with a stored classification comes with it
 * instead of its texts. The `received_at` bound only prunes months of
 * the log: an event is received at the earliest five minutes before it occurred.
 *
 * @returns the events and whether the period held more than `limit`.
 * @example
 * await readInsightEvents(db, 'ws_1', new Date('2026-10-24'), new Date('2026-11-23'), { limit: 5000 })
 */
export async function readInsightEvents(
  db: SqlExecutor,
  workspaceId: string,
  from: Date,
  to: Date,
  options: { limit?: number; commentsOnly?: boolean } = {},
): Promise<{ events: InsightEvent[]; sampled: boolean }> {
  const limit = options.limit ?? INSIGHT_EVENTS_LIMIT;
  const rows = await db.query<InsightRow>(INSIGHT_EVENTS_SQL, [
    workspaceId,
    from.toISOString(),
    to.toISOString(),
    limit + 1,
    options.commentsOnly ?? false,
    CORRECTION_TEXT_CHARS,
    COMMENT_CHARS,
    CORRECTION_CLASS_VERSION,
  ]);
  return { events: rows.slice(0, limit).map(toInsightEvent), sampled: rows.length > limit };
}

/** Sums of the daily rollup for one agent, model or query type over a range of days. */
export interface DimensionTotals {
  dimension: 'agent' | 'model' | 'query_type';
  value: string;
  positive: number;
  negative: number;
  sessions: number;
  /** Escalated sessions: each day's stored escalation rate × its sessions, summed. */
  escalated: number;
}

/**
 * Sums `feedback_metrics_daily` per agent, model and query type over the UTC days
 * `[fromDay, toDay]`: ratings, sessions and escalated sessions (from the stored
 * `escalation_rate` and `total_sessions`, not recomputed from events).
 *
 * @example
 * await readDimensionTotals(db, 'ws_1', '2026-10-24', '2026-11-22')
 */
export async function readDimensionTotals(db: SqlExecutor, workspaceId: string, fromDay: string, toDay: string): Promise<DimensionTotals[]> {
  const rows = await db.query<{ dimension: DimensionTotals['dimension']; value: string; positive: string; negative: string; sessions: string; escalated: string }>(
    `SELECT dimension, dimension_value AS value, sum(positive_ratings) AS positive, sum(negative_ratings) AS negative,
            sum(total_sessions) AS sessions, sum(round(COALESCE(escalation_rate, 0) * total_sessions / 100)) AS escalated
       FROM feedback_metrics_daily
      WHERE workspace_id = $1 AND day >= $2::date AND day <= $3::date AND dimension IN ('agent', 'model', 'query_type')
      GROUP BY dimension, dimension_value`,
    [workspaceId, fromDay, toDay],
  );
  return rows.map((r) => ({
    dimension: r.dimension,
    value: r.value,
    positive: Number(r.positive),
    negative: Number(r.negative),
    sessions: Number(r.sessions),
    escalated: Number(r.escalated),
  }));
}
