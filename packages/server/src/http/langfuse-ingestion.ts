/**
 * One `POST /api/public/ingestion` batch (issue 26 §2, docs/compat.md), answered per event as
 * Langfuse does: `{ successes: [{ id, status: 201 }], errors: [{ id, status, message, error }] }`
 * by envelope id. Creates run before updates and scores last; an envelope id repeated in the batch
 * is a success stored once (a retried batch is stored once too: trace pieces are upserts and a
 * score's event id is derived from its content).
 */
import {
  firstIssue,
  langfuseEnvelopeSchema,
  langfuseEventOrder,
  langfuseTracePiece,
  statusOf,
  type ErrorBody,
  type LangfuseEnvelope,
  type TraceUpdate,
} from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import type { IngestService } from '../ingest/ingest-service.js';
import type { AuthContext } from '../store/auth-context.js';
import { writeLangfuseScores } from './langfuse-scores.js';

/** A refused event, Langfuse's shape with feedloop's code as `error`. */
export interface IngestionError {
  id: string;
  status: number;
  message: string;
  error: string;
}

/** The 207 body. */
export interface IngestionResult {
  successes: Array<{ id: string; status: number }>;
  errors: IngestionError[];
}

const errorOf = (id: string, status: number, e: ErrorBody): IngestionError => ({ id, status, message: e.message, error: e.code });

/**
 * Processes a batch's events; never throws for one bad event (a database outage still throws,
 * answered 503 so the SDK retries).
 *
 * @example
 * await ingestLangfuseBatch(db, ingest, auth, [{ id: 'e1', type: 'trace-create', timestamp, body: { id: 't1', input: 'Hi?' } }])
 * // { successes: [{ id: 'e1', status: 201 }], errors: [] }
 */
export async function ingestLangfuseBatch(db: SqlExecutor, ingest: IngestService, auth: AuthContext, batch: readonly unknown[]): Promise<IngestionResult> {
  const result: IngestionResult = { successes: [], errors: [] };
  const seen = new Set<string>();
  const events: LangfuseEnvelope[] = [];
  for (const raw of batch) {
    const parsed = langfuseEnvelopeSchema.safeParse(raw);
    if (!parsed.success) {
      const id = typeof (raw as { id?: unknown } | null)?.id === 'string' ? (raw as { id: string }).id : 'unknown';
      result.errors.push(errorOf(id, 400, firstIssue(parsed.error)));
      continue;
    }
    const e = parsed.data;
    if (seen.has(e.id)) {
      result.successes.push({ id: e.id, status: 201 });
      continue;
    }
    seen.add(e.id);
    if (auth.kind === 'public' && e.type !== 'score-create') {
      result.errors.push(errorOf(e.id, 401, { code: 'FEEDLOOP_ERR_AUTH_FORBIDDEN', message: 'a public key (Bearer) may only send score-create; use Basic <public key>:<secret key>' }));
      continue;
    }
    if (e.type === 'sdk-log') {
      result.successes.push({ id: e.id, status: 201 });
      continue;
    }
    events.push(e);
  }
  // Creates before updates, scores last; the sort is stable, so arrival order holds within a kind.
  events.sort((a, b) => langfuseEventOrder(a.type) - langfuseEventOrder(b.type));

  // An update may omit its traceId: its create in the same batch names it.
  const observationTraces = new Map<string, string>();
  for (const e of events) {
    if (e.type !== 'trace-create' && typeof e.body.id === 'string' && typeof e.body.traceId === 'string') observationTraces.set(e.body.id, e.body.traceId);
  }
  const pieces: Array<{ envelope: string; piece: TraceUpdate }> = [];
  const scores: LangfuseEnvelope[] = [];
  for (const e of events) {
    if (e.type === 'score-create') {
      scores.push(e);
      continue;
    }
    const piece = langfuseTracePiece(e.type, e.body, observationTraces);
    if (piece !== undefined) pieces.push({ envelope: e.id, piece });
    else if (e.type === 'trace-create') result.errors.push(errorOf(e.id, 400, { code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', message: 'body.id: a trace needs its id', field: 'body.id' }));
    // An observation whose trace is unknown here changes nothing: there is no response to fill.
    else result.successes.push({ id: e.id, status: 201 });
  }
  const outcomes = pieces.length === 0 ? [] : await ingest.upsertTraces(auth, pieces.map((p) => p.piece));
  outcomes.forEach((o, i) => {
    const envelope = pieces[i]?.envelope ?? 'unknown';
    if (o.status === 'rejected') result.errors.push(errorOf(envelope, statusOf(o.error.code), { ...o.error, message: `body.${o.error.message}` }));
    else result.successes.push({ id: envelope, status: 201 });
  });

  const written = scores.length === 0 ? [] : await writeLangfuseScores(db, ingest, auth, scores.map((s) => s.body));
  written.forEach((w, i) => {
    const envelope = scores[i]?.id ?? 'unknown';
    if (w.ok) result.successes.push({ id: envelope, status: 201 });
    else result.errors.push(errorOf(envelope, w.status, { ...w.error, message: `body.${w.error.message}` }));
  });
  return result;
}
