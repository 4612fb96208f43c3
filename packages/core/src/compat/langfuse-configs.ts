/**
 * Langfuse's score configs over feedloop's (issue 26 §1-§2, docs/compat.md):
 * `POST|GET /api/public/score-configs`. Langfuse's `NUMERIC | CATEGORICAL | BOOLEAN`,
 * `minValue`/`maxValue`, `isArchived` are feedloop's `numeric | categorical | boolean`,
 * `min`/`max`, `archived`; categories are the same `{ label, value }`.
 */
import { z } from 'zod';
import type { ScoreConfig, ScoreConfigInput } from '../scores/score-config.js';

/** The body of Langfuse's `POST /api/public/score-configs`. */
export const langfuseScoreConfigSchema = z.object({
  name: z.string().min(1),
  dataType: z.enum(['NUMERIC', 'CATEGORICAL', 'BOOLEAN']),
  categories: z.array(z.object({ label: z.string().min(1), value: z.number() })).nullish(),
  minValue: z.number().nullish(),
  maxValue: z.number().nullish(),
  description: z.string().nullish(),
});

/**
 * A Langfuse config body as feedloop's config input (no `mapsTo`: `none`, weight 0; a boolean
 * config's categories are Langfuse's own True/False, not stored).
 *
 * @example
 * langfuseConfigInput({ name: 'helpful', dataType: 'NUMERIC', minValue: 0, maxValue: 1 })
 * // { name: 'helpful', dataType: 'numeric', min: 0, max: 1 }
 */
export function langfuseConfigInput(body: z.output<typeof langfuseScoreConfigSchema>): ScoreConfigInput {
  const dataType = body.dataType === 'NUMERIC' ? 'numeric' : body.dataType === 'CATEGORICAL' ? 'categorical' : 'boolean';
  return {
    name: body.name,
    dataType,
    ...(body.minValue == null ? {} : { min: body.minValue }),
    ...(body.maxValue == null ? {} : { max: body.maxValue }),
    ...(body.categories == null || dataType === 'boolean' ? {} : { categories: body.categories.map((c) => ({ value: c.value, label: c.label })) }),
    ...(body.description == null ? {} : { description: body.description }),
  };
}

/**
 * A feedloop config as Langfuse's `ScoreConfig` (its feedloop `mapsTo` and `weight` kept as extra fields).
 *
 * @example
 * langfuseConfigView({ id: 'sc_1', name: 'thumbs', dataType: 'boolean', mapsTo: 'thumbs', weight: 0, archived: false }, 'ws_1', now, now)
 * // { id: 'sc_1', name: 'thumbs', dataType: 'BOOLEAN', categories: [{ label: 'True', value: 1 }, { label: 'False', value: 0 }], ... }
 */
export function langfuseConfigView(c: ScoreConfig, projectId: string, createdAt: string, updatedAt: string): Record<string, unknown> {
  const dataType = c.dataType === 'numeric' ? 'NUMERIC' : c.dataType === 'categorical' ? 'CATEGORICAL' : 'BOOLEAN';
  const categories =
    c.dataType === 'boolean'
      ? [
          { label: 'True', value: 1 },
          { label: 'False', value: 0 },
        ]
      : (c.categories ?? null);
  return {
    id: c.id,
    name: c.name,
    dataType,
    isArchived: c.archived,
    minValue: c.min ?? null,
    maxValue: c.max ?? null,
    categories,
    description: c.description ?? null,
    projectId,
    createdAt,
    updatedAt,
    mapsTo: c.mapsTo,
    weight: c.weight,
  };
}
