/**
 * Retention (issue 11, ADR-016, Phase 4.1): raw events older than their workspace's
 * `retentionDays`, a user's events beyond `maxEventsPerUser` and a workspace's beyond `maxEvents`
 * (oldest first) are archived as gzip JSONL (store/archive-writer.ts) and then deleted with what
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
import { DAY_MS } from '@feedloop/core';
import type { S3Settings } from '../config.js';
import type { SqlClient } from '../db/sql-client.js';
import { writeArchive } from '../store/archive-writer.js';
import { appendAudit } from '../store/audit-log.js';
import { deleteOrphanResponses } from '../store/response-removal.js';
import { dropMemorySnapshots } from '../store/user-memory-snapshot.js';
import { deleteEvents, dropEventPartition } from '../store/event-removal.js';
import { listEventPartitions, readExpiredEvents, readOrphanResponses, readPartitionEvents } from '../store/retention-reads.js';
import { listWorkspaces } from '../store/workspaces.js';

/** Events archived per file (and per delete transaction). */
const PAGE = 5_000;
/**
 * A response received this recently is never an orphan, however old its creation time: an
 * import registers old responses, then posts their feedback, and the run in between (one runs
 * as a worker starts) took them before their first event came.
 */
const RESPONSE_RECEIPT_GRACE_MS = DAY_MS;

/** What a run did. */
export interface RetentionReport {
  /** Events archived and deleted. */
  archived: number;
  /** Responses archived and removed (their events all gone). */
  archivedResponses: number;
  files: string[];
  droppedPartitions: string[];
}

/** Lines grouped by their month (`YYYY-MM`), months in order. */
function byMonth<T extends { month: string }>(rows: readonly T[]): Array<[string, T[]]> {
  const groups = new Map<string, T[]>();
  for (const r of rows) groups.set(r.month, [...(groups.get(r.month) ?? []), r]);
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
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
      const rows = await readExpiredEvents(db, ws.id, { cutoff, maxEventsPerUser, maxEvents }, PAGE);
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
 * their events were all past retention (archived before), or they never had one; a response
 * received within {@link RESPONSE_RECEIPT_GRACE_MS} waits for its feedback. Same archive
 * as the events, so the same rules hold for them (an erasure does not rewrite archives, see
 * docs/privacy.md).
 */
async function archiveResponses(db: SqlClient, { archive, s3 }: { archive: string; s3?: S3Settings }, workspaceId: string, cutoff: Date, now: Date, report: RetentionReport): Promise<void> {
  for (let part = 0; ; part++) {
    const rows = await readOrphanResponses(db, workspaceId, { createdBefore: cutoff, receivedBefore: new Date(now.getTime() - RESPONSE_RECEIPT_GRACE_MS) }, PAGE);
    if (rows.length === 0) return;
    const files: string[] = [];
    for (const [month, lines] of byMonth(rows)) {
      files.push(await writeArchive(archive, `${workspaceId}/responses-${month}-${stamp(now)}-${part}`, lines.map((r) => r.line), s3));
    }
    // A response that got its first event while its file was written stays (its line in the
    // file repeats when it goes later); the audit and the report count the ones that went.
    const removed = await db.transaction(async (tx) => {
      const gone = await deleteOrphanResponses(tx, workspaceId, rows.map((r) => r.id));
      await appendAudit(tx, { workspaceId, action: 'retention.archived', details: { responses: gone.length, files } });
      return gone.length;
    });
    report.archivedResponses += removed;
    report.files.push(...files);
    if (rows.length < PAGE) return;
  }
}

/** Postgres: archives every row of each month partition wholly before `cutoff`, then drops it. */
async function dropPastPartitions(db: SqlClient, { archive, s3 }: { archive: string; s3?: S3Settings }, cutoff: Date, now: Date, report: RetentionReport): Promise<void> {
  for (const name of await listEventPartitions(db)) {
    const [, y, m] = /(\d{4})_(\d{2})$/.exec(name) ?? [];
    const monthEnd = new Date(Date.UTC(Number(y), Number(m), 1));
    if (monthEnd > cutoff) continue;
    const byWorkspace = await readPartitionEvents(db, name);
    const groups = new Map<string, string[]>();
    for (const r of byWorkspace) groups.set(r.workspace_id, [...(groups.get(r.workspace_id) ?? []), r.line]);
    for (const [ws, lines] of groups) {
      for (let i = 0; i < lines.length; i += PAGE) {
        report.files.push(await writeArchive(archive, `${ws}/events-${name.slice('feedback_events_'.length)}-${stamp(now)}-${i / PAGE}`, lines.slice(i, i + PAGE), s3));
      }
    }
    const lo = new Date(Date.UTC(Number(y), Number(m) - 1, 1));
    await db.transaction(async (tx) => {
      await dropEventPartition(tx, name, lo, monthEnd);
      for (const [ws, lines] of groups) await appendAudit(tx, { workspaceId: ws, action: 'retention.archived', details: { events: lines.length, partition: name } });
    });
    report.archived += byWorkspace.length;
    report.droppedPartitions.push(name);
  }
}
