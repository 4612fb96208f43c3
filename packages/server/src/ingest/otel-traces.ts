/**
 * OpenTelemetry traces into responses (issue 26 §4, docs/compat.md): the spans of one OTLP request,
 * read by core, become trace pieces written through the trace foundation
 * (`IngestService.upsertTraces`). The HTTP route decodes the body and answers OTLP's way; this
 * does the rest.
 */
import { toTracePieces, traceUpdatesOf, type ErrorBody, type OtelRequestSpans } from '@feedloop/core';
import type { SqlClient } from '../db/sql-client.js';
import type { Metrics } from '../metrics.js';
import type { AuthContext } from '../store/auth-context.js';
import { missingResponseIds } from '../store/trace-upserts.js';
import type { IngestService } from './ingest-service.js';

/** What became of a request's spans. */
export interface OtelIngestResult {
  /** Spans refused: without valid ids, or of a trace whose piece was refused. */
  rejectedSpans: number;
  /** The first few reasons, for OTLP's `partialSuccess.errorMessage`. */
  errors: string[];
  /** Traces written as responses. */
  storedTraces: number;
  /** Traces without LLM content, and their spans: counted, not kept. */
  droppedTraces: number;
  droppedSpans: number;
}

/** How many refusal reasons one answer names. */
const MAX_ERRORS = 5;

/**
 * Writes the traces of one request's spans as responses; counts what it drops and refuses in
 * `feedloop_otel_traces_total` and `feedloop_otel_spans_total`.
 *
 * The texts an LLM span gives when its trace's root span is not in the request go as a fill-only
 * piece (core's `otel/trace-updates.ts`): they fill only what the stored response has no text for.
 * A trace is refused, all its spans counted as rejected, when any of its pieces is. A trace without
 * LLM content in this request that names a user, session, metadata or tags completes the response
 * of the trace when an earlier request made it (one read of which exist), and is dropped otherwise.
 *
 * @example
 * const result = await ingestOtelSpans({ ingest, db, metrics }, auth, readOtlpTraceRequest(body));
 */
export async function ingestOtelSpans(
  deps: { ingest: IngestService; db: SqlClient; metrics: Metrics },
  auth: AuthContext,
  request: OtelRequestSpans,
): Promise<OtelIngestResult> {
  const batch = traceUpdatesOf(request.spans);
  const spansOf = new Map<string, number>();
  for (const span of request.spans) spansOf.set(span.traceId, (spansOf.get(span.traceId) ?? 0) + 1);
  const missing = batch.context.length === 0 ? new Set<string>() : await missingResponseIds(deps.db, auth.workspaceId, batch.context.map((u) => u.traceId));
  const completing = batch.context.filter((u) => !missing.has(u.traceId));
  for (const u of completing) {
    batch.droppedTraces -= 1;
    batch.droppedSpans -= u.spans;
    batch.updates.push(u);
  }
  const pieces = batch.updates.flatMap((u) => toTracePieces(u));
  const outcomes = pieces.length === 0 ? [] : await deps.ingest.upsertTraces(auth, pieces);
  // A trace's first refusal, by trace id (its pieces are consecutive, but one refusal is enough).
  const refused = new Map<string, ErrorBody>();
  outcomes.forEach((o, i) => {
    const id = pieces[i]?.id ?? '';
    if (o.status === 'rejected' && !refused.has(id)) refused.set(id, o.error);
  });
  const result: OtelIngestResult = {
    rejectedSpans: request.rejectedSpans,
    errors: [...request.errors],
    storedTraces: 0,
    droppedTraces: batch.droppedTraces,
    droppedSpans: batch.droppedSpans,
  };
  let rejectedTraces = 0;
  for (const { traceId } of batch.updates) {
    const error = refused.get(traceId);
    if (error === undefined) {
      result.storedTraces += 1;
      continue;
    }
    rejectedTraces += 1;
    result.rejectedSpans += spansOf.get(traceId) ?? 0;
    if (result.errors.length < MAX_ERRORS) {
      const field = error.field === undefined ? '' : ` (${error.field})`;
      result.errors.push(`trace ${traceId}: ${error.code}${field}: ${error.message}`);
    }
  }
  const { otelTraces, otelSpans } = deps.metrics;
  otelTraces.inc({ outcome: 'stored' }, result.storedTraces);
  otelTraces.inc({ outcome: 'dropped' }, result.droppedTraces);
  otelTraces.inc({ outcome: 'rejected' }, rejectedTraces);
  otelSpans.inc({ outcome: 'stored' }, request.spans.length - result.droppedSpans - (result.rejectedSpans - request.rejectedSpans));
  otelSpans.inc({ outcome: 'dropped' }, result.droppedSpans);
  otelSpans.inc({ outcome: 'rejected' }, result.rejectedSpans);
  return result;
}
