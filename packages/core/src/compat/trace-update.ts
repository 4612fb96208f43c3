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
 *
 * `fillOnly: true` marks a weaker piece (a generation, a child run, an LLM span): it fills only
 * the fields the response has no value for yet (an empty query or answer, a null model, a
 * metadata key not present), so the trace's own fields win whatever the order of arrival.
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
  fillOnly: z.boolean().optional().describe('Only fill fields the response has no value for yet'),
});

/** One piece of a trace, validated (see {@link traceUpdateSchema}). */
export type TraceUpdate = z.output<typeof traceUpdateSchema>;

/** The keys of a response's metadata that hold a trace's own fields. */
export const TRACE_METADATA_KEYS = ['tags', 'release', 'version', 'environment'] as const;

/** `top`'s given fields over `base`'s, metadata merged key by key (`top` winning). */
function overlay(base: TraceUpdate, top: TraceUpdate): TraceUpdate {
  const merged: TraceUpdate = { ...base };
  for (const [k, v] of Object.entries(top) as Array<[keyof TraceUpdate, unknown]>) {
    if (v === undefined || k === 'metadata' || k === 'createdAt' || k === 'fillOnly') continue;
    if ((k === 'query' || k === 'answer') && v === '') continue;
    (merged as Record<string, unknown>)[k] = v;
  }
  if (top.metadata !== undefined) merged.metadata = { ...base.metadata, ...top.metadata };
  return merged;
}

/**
 * Folds two pieces of one trace, in arrival order, into one: later fields win, metadata merges
 * key by key, the first `createdAt` stays. Two fill-only pieces fold the other way round (the
 * earlier value stays, as it would in the database); a fill-only piece folded with a normal one
 * gives a normal piece, so the writer folds the two kinds apart.
 *
 * @example
 * mergeTraceUpdates({ id: 't', query: 'q', metadata: { a: 1 } }, { id: 't', answer: 'x', metadata: { b: 2 } })
 * // { id: 't', query: 'q', answer: 'x', metadata: { a: 1, b: 2 } }
 */
export function mergeTraceUpdates(earlier: TraceUpdate, later: TraceUpdate): TraceUpdate {
  const weak = earlier.fillOnly === true && later.fillOnly === true;
  const { fillOnly: _a, createdAt: _b, ...merged } = weak ? overlay(later, earlier) : overlay(earlier, later);
  const createdAt = earlier.createdAt ?? later.createdAt;
  return { ...merged, ...(createdAt === undefined ? {} : { createdAt }), ...(weak ? { fillOnly: true } : {}) };
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
