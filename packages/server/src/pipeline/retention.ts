/**
 * Retention (issue 11, ADR-016, Phase 4.1): raw events older than their workspace's
 * `retentionDays`, a user's events beyond `maxEventsPerUser` and a workspace's beyond `maxEvents`
 * (oldest first) are archived as gzip JSONL (emit/archive-writer.ts) and then deleted with what
 * hangs off them (id keys, fingerprints, current votes, signals, outbox rows); the response
 * list's tags of the responses whose signals went are recomputed from what is left. Then a
 * response created before the cutoff with no event left (all its events were past retention,
 * or it never had one) is archived beside the events and removed from the hot tables with what
 * hangs off it ("archive sessions older than 90 days", ADR-016; issue 24). Rollups stay: the
 * aggregates stay, the raw log and the texts go.
 *
 * Files are named by month (Phase 4.1's monthly archives): `<workspace>/events-YYYY-MM-<run>-<n>`
 * by the events' receipt, `<workspace>/responses-YYYY-MM-<run>-<n>` by the responses' creation,
 * and a dropped partition's `<workspace>/events-YYYY_MM-<run>-<n>`.
 *
 * On Postgres a month's partition of `feedback_events` that lies wholly before every
 * workspace's cutoff is archived and dropped whole (`DROP TABLE`, no row-by-row delete and no
 * bloat); what is left, and everything on PGlite, is deleted by rows.
 */
import type { SqlClient, SqlExecutor } from '../db/sql-client.js';
import type { S3Settings } from '../config.js';
import { writeArchive } from '../emit/archive-writer.js';
import { appendAudit } from '../store/audit-log.js';
import { deleteResponses } from '../store/response-removal.js';
import { dropMemorySnapshots } from '../store/user-memory-snapshot.js';
import { recomputeTags } from '../store/response-list-tags.js';
import { listWorkspaces } from '../store/workspaces.js';

/** Events archived per file (and per delete transaction). */
const PAGE = 5_000;
const DAY_MS = 86_400_000;

/** What a run did. */
export interface RetentionReport {
  /** Events archived and deleted. */
  archived: number;
  /** Responses archived and removed (their events all gone). */
  archivedResponses: number;
  files: string[];
  droppedPartitions: string[];
}

const RESPONSE_JSON = `json_build_object('id', r.id, 'workspaceId', r.workspace_id, 'sessionId', r.session_id, 'userId', r.user_id, 'query', r.query,
  'answer', r.answer, 'sources', r.sources, 'contextDocumentIds', r.context_document_ids, 'contextTokenCount', r.context_token_count,
  'model', r.model, 'agent', r.agent, 'queryType', r.query_type, 'experimentId', r.experiment_id, 'variant', r.variant, 'traceId', r.trace_id,
  'metadata', r.metadata, 'createdAt', r.created_at, 'receivedAt', r.received_at)::text`;

/** Lines grouped by their month (`YYYY-MM`), months in order. */
function byMonth<T extends { month: string }>(rows: readonly T[]): Array<[string, T[]]> {
  const groups = new Map<string, T[]>();
  for (const r of rows) groups.set(r.month, [...(groups.get(r.month) ?? []), r]);
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
}

const EVENT_JSON = `json_build_object('id', e.id, 'workspaceId', e.workspace_id, 'responseId', e.response_id, 'type', e.type, 'source', e.source,
  'userId', e.user_id, 'sessionId', e.session_id, 'targetId', e.target_id, 'payload', e.payload, 'metadata', e.metadata,
  'editDistance', e.edit_distance, 'occurredAt', e.occurred_at, 'receivedAt', e.received_at, 'duplicateOf', e.duplicate_of,
  'supersededBy', e.superseded_by, 'verified', e.verified, 'sampleWeight', e.sample_weight)::text`;

/** Deletes events (by workspace, id) and every row that hangs off them, in one transaction. */
async function deleteEvents(tx: SqlExecutor, workspaceId: string, ids: string[]): Promise<void> {
  const p = [workspaceId, ids];
  await tx.query('DELETE FROM feedback_events WHERE workspace_id = $1 AND id = ANY ($2::text[])', p);
  await tx.query('DELETE FROM feedback_event_ids WHERE workspace_id = $1 AND id = ANY ($2::text[])', p);
  await tx.query('DELETE FROM feedback_fingerprints WHERE workspace_id = $1 AND event_id = ANY ($2::text[])', p);
  await tx.query('DELETE FROM feedback_current_votes WHERE workspace_id = $1 AND event_id = ANY ($2::text[])', p);
  const gone = await tx.query<{ response_id: string }>('DELETE FROM feedback_signals WHERE workspace_id = $1 AND event_id = ANY ($2::text[]) RETURNING response_id', p);
  await tx.query('DELETE FROM pipeline_pending WHERE workspace_id = $1 AND event_id = ANY ($2::text[])', p);
  await recomputeTags(tx, gone.map((g) => ({ workspaceId, responseId: g.response_id })));
}

