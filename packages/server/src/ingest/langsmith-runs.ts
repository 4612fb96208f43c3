/**
 * LangSmith runs into responses (issue 26 §3): each run is mapped by core's
 * {@link mapLangSmithRun}, child runs are recorded with their trace (feedback on them finds its
 * response), and each trace's fields go to the shared trace foundation
 * (`IngestService.upsertTraces`: create or update, last write wins per field).
 */
import { firstIssue, langSmithRunSchema, mapLangSmithRun, type ErrorBody, type LangSmithRun, type LangSmithRunMapping } from '@feedloop/core';
import type { SqlClient } from '../db/sql-client.js';
import type { AuthContext } from '../store/auth-context.js';
import { recordChildRuns, traceOfRuns } from '../store/langsmith.js';
import type { IngestService, TraceUpdate } from './ingest-service.js';

/** One run of a request refused alone. */
export interface RefusedRun {
  /** `post`, `patch` (or, in a multipart body, `feedback` or the part's kind), and its index in that list. */
  kind: string;
  index: number;
  id?: string;
  error: ErrorBody;
}

/**
 * The trace update a mapped run makes: a root run's fields, or a child `llm` run's model as the
 * response's model when the root names none.
 */
export function traceUpdateOf(m: LangSmithRunMapping): TraceUpdate | undefined {
  if (m.root) return { id: m.traceId, ...m.fields };
  if (m.childModel !== undefined) return { id: m.traceId, fallback: { model: m.childModel } };
  // A child run without a model still makes its trace known (bare until its root run arrives).
  return { id: m.traceId };
}

/**
 * Validates, maps and stores runs: creates (`post`) before updates (`patch`). Returns the runs
 * refused (each alone; the others are stored).
 *
 * @example
 * await ingestLangSmithRuns(db, ingest, auth, [{ id, inputs: { question: 'Hi?' } }], [{ id, outputs: { answer: 'Hello' } }]) // []
 */
export async function ingestLangSmithRuns(db: SqlClient, ingest: IngestService, auth: AuthContext, posts: unknown[], patches: unknown[]): Promise<RefusedRun[]> {
  const refused: RefusedRun[] = [];
  const parse = (kind: 'post' | 'patch', list: unknown[]): LangSmithRun[] =>
    list.flatMap((raw, index) => {
      const parsed = langSmithRunSchema.safeParse(raw);
      if (parsed.success) return [parsed.data];
      const id = raw && typeof raw === 'object' && typeof (raw as { id?: unknown }).id === 'string' ? (raw as { id: string }).id : undefined;
      refused.push({ kind, index, ...(id !== undefined ? { id } : {}), error: firstIssue(parsed.error, `${kind}[${index}]`) });
      return [];
    });
  const runs = [...parse('post', posts), ...parse('patch', patches)];
  if (runs.length === 0) return refused;
  // A patch may not repeat its trace: a child run recorded earlier says where it belongs.
  const unsaid = runs.filter((r) => !r.trace_id && !r.parent_run_id).map((r) => r.id);
  const known = await traceOfRuns(db, auth.workspaceId, unsaid);
  const mapped = runs.map((r) => mapLangSmithRun(r, known.get(r.id)));
  await recordChildRuns(
    db,
    auth.workspaceId,
    mapped.filter((m) => !m.root).map((m) => ({ runId: m.runId, traceId: m.traceId })),
  );
  const updates = mapped.map(traceUpdateOf).filter((u): u is TraceUpdate => u !== undefined);
  await ingest.upsertTraces(auth, updates);
  return refused;
}
