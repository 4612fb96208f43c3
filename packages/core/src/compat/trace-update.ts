/**
 * The shared foundation of the tracing drop-ins (Langfuse, LangSmith, OpenTelemetry; docs/compat.md):
 * a trace arrives in pieces (a create, later updates, a generation naming the model, a score before
 * its trace), and each piece becomes one `TraceUpdate` of the response whose id is the trace id.
 * `IngestService.upsertTraces` creates the response (bare while it has no query and no answer) or
 * updates it, last write wins per field.
 */
import { z } from 'zod';
import { idSchema, metadataSchema, timestampSchema } from '../event-schema.js';
import { ITEM_SHAPE_LIMITS, checkJsonShape } from '../json-limits.js';
import { LIMITS } from '../limits.js';
import { checkStorable, firstIssue, type Validated } from '../validate.js';

const label = z.string().min(1).max(LIMITS.labelMaxLength);
const text = z.string().max(LIMITS.textMaxLength);

/**
 * One piece of a trace. Every field but `id` is optional: an absent field leaves the stored one as
 * it is (there is no clearing), a given one replaces it. `metadata` is merged key by key into the
 * stored metadata; `tags`, `release`, `version` and `environment` are kept in the response's
 * metadata under those keys (feedloop has no columns for them). `createdAt` counts only when the
 * update creates the response: a response's creation time never moves (its day's rollups and its
 * place in the list depend on it). An empty `query` or `answer` counts as absent.
 */
export const traceUpdateSchema = z.strictObject({
  id: idSchema.describe('The trace id, which becomes the response id'),
  query: text.optional(),
  answer: text.optional(),
  model: label.optional(),
  userId: idSchema.optional(),
  sessionId: idSchema.optional(),
  metadata: metadataSchema.optional(),
  experimentId: idSchema.optional(),
  variant: label.optional(),
  tags: z.array(label).max(LIMITS.sourcesMaxItems).optional(),
  release: label.optional(),
  version: label.optional(),
  environment: label.optional(),
  createdAt: timestampSchema.optional(),
});

/** One piece of a trace, validated (see {@link traceUpdateSchema}). */
export type TraceUpdate = z.output<typeof traceUpdateSchema>;

/** The keys of a response's metadata that hold a trace's own fields. */
export const TRACE_METADATA_KEYS = ['tags', 'release', 'version', 'environment'] as const;

/**
 * Folds the pieces of one trace, in arrival order, into one: later fields win, metadata merges
 * key by key. The writer folds a batch's pieces of the same id with it, so one statement writes
 * each response once.
 *
 * @example
 * mergeTraceUpdates({ id: 't', query: 'q', metadata: { a: 1 } }, { id: 't', answer: 'x', metadata: { b: 2 } })
 * // { id: 't', query: 'q', answer: 'x', metadata: { a: 1, b: 2 } }
 */
export function mergeTraceUpdates(earlier: TraceUpdate, later: TraceUpdate): TraceUpdate {
  const merged: TraceUpdate = { ...earlier };
  for (const [k, v] of Object.entries(later) as Array<[keyof TraceUpdate, unknown]>) {
    if (v === undefined || k === 'metadata' || k === 'createdAt') continue;
    if ((k === 'query' || k === 'answer') && v === '') continue;
    (merged as Record<string, unknown>)[k] = v;
  }
  if (later.metadata !== undefined) merged.metadata = { ...earlier.metadata, ...later.metadata };
  if (merged.createdAt === undefined && later.createdAt !== undefined) merged.createdAt = later.createdAt;
  return merged;
}

/**
 * Validates one trace piece as the drop-ins build it: its shape (depth, sizes, finite numbers),
 * the schema, and storable text; the error names the field.
 *
 * @example
 * validateTraceUpdate({ id: 't1', query: 'q' }) // { ok: true, value: { id: 't1', query: 'q' } }
 * validateTraceUpdate({ id: '' }).ok // false, field 'id'
 */
export function validateTraceUpdate(input: unknown): Validated<TraceUpdate> {
  const shape = checkJsonShape(input, ITEM_SHAPE_LIMITS);
  if (shape) return { ok: false, error: shape };
  const parsed = traceUpdateSchema.safeParse(input);
  if (!parsed.success) return { ok: false, error: firstIssue(parsed.error) };
  const unstorable = checkStorable(parsed.data);
  if (unstorable) return { ok: false, error: unstorable };
  return { ok: true, value: parsed.data };
}
