/**
 * What retention reads before it archives (pipeline/retention.ts): pages of a workspace's events
 * past its limits and of its responses with no event left, and Postgres's month partitions of
 * `feedback_events`, each row as the archive's JSON line.
 */
import type { SqlClient } from '../db/sql-client.js';

/** A row to archive: its id, its month (`YYYY-MM`, the archive file it goes to) and its JSON line. */
export interface ArchiveLine {
  id: string;
  month: string;
  line: string;
}

const RESPONSE_JSON = `json_build_object('id', r.id, 'workspaceId', r.workspace_id, 'sessionId', r.session_id, 'userId', r.user_id, 'query', r.query,
  'answer', r.answer, 'sources', r.sources, 'contextDocumentIds', r.context_document_ids, 'contextTokenCount', r.context_token_count,
  'model', r.model, 'agent', r.agent, 'queryType', r.query_type, 'experimentId', r.experiment_id, 'variant', r.variant, 'traceId', r.trace_id,
  'metadata', r.metadata, 'createdAt', r.created_at, 'receivedAt', r.received_at)::text`;

const EVENT_JSON = `json_build_object('id', e.id, 'workspaceId', e.workspace_id, 'responseId', e.response_id, 'type', e.type, 'source', e.source,
  'userId', e.user_id, 'sessionId', e.session_id, 'targetId', e.target_id, 'payload', e.payload, 'metadata', e.metadata,
  'editDistance', e.edit_distance, 'occurredAt', e.occurred_at, 'receivedAt', e.received_at, 'duplicateOf', e.duplicate_of,
  'supersededBy', e.superseded_by, 'verified', e.verified, 'sampleWeight', e.sample_weight)::text`;

/** Which of a workspace's events retention lets go of. */
export interface RetentionLimits {
  /** Events received before it go. */
  cutoff: Date;
  /** A user's events beyond this many (newest kept) go; null: no cap. */
  maxEventsPerUser: number | null;
  /** The workspace's events beyond this many (newest kept) go; null: no cap. */
  maxEvents: number | null;
}

/**
 * The oldest `limit` events of a workspace that its limits let go of: received before the cutoff,
 * a user's beyond their cap, or the workspace's beyond its cap (oldest first). An event still
 * waiting for processing is left for a later run: the rollups keep what a removed event counted,
 * and an event removed before it was processed would never have counted (a backlog of 150,000 on
 * the embedded database, capped at 100,000, lost 50,000 events from every figure that way).
 *
 * @example
 * await readExpiredEvents(db, 'ws_1', { cutoff, maxEventsPerUser: null, maxEvents: 100_000 }, 5_000)
 */
export function readExpiredEvents(db: SqlClient, workspaceId: string, limits: RetentionLimits, limit: number): Promise<Array<ArchiveLine & { user_id: string | null }>> {
  return db.query(
    `WITH ranked AS (
       SELECT e.id, e.seq, e.received_at,
              row_number() OVER (PARTITION BY e.user_id ORDER BY e.seq DESC) AS by_user,
              row_number() OVER (ORDER BY e.seq DESC) AS by_workspace
         FROM feedback_events e WHERE e.workspace_id = $1)
     SELECT e.id, e.user_id, to_char(e.received_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, ${EVENT_JSON} AS line
       FROM ranked r JOIN feedback_events e ON e.workspace_id = $1 AND e.seq = r.seq AND e.received_at = r.received_at
      WHERE (r.received_at < $2
             OR ($3::bigint IS NOT NULL AND e.user_id IS NOT NULL AND r.by_user > $3)
             OR ($4::bigint IS NOT NULL AND r.by_workspace > $4))
        AND NOT EXISTS (SELECT 1 FROM pipeline_pending p WHERE p.workspace_id = $1 AND p.event_id = e.id)
      ORDER BY e.seq LIMIT $5`,
    [workspaceId, limits.cutoff, limits.maxEventsPerUser, limits.maxEvents, limit],
  );
}

/**
 * The oldest `limit` responses of a workspace created before `createdBefore` and received before
 * `receivedBefore` with no event left (their events all went, or they never had one).
 *
 * @example
 * await readOrphanResponses(db, 'ws_1', { createdBefore: cutoff, receivedBefore: yesterday }, 5_000)
 */
export function readOrphanResponses(db: SqlClient, workspaceId: string, before: { createdBefore: Date; receivedBefore: Date }, limit: number): Promise<ArchiveLine[]> {
  return db.query(
    `SELECT r.id, to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, ${RESPONSE_JSON} AS line
       FROM responses r
      WHERE r.workspace_id = $1 AND r.created_at < $2 AND r.received_at < $3
        AND NOT EXISTS (SELECT 1 FROM feedback_events e WHERE e.workspace_id = r.workspace_id AND e.response_id = r.id)
      ORDER BY r.created_at, r.id LIMIT $4`,
    [workspaceId, before.createdBefore, before.receivedBefore, limit],
  );
}

/** Postgres: the month partitions of `feedback_events` (`feedback_events_YYYY_MM`), in order. */
export async function listEventPartitions(db: SqlClient): Promise<string[]> {
  const rows = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'feedback_events'::regclass AND c.relname ~ '^feedback_events_\\d{4}_\\d{2}$' ORDER BY c.relname`,
  );
  return rows.map((r) => r.name);
}

/** Postgres: every event of one partition (a name from {@link listEventPartitions}) as its archive line, by workspace and sequence. */
export function readPartitionEvents(db: SqlClient, name: string): Promise<Array<{ workspace_id: string; line: string }>> {
  return db.query(`SELECT e.workspace_id, ${EVENT_JSON} AS line FROM "${name}" e ORDER BY e.workspace_id, e.seq`);
}