const stamp = (now: Date): string => now.toISOString().replace(/[:.]/g, '-');

/**
 * Archives and deletes what the workspaces' retention settings let go of.
 *
 * @example
 * await runRetention(db, { archive: '/srv/feedloop/archive' }) // { archived: 1200, files: [...], droppedPartitions: ['feedback_events_2026_07'] }
 */
export async function runRetention(db: SqlClient, options: { archive: string; s3?: S3Settings; now?: Date; defaultMaxEvents?: number | null }): Promise<RetentionReport> {
  const now = options.now ?? new Date();
  const report: RetentionReport = { archived: 0, archivedResponses: 0, files: [], droppedPartitions: [] };
  const workspaces = await listWorkspaces(db);
  if (workspaces.length === 0) return report;
  if (db.dialect === 'postgres') {
    const longest = Math.max(...workspaces.map((w) => w.settings.retentionDays));
    await dropPastPartitions(db, options, new Date(now.getTime() - longest * DAY_MS), now, report);
  }
  for (const ws of workspaces) {
    const { retentionDays, maxEventsPerUser } = ws.settings;
    // A workspace without its own cap takes the deployment's (Phase 4.1's 100K when embedded).
    const maxEvents = ws.settings.maxEvents ?? options.defaultMaxEvents ?? null;
    const cutoff = new Date(now.getTime() - retentionDays * DAY_MS);
    for (let part = 0; ; part++) {
      // Old events, then a user's beyond their cap, then the workspace's beyond its cap (newest kept).
      const rows = await db.query<{ id: string; user_id: string | null; month: string; line: string }>(
        `WITH ranked AS (
           SELECT e.id, e.seq, e.received_at,
                  row_number() OVER (PARTITION BY e.user_id ORDER BY e.seq DESC) AS by_user,
                  row_number() OVER (ORDER BY e.seq DESC) AS by_workspace
             FROM feedback_events e WHERE e.workspace_id = $1)
         SELECT e.id, e.user_id, to_char(e.received_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, ${EVENT_JSON} AS line
           FROM ranked r JOIN feedback_events e ON e.workspace_id = $1 AND e.seq = r.seq AND e.received_at = r.received_at
          WHERE r.received_at < $2
             OR ($3::bigint IS NOT NULL AND e.user_id IS NOT NULL AND r.by_user > $3)
             OR ($4::bigint IS NOT NULL AND r.by_workspace > $4)
          ORDER BY e.seq LIMIT $5`,
        [ws.id, cutoff, maxEventsPerUser, maxEvents, PAGE],
      );
      if (rows.length === 0) break;
      const files: string[] = [];
      for (const [month, lines] of byMonth(rows)) {
        files.push(await writeArchive(options.archive, `${ws.id}/events-${month}-${stamp(now)}-${part}`, lines.map((r) => r.line), options.s3));
      }
      await db.transaction(async (tx) => {
        await deleteEvents(tx, ws.id, rows.map((r) => r.id));
        await dropMemorySnapshots(tx, ws.id, [...new Set(rows.map((r) => r.user_id).filter((u): u is string => u !== null))]);
        await appendAudit(tx, { workspaceId: ws.id, action: 'retention.archived', details: { events: rows.length, files, retentionDays, maxEventsPerUser, maxEvents } });
      });
      report.archived += rows.length;
      report.files.push(...files);
      if (rows.length < PAGE) break;
    }
    await archiveResponses(db, options, ws.id, cutoff, now, report);
  }
  return report;
}

/**
 * Archives and removes a workspace's responses created before `cutoff` that have no event left:
 * their events were all past retention (archived before), or they never had one. Same archive
 * as the events, so the same rules hold for them (an erasure does not rewrite archives, see
 * docs/privacy.md).
 */
