/**
 * Reads of feedback events: filtered listing with cursor pagination, newest first.
 */
import type { SqlExecutor } from '../db/sql-client.js';
import type { FeedbackEventRow } from './feedback-event-row.js';

/** A stored feedback event as the API shows it. */
export interface FeedbackView {
  id: string;
  responseId: string;
  type: string;
  source: string;
  userId: string | null;
  sessionId: string | null;
  targetId: string | null;
  payload: unknown;
  metadata: unknown;
  editDistance: number | null;
  occurredAt: string;
  receivedAt: string;
  /** Set when a newer vote of the same user replaced this one. */
  supersededBy: string | null;
  /** Present when the event was retracted: it stays on record and counts for nothing. */
  retracted?: { at: string; reason: string | null };
}

/** Filters of a listing; all optional. */
export interface FeedbackFilter {
  responseId?: string;
  userId?: string;
  sessionId?: string;
  types?: string[];
  /** One source (explicit, implicit, outcome, review, judge). */
  source?: string;
  /** A judge's `metadata.evaluatorId`. */
  evaluatorId?: string;
  since?: Date;
  until?: Date;
}

/** The columns of an event the listing reads. */
type FeedbackRow = Pick<
  FeedbackEventRow,
  'seq' | 'id' | 'response_id' | 'type' | 'source' | 'user_id' | 'session_id' | 'target_id' | 'payload' | 'metadata' | 'edit_distance' | 'occurred_at' | 'received_at' | 'superseded_by' | 'retracted_at' | 'retraction_reason'
>;

/** Turns a row into the API view. */
export function toFeedbackView(r: FeedbackRow): FeedbackView {
  return {
    id: r.id,
    responseId: r.response_id,
    type: r.type,
    source: r.source,
    userId: r.user_id,
    sessionId: r.session_id,
    targetId: r.target_id,
    payload: r.payload,
    metadata: r.metadata,
    editDistance: r.edit_distance,
    occurredAt: r.occurred_at.toISOString(),
    receivedAt: r.received_at.toISOString(),
    supersededBy: r.superseded_by,
    ...(r.retracted_at ? { retracted: { at: r.retracted_at.toISOString(), reason: r.retraction_reason } } : {}),
  };
}

/** Encodes a position in a listing; opaque to clients. */
export function encodeCursor(seq: number): string {
  return Buffer.from(`s${seq}`).toString('base64url');
}

/** Decodes a cursor; `undefined` when it is not one of ours. */
export function decodeCursor(cursor: string): number | undefined {
  const m = /^s(\d{1,16})$/.exec(Buffer.from(cursor, 'base64url').toString());
  return m ? Number(m[1]) : undefined;
}

/**
 * Lists a workspace's feedback, newest first. Content duplicates are never listed: they were
 * answered `duplicate` and are kept only so a retry of their id is recognised.
 *
 * @example
 * const page = await listFeedback(db, ws, { responseId: 'r1' }, undefined, 50);
 * // { data: FeedbackView[], nextCursor: string | null }
 */
export async function listFeedback(
  db: SqlExecutor,
  workspaceId: string,
  filter: FeedbackFilter,
  beforeSeq: number | undefined,
  limit: number,
): Promise<{ data: FeedbackView[]; nextCursor: string | null }> {
  const where = ['workspace_id = $1', 'duplicate_of IS NULL'];
  const params: unknown[] = [workspaceId];
  const add = (sql: string, value: unknown): void => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (filter.responseId !== undefined) add('response_id = ?', filter.responseId);
  if (filter.userId !== undefined) add('user_id = ?', filter.userId);
  if (filter.sessionId !== undefined) add('session_id = ?', filter.sessionId);
  if (filter.types !== undefined && filter.types.length > 0) add('type = ANY(?::text[])', filter.types);
  if (filter.source !== undefined) add('source = ?', filter.source);
  if (filter.evaluatorId !== undefined) add(`metadata->>'evaluatorId' = ?`, filter.evaluatorId);
  if (filter.since !== undefined) add('occurred_at >= ?', filter.since);
  if (filter.until !== undefined) add('occurred_at < ?', filter.until);
  if (beforeSeq !== undefined) add('seq < ?', beforeSeq);
  params.push(limit + 1);
  const rows = await db.query<FeedbackRow>(
    `SELECT seq, id, response_id, type, source, user_id, session_id, target_id, payload, metadata, edit_distance,
            occurred_at, received_at, superseded_by, retracted_at, retraction_reason
       FROM feedback_events WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT $${params.length}`,
    params,
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { data: page.map(toFeedbackView), nextCursor: rows.length > limit && last ? encodeCursor(last.seq) : null };
}

/**
 * A response's current feedback counted by source (duplicates, replaced votes and retracted
 * events left out), so its detail shows reviewers' and judges' verdicts apart from its users'
 * however long its feedback list. Reads the response's slice of `feedback_events_response`.
 *
 * @example
 * await countFeedbackBySource(db, ws, 'r1') // { explicit: 3, judge: 2 }
 */
export async function countFeedbackBySource(db: SqlExecutor, workspaceId: string, responseId: string): Promise<Record<string, number>> {
  const rows = await db.query<{ source: string; n: number }>(
    `SELECT source, count(*)::int AS n FROM feedback_events
      WHERE workspace_id = $1 AND response_id = $2 AND duplicate_of IS NULL AND superseded_by IS NULL AND retracted_at IS NULL
      GROUP BY source ORDER BY source`,
    [workspaceId, responseId],
  );
  return Object.fromEntries(rows.map((r) => [r.source, r.n]));
}
