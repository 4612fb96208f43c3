/**
 * Langfuse scores written as feedback (issue 26 §2, docs/compat.md), for `score-create` in an
 * ingestion batch and `POST /api/public/scores` alike. A score's trace is its response: one not
 * seen yet is created bare (or the score refused, setting `compat.unknownTraces: "reject"`); a
 * score aimed at a session goes to that session's response. The score `id` is an upsert key: each
 * version is an event of its own (its id derived from the score id and its content, so a retry is
 * a duplicate), `compat_feedback_ids` points at the current one.
 */
import { createHash } from 'node:crypto';
import {
  firstIssue,
  langfuseScoreSchema,
  mapLangfuseScore,
  stableStringify,
  statusOf,
  validateFeedbackEvent,
  type ErrorBody,
  type FeedbackEvent,
  type TraceUpdate,
} from '@feedloop/core';
import { v7 as uuidv7 } from 'uuid';
import type { SqlExecutor } from '../db/sql-client.js';
import type { IngestService } from '../ingest/ingest-service.js';
import type { AuthContext } from '../store/auth-context.js';
import { currentFeedbackIds, recordFeedbackIds } from '../store/compat-feedback-ids.js';
import { missingResponseIds } from '../store/trace-upserts.js';

/** The protocol's name in `compat_feedback_ids`. */
export const LANGFUSE = 'langfuse';

/** What became of one score: stored (`id` the score id) or refused with an HTTP status. */
export type ScoreWrite = { ok: true; id: string } | { ok: false; status: number; error: ErrorBody };

const refused = (error: ErrorBody): ScoreWrite => ({ ok: false, status: statusOf(error.code), error });

const digest = (text: string): string => createHash('sha256').update(text).digest('hex');

interface Pending {
  index: number;
  scoreId: string;
  responseId: string;
  sessionTarget?: string;
  event: Record<string, unknown>;
}

/**
 * Writes Langfuse score bodies; one result per body, in order. A bad body is refused alone.
 *
 * @example
 * await writeLangfuseScores(db, ingest, auth, [{ id: 's1', traceId: 't1', name: 'helpfulness', value: 1, dataType: 'BOOLEAN' }])
 * // [{ ok: true, id: 's1' }]
 */
