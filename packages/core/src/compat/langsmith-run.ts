/**
 * A LangSmith run (`POST /langsmith/runs`, `/runs/batch`, `/runs/multipart`, `PATCH /runs/:id`)
 * mapped onto the response of its trace (issue 26 §3). A root run (no `parent_run_id`) is the
 * response, its id the run id; a child run only tells which trace it belongs to (feedback on it
 * goes to its trace's response), and a child `llm` run gives the model when the root has none.
 */
import { z } from 'zod';
import { idSchema, metadataSchema } from '../event-schema.js';
import { LIMITS } from '../limits.js';
import { langSmithInputText, langSmithOutputText } from './langsmith-text.js';

const time = z.union([z.string().max(64), z.number().finite()]);

/**
 * A run as the SDKs send it; only what the mapping reads is checked, the rest (`dotted_order`,
 * `serialized`, `events`, `attachments`, …) is let through and ignored.
 */
export const langSmithRunSchema = z.looseObject({
  id: idSchema,
  trace_id: idSchema.nullish(),
  parent_run_id: idSchema.nullish(),
  name: z.string().nullish(),
  run_type: z.string().nullish(),
  inputs: z.unknown().optional(),
  outputs: z.unknown().optional(),
  extra: z.looseObject({ metadata: metadataSchema.nullish(), invocation_params: metadataSchema.nullish() }).nullish(),
  tags: z.array(z.string()).nullish(),
  start_time: time.nullish(),
  end_time: time.nullish(),
  session_name: z.string().nullish(),
});

/** A run as the SDKs send it. */
export type LangSmithRun = z.output<typeof langSmithRunSchema>;

/** What a root run says of its response (all optional: a patch carries only what changed). */
export interface LangSmithTraceFields {
  query?: string;
  answer?: string;
  model?: string;
  userId?: string;
  sessionId?: string;
  experimentId?: string;
  variant?: string;
  tags?: string[];
  createdAt?: string;
  metadata?: Record<string, unknown>;
}

/** One run mapped: where it belongs, and what it tells of its trace's response. */
export interface LangSmithRunMapping {
  runId: string;
  /** The trace (= response id): `trace_id`, else the run's own id for a root run. */
  traceId: string;
  /** A root run is the response itself. */
  root: boolean;
  /** What the root run sets on the response (only for a root run). */
  fields: LangSmithTraceFields;
  /** A child `llm` run's model: the response's model when its root run names none. */
  childModel?: string;
}

/** A value fit for an id field, or undefined (an unfit one stays in the metadata only). */
function asId(v: unknown): string | undefined {
  const s = typeof v === 'number' ? String(v) : v;
  return typeof s === 'string' && idSchema.safeParse(s).success ? s : undefined;
}

function asLabel(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 && v.length <= LIMITS.labelMaxLength ? v : undefined;
}

/**
 * A run time as an ISO timestamp with its zone: epoch milliseconds (the JS SDK) or an ISO string,
 * read as UTC when it has no offset (the Python SDK's naive `isoformat()`).
 */
export function langSmithTime(t: string | number | null | undefined): string | undefined {
  if (t === undefined || t === null) return undefined;
  const text = typeof t === 'string' && !/(Z|[+-]\d{2}:?\d{2})$/i.test(t) ? `${t}Z` : t;
  const d = new Date(text);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** The model a run's metadata or invocation parameters name. */
function modelOf(run: LangSmithRun): string | undefined {
  const meta = run.extra?.metadata ?? {};
  const params = run.extra?.invocation_params ?? {};
  return asLabel(meta.ls_model_name) ?? asLabel(meta.model) ?? asLabel(params.model) ?? asLabel(params.model_name);
}

/**
 * Maps one run. `knownTraceId` is the trace a child run was recorded under when this message of
 * it (a patch) does not say.
 *
 * @example
 * mapLangSmithRun({ id: 'r1', inputs: { question: 'Hi?' }, extra: { metadata: { user_id: 'u1' } } })
 * // { runId: 'r1', traceId: 'r1', root: true, fields: { query: 'Hi?', userId: 'u1', metadata: {…} } }
 */
export function mapLangSmithRun(run: LangSmithRun, knownTraceId?: string): LangSmithRunMapping {
  const parent = run.parent_run_id ?? undefined;
  const traceId = run.trace_id ?? knownTraceId ?? run.id;
  const root = parent === undefined && traceId === run.id;
  if (!root) {
    const model = run.run_type === 'llm' ? modelOf(run) : undefined;
    return { runId: run.id, traceId, root, fields: {}, ...(model !== undefined ? { childModel: model } : {}) };
  }
  const meta = run.extra?.metadata ?? {};
  const fields: LangSmithTraceFields = {};
  if (run.inputs !== undefined) {
    const query = langSmithInputText(run.inputs);
    if (query !== undefined && query !== '') fields.query = query;
  }
  if (run.outputs !== undefined) {
    const answer = langSmithOutputText(run.outputs);
    if (answer !== undefined) fields.answer = answer;
  }
  const model = modelOf(run);
  if (model !== undefined) fields.model = model;
  const userId = asId(meta.user_id);
  if (userId !== undefined) fields.userId = userId;
  const sessionId = asId(meta.session_id) ?? asId(meta.thread_id) ?? asId(meta.conversation_id);
  if (sessionId !== undefined) fields.sessionId = sessionId;
  const experimentId = asId(meta.experimentId);
  if (experimentId !== undefined) fields.experimentId = experimentId;
  const variant = asLabel(meta.variant);
  if (variant !== undefined) fields.variant = variant;
  const tags = (run.tags ?? []).filter((t) => asLabel(t) !== undefined).slice(0, LIMITS.sourcesMaxItems);
  if (tags.length > 0) fields.tags = tags;
  const createdAt = langSmithTime(run.start_time);
  if (createdAt !== undefined) fields.createdAt = createdAt;
  const langsmith: Record<string, unknown> = {};
  if (run.name) langsmith.name = run.name;
  if (run.run_type) langsmith.runType = run.run_type;
  if (run.session_name) langsmith.project = run.session_name;
  // The run's own metadata, less the SDK's runtime noise (ls_* and revision ids).
  const own = Object.fromEntries(Object.entries(meta).filter(([k]) => !k.startsWith('ls_') && k !== 'revision_id'));
  if (Object.keys(own).length > 0) langsmith.metadata = own;
  if (Object.keys(langsmith).length > 0) fields.metadata = { langsmith };
  return { runId: run.id, traceId, root, fields };
}

