/**
 * LangSmith runs into responses (issue 26 §3): each run is mapped by core's
 * {@link mapLangSmithRun}, child runs are recorded with their trace (feedback on them finds its
 * response), and each trace's fields go to the shared trace foundation
 * (`IngestService.upsertTraces`: create or update, last write wins per field).
 */
import { firstIssue, langSmithRunSchema, mapLangSmithRun, type ErrorBody, type LangSmithRun, type LangSmithRunMapping, type TraceUpdate } from '@feedloop/core';
import type { SqlClient } from '../db/sql-client.js';
import type { AuthContext } from '../store/auth-context.js';
import { modelsOfResponses, recordChildRuns, traceOfRuns } from '../store/langsmith.js';
import type { IngestService } from './ingest-service.js';

/** One run of a request refused alone. */
export interface RefusedRun {
  /** `post`, `patch` (or, in a multipart body, `feedback` or the part's kind), and its index in that list. */
  kind: string;
  index: number;
  id?: string;
  error: ErrorBody;
}

interface Source {
  kind: 'post' | 'patch';
  index: number;
  run: LangSmithRun;
}

/**
 * The trace updates of a request's mapped runs, in order: a root run's fields; a child run its
 * trace known (bare until its root arrives); a child `llm` run's model only where the root names
 * none — neither a root run of this request nor the stored response (`storedModels`) has one.
 */
export function traceUpdatesOf(mapped: LangSmithRunMapping[], storedModels: ReadonlyMap<string, string | null>): TraceUpdate[] {
  const named = new Set(mapped.filter((m) => m.root && m.fields.model !== undefined).map((m) => m.traceId));
  for (const [id, model] of storedModels) if (model !== null) named.add(id);
  return mapped.map((m): TraceUpdate => {
    if (m.root) return { id: m.traceId, ...m.fields };
    if (m.childModel === undefined || named.has(m.traceId)) return { id: m.traceId };
    named.add(m.traceId);
    return { id: m.traceId, model: m.childModel };
  });
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
  const parse = (kind: 'post' | 'patch', list: unknown[]): Source[] =>
    list.flatMap((raw, index) => {
      const parsed = langSmithRunSchema.safeParse(raw);
      if (parsed.success) return [{ kind, index, run: parsed.data }];
      const id = raw && typeof raw === 'object' && typeof (raw as { id?: unknown }).id === 'string' ? (raw as { id: string }).id : undefined;
      refused.push({ kind, index, ...(id !== undefined ? { id } : {}), error: firstIssue(parsed.error, `${kind}[${index}]`) });
      return [];
    });
  const sources = [...parse('post', posts), ...parse('patch', patches)];
  if (sources.length === 0) return refused;
  // A patch may not repeat its trace: a child run recorded earlier says where it belongs.
  const unsaid = sources.filter((s) => !s.run.trace_id && !s.run.parent_run_id).map((s) => s.run.id);
  const known = await traceOfRuns(db, auth.workspaceId, unsaid);
  const mapped = sources.map((s) => mapLangSmithRun(s.run, known.get(s.run.id)));
  await recordChildRuns(
    db,
    auth.workspaceId,
    mapped.filter((m) => !m.root).map((m) => ({ runId: m.runId, traceId: m.traceId })),
  );
  const childModelTraces = mapped.filter((m) => !m.root && m.childModel !== undefined).map((m) => m.traceId);
  const storedModels = await modelsOfResponses(db, auth.workspaceId, childModelTraces);
  const outcomes = await ingest.upsertTraces(auth, traceUpdatesOf(mapped, storedModels));
  outcomes.forEach((o, i) => {
    const source = sources[i];
    if (o.status === 'rejected' && source) refused.push({ kind: source.kind, index: source.index, id: source.run.id, error: o.error });
  });
  return refused;
}
