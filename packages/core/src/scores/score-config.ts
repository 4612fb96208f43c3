/**
 * Score configs (issue 26 §1): a workspace's named feedback dimensions (helpfulness, tone,
 * groundedness), each with a data type and range, and what a score of that name maps to among
 * feedloop's own votes. One definition gives validation, the types and the OpenAPI document.
 */
import { z } from 'zod';
import { LIMITS } from '../limits.js';

/** The data types a score may have, as Langfuse names them (lower case). */
export const SCORE_DATA_TYPES = ['numeric', 'categorical', 'boolean'] as const;
/** One of {@link SCORE_DATA_TYPES}. */
export type ScoreDataType = (typeof SCORE_DATA_TYPES)[number];

/** What a score of a config becomes: a thumbs vote, a 1-5 rating, or itself (`none`). */
export const SCORE_MAPPINGS = ['thumbs', 'rating', 'none'] as const;
/** One of {@link SCORE_MAPPINGS}. */
export type ScoreMapping = (typeof SCORE_MAPPINGS)[number];

/** A score name: a short label, e.g. `helpfulness` or `user-feedback`. */
export const scoreNameSchema = z.string().min(1).max(LIMITS.labelMaxLength);

const category = z.strictObject({ value: z.number().finite(), label: z.string().min(1).max(LIMITS.labelMaxLength) });

/** The fields a config is made of; every one but `name` and `dataType` optional. */
const configFields = {
  name: scoreNameSchema,
  dataType: z.enum(SCORE_DATA_TYPES),
  min: z.number().finite().optional().describe('numeric only: the smallest value allowed'),
  max: z.number().finite().optional().describe('numeric only: the largest value allowed'),
  categories: z.array(category).min(1).max(100).optional().describe('categorical only (and required there): the values allowed'),
  description: z.string().max(LIMITS.commentMaxLength).optional(),
  mapsTo: z.enum(SCORE_MAPPINGS).optional().describe('`thumbs` (boolean): 1/true is thumbs_up, 0/false thumbs_down; `rating` (numeric): a 1-5 value is a rating'),
  weight: z.number().finite().min(0).max(10).optional().describe("The score's weight in the composite response score (default 0: none)"),
};

/** A score config as stored and served. */
export interface ScoreConfig {
  id: string;
  name: string;
  dataType: ScoreDataType;
  min?: number;
  max?: number;
  categories?: Array<{ value: number; label: string }>;
  description?: string;
  mapsTo: ScoreMapping;
  weight: number;
  archived: boolean;
}

/** The body of `POST /v1/score-configs`. */
export const scoreConfigInputSchema = z.strictObject(configFields);
/** A new config as sent. */
export type ScoreConfigInput = z.output<typeof scoreConfigInputSchema>;

/** The body of `PATCH /v1/score-configs/:id`: each field optional, and `archived`. */
export const scoreConfigPatchSchema = z.strictObject({
  ...Object.fromEntries(Object.entries(configFields).map(([k, v]) => [k, v.optional()])),
  archived: z.boolean().optional().describe('true: archived (kept, no longer applied to new scores); false: restored'),
} as { [K in keyof typeof configFields]: z.ZodOptional<(typeof configFields)[K]> } & { archived: z.ZodOptional<z.ZodBoolean> });
/** A config change as sent. */
export type ScoreConfigPatch = z.output<typeof scoreConfigPatchSchema>;

/** A rejected config: the field at fault and why. */
export interface ScoreConfigProblem {
  field: string;
  message: string;
}

/** Stars a rating may have, which a `mapsTo: "rating"` config must stay within. */
const STARS = { min: 1, max: 5 } as const;

/**
 * Checks a whole config's fields against each other (the schema checks each alone): ranges only
 * on numeric configs and in order, categories on categorical ones (and unique), `thumbs` only on
 * boolean configs, `rating` only on numeric ones within 1-5.
 *
 * @example
 * checkScoreConfig({ name: 'tone', dataType: 'boolean', mapsTo: 'rating' })
 * // { field: 'mapsTo', message: 'mapsTo: "rating" needs dataType "numeric"' }
 */
export function checkScoreConfig(config: Omit<ScoreConfig, 'id' | 'archived' | 'mapsTo' | 'weight'> & { mapsTo?: ScoreMapping }): ScoreConfigProblem | undefined {
  const { dataType, min, max, categories, mapsTo } = config;
  if (dataType !== 'numeric' && (min !== undefined || max !== undefined)) {
    return { field: min !== undefined ? 'min' : 'max', message: `${min !== undefined ? 'min' : 'max'}: only a numeric config has a range` };
  }
  if (min !== undefined && max !== undefined && min > max) return { field: 'min', message: 'min: greater than max' };
  if (dataType === 'categorical' && categories === undefined) return { field: 'categories', message: 'categories: required for a categorical config' };
  if (dataType !== 'categorical' && categories !== undefined) return { field: 'categories', message: 'categories: only a categorical config has categories' };
  if (categories !== undefined) {
    const labels = new Set(categories.map((c) => c.label));
    const values = new Set(categories.map((c) => c.value));
    if (labels.size !== categories.length || values.size !== categories.length) return { field: 'categories', message: 'categories: labels and values must be unique' };
  }
  if (mapsTo === 'thumbs' && dataType !== 'boolean') return { field: 'mapsTo', message: 'mapsTo: "thumbs" needs dataType "boolean"' };
  if (mapsTo === 'rating') {
    if (dataType !== 'numeric') return { field: 'mapsTo', message: 'mapsTo: "rating" needs dataType "numeric"' };
    if ((min ?? STARS.min) < STARS.min || (max ?? STARS.max) > STARS.max) return { field: 'mapsTo', message: 'mapsTo: "rating" needs a range within 1-5' };
  }
  return undefined;
}

/**
 * The configs every workspace starts with (migration 0029 seeds them; editable): the names the
 * Langfuse and LangSmith SDKs' user feedback arrives under, mapped to thumbs, and feedloop's own
 * `thumbs` and `rating`.
 */
export const DEFAULT_SCORE_CONFIGS: ReadonlyArray<Omit<ScoreConfig, 'id' | 'archived'>> = [
  { name: 'user-feedback', dataType: 'boolean', mapsTo: 'thumbs', weight: 0, description: "Langfuse's user feedback: 1 thumbs up, 0 thumbs down" },
  { name: 'user_feedback', dataType: 'boolean', mapsTo: 'thumbs', weight: 0, description: 'User feedback: 1 thumbs up, 0 thumbs down' },
  { name: 'user_score', dataType: 'boolean', mapsTo: 'thumbs', weight: 0, description: "LangSmith's user score: 1 thumbs up, 0 thumbs down" },
  { name: 'thumbs', dataType: 'boolean', mapsTo: 'thumbs', weight: 0, description: 'A thumbs vote: 1/true up, 0/false down' },
  { name: 'rating', dataType: 'numeric', min: 1, max: 5, mapsTo: 'rating', weight: 0, description: 'A 1-5 star rating' },
];