async function archiveResponses(db: SqlClient, { archive, s3 }: { archive: string; s3?: S3Settings }, workspaceId: string, cutoff: Date, now: Date, report: RetentionReport): Promise<void> {
  for (let part = 0; ; part++) {
    const rows = await db.query<{ id: string; month: string; line: string }>(
      `SELECT r.id, to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, ${RESPONSE_JSON} AS line
         FROM responses r
        WHERE r.workspace_id = $1 AND r.created_at < $2
          AND NOT EXISTS (SELECT 1 FROM feedback_events e WHERE e.workspace_id = r.workspace_id AND e.response_id = r.id)
        ORDER BY r.created_at, r.id LIMIT $3`,
      [workspaceId, cutoff, PAGE],
    );
    if (rows.length === 0) return;
    const files: string[] = [];
    for (const [month, lines] of byMonth(rows)) {
      files.push(await writeArchive(archive, `${workspaceId}/responses-${month}-${stamp(now)}-${part}`, lines.map((r) => r.line), s3));
    }
    await db.transaction(async (tx) => {
      const removed = await deleteResponses(tx, workspaceId, rows.map((r) => r.id));
      await appendAudit(tx, { workspaceId, action: 'retention.archived', details: { responses: removed, files } });
    });
    report.archivedResponses += rows.length;
    report.files.push(...files);
    if (rows.length < PAGE) return;
  }
}

/** Postgres: archives every row of each month partition wholly before `cutoff`, then drops it. */
async function dropPastPartitions(db: SqlClient, { archive, s3 }: { archive: string; s3?: S3Settings }, cutoff: Date, now: Date, report: RetentionReport): Promise<void> {
  const parts = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'feedback_events'::regclass AND c.relname ~ '^feedback_events_\\d{4}_\\d{2}$' ORDER BY c.relname`,
  );
  for (const { name } of parts) {
    const [, y, m] = /(\d{4})_(\d{2})$/.exec(name) ?? [];
    const monthEnd = new Date(Date.UTC(Number(y), Number(m), 1));
    if (monthEnd > cutoff) continue;
    const byWorkspace = await db.query<{ workspace_id: string; line: string }>(`SELECT e.workspace_id, ${EVENT_JSON} AS line FROM "${name}" e ORDER BY e.workspace_id, e.seq`);
    const groups = new Map<string, string[]>();
    for (const r of byWorkspace) groups.set(r.workspace_id, [...(groups.get(r.workspace_id) ?? []), r.line]);
    for (const [ws, lines] of groups) {
      for (let i = 0; i < lines.length; i += PAGE) {
        report.files.push(await writeArchive(archive, `${ws}/events-${name.slice('feedback_events_'.length)}-${stamp(now)}-${i / PAGE}`, lines.slice(i, i + PAGE), s3));
      }
    }
    const lo = new Date(Date.UTC(Number(y), Number(m) - 1, 1));
    await db.transaction(async (tx) => {
      const range = [lo, monthEnd];
      const gone = await tx.query<{ workspace_id: string; response_id: string }>(
        `DELETE FROM feedback_signals s USING feedback_event_ids k WHERE k.workspace_id = s.workspace_id AND k.id = s.event_id AND k.received_at >= $1 AND k.received_at < $2
         RETURNING s.workspace_id, s.response_id`,
        range,
      );
      await recomputeTags(tx, gone.map((g) => ({ workspaceId: g.workspace_id, responseId: g.response_id })));
      await tx.query(`DELETE FROM feedback_fingerprints f USING feedback_event_ids k WHERE k.workspace_id = f.workspace_id AND k.id = f.event_id AND k.received_at >= $1 AND k.received_at < $2`, range);
      await tx.query(`DELETE FROM pipeline_pending p USING feedback_event_ids k WHERE k.workspace_id = p.workspace_id AND k.id = p.event_id AND k.received_at >= $1 AND k.received_at < $2`, range);
      await tx.query('DELETE FROM feedback_current_votes WHERE received_at >= $1 AND received_at < $2', range);
      await tx.query('DELETE FROM feedback_event_ids WHERE received_at >= $1 AND received_at < $2', range);
      // Memory snapshots holding facts of the partition's events (rebuilt on their next read).
      await tx.query(
        `DELETE FROM user_memory_snapshots s USING (SELECT DISTINCT workspace_id, user_id FROM "${name}" WHERE user_id IS NOT NULL) d
          WHERE s.workspace_id = d.workspace_id AND s.user_id = d.user_id`,
      );
      await tx.exec(`DROP TABLE "${name}"`);
      for (const [ws, lines] of groups) await appendAudit(tx, { workspaceId: ws, action: 'retention.archived', details: { events: lines.length, partition: name } });
    });
    report.archived += byWorkspace.length;
    report.droppedPartitions.push(name);
  }
}