export async function writeLangfuseScores(db: SqlExecutor, ingest: IngestService, auth: AuthContext, bodies: readonly unknown[]): Promise<ScoreWrite[]> {
  // Every body's result is set below, on its way out or once written.
  const results: Array<ScoreWrite | undefined> = bodies.map(() => undefined);
  const pending: Pending[] = [];
  bodies.forEach((body, index) => {
    const parsed = langfuseScoreSchema.safeParse(body);
    if (!parsed.success) return void (results[index] = refused(firstIssue(parsed.error)));
    const mapped = mapLangfuseScore(parsed.data);
    if (!mapped.ok) return void (results[index] = { ok: false, status: mapped.status, error: mapped.error });
    pending.push({ index, scoreId: parsed.data.id ?? uuidv7(), responseId: mapped.responseId, event: mapped.event, ...(mapped.sessionTarget === undefined ? {} : { sessionTarget: mapped.sessionTarget }) });
  });

  // The responses the scores need: created bare when missing (or the scores refused).
  const missing = await missingResponseIds(db, auth.workspaceId, pending.map((p) => p.responseId));
  const reject = auth.settings.compat.unknownTraces === 'reject';
  const toCreate = new Map<string, TraceUpdate>();
  const live: Pending[] = [];
  for (const p of pending) {
    if (missing.has(p.responseId) && reject && p.sessionTarget === undefined) {
      results[p.index] = refused({ code: 'FEEDLOOP_ERR_RESPONSE_NOT_FOUND', message: `traceId: no trace ${JSON.stringify(p.responseId)} in this workspace (compat.unknownTraces is "reject")`, field: 'traceId' });
      continue;
    }
    if (missing.has(p.responseId)) toCreate.set(p.responseId, { id: p.responseId, ...(p.sessionTarget === undefined ? {} : { sessionId: p.sessionTarget }) });
    live.push(p);
  }
  const created = [...toCreate.values()];
  const createdOutcomes = created.length === 0 ? [] : await ingest.upsertTraces(auth, created);
  const notCreated = new Map<string, ErrorBody>();
  createdOutcomes.forEach((o, i) => {
    const id = created[i]?.id;
    if (o.status === 'rejected' && id !== undefined) notCreated.set(id, o.error);
  });

  // Each version's event, validated alone. A score sent again unchanged is its stored event; a
  // changed one is a new event whose id follows from the score id, its content and the event it
  // replaces (a value may come back to an earlier one: its event would be a retracted one).
  const prior = await currentFeedbackIds(db, auth.workspaceId, LANGFUSE, live.map((p) => p.scoreId));
  const latest = new Map<string, { eventId: string; version: string | null | undefined }>();
  for (const [id, c] of prior) if (!c.deleted) latest.set(id, { eventId: c.eventId, version: c.version });
  const events: FeedbackEvent[] = [];
  const submitted: Pending[] = [];
  const replaced = new Map<string, Set<string>>();
  const currentOf = new Map<string, { eventId: string; responseId: string }>();
  for (const p of live) {
    const failed = notCreated.get(p.responseId);
    if (failed) {
      const field = p.sessionTarget === undefined ? 'traceId' : 'sessionId';
      results[p.index] = refused({ ...failed, message: `${field}: ${failed.message}`, field });
      continue;
    }
    const version = digest(stableStringify(p.event)).slice(0, 32);
    const before = latest.get(p.scoreId);
    if (before?.version === version) {
      results[p.index] = { ok: true, id: p.scoreId };
      continue;
    }
    // A public key is in every visitor's browser: it adds scores, it does not change stored ones.
    if (before !== undefined && auth.kind === 'public') {
      results[p.index] = refused({ code: 'FEEDLOOP_ERR_AUTH_FORBIDDEN', message: `id: score ${JSON.stringify(p.scoreId)} exists; a public key may not change it`, field: 'id' });
      continue;
    }
    const eventId = `lf-${digest(`${p.scoreId}\u0000${version}\u0000${before?.eventId ?? ''}`).slice(0, 40)}`;
    const metadata = { ...(p.event.metadata as Record<string, unknown>), compatVersion: version };
    const checked = validateFeedbackEvent({ ...p.event, id: eventId, metadata });
    if (!checked.ok) {
      results[p.index] = refused(checked.error);
      continue;
    }
    events.push(checked.value);
    submitted.push(p);
    latest.set(p.scoreId, { eventId, version });
  }
  const outcomes = events.length === 0 ? [] : await ingest.submitFeedback(auth, events);
  outcomes.forEach((o, i) => {
    const p = submitted[i];
    if (!p) return;
    if (o.status === 'rejected') return void (results[p.index] = refused(o.error));
    results[p.index] = { ok: true, id: p.scoreId };
    const gone = replaced.get(p.scoreId) ?? new Set<string>();
    const was = currentOf.get(p.scoreId)?.eventId ?? (prior.get(p.scoreId)?.deleted === false ? prior.get(p.scoreId)?.eventId : undefined);
    if (was !== undefined && was !== o.id) gone.add(was);
    replaced.set(p.scoreId, gone);
    currentOf.set(p.scoreId, { eventId: o.id, responseId: p.responseId });
  });
  await recordFeedbackIds(db, auth.workspaceId, LANGFUSE, [...currentOf.entries()].map(([externalId, c]) => ({ externalId, ...c })));
  // The versions replaced are retracted: the value changes as a vote does.
  for (const [scoreId, gone] of replaced) {
    for (const eventId of gone) await ingest.retractFeedback(auth, eventId, `replaced by a newer value of Langfuse score ${scoreId}`);
  }
  return results as ScoreWrite[];
}
