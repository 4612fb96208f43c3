/**
 * What a team declares about an experiment (`PUT /v1/experiments/:id`): which variant is the
 * control, the traffic shares it expects, the metric that decides and the sample needed before a
 * verdict. Everything has a default, so an experiment nobody declared is still analysed.
 */
import { z } from 'zod';
import { responseSchema } from './response-schema.js';

/** The metrics an experiment can be decided on. */
export const EXPERIMENT_METRICS = ['satisfaction', 'correction_rate', 'composite_score'] as const;
/** One of {@link EXPERIMENT_METRICS}. */
export type ExperimentMetric = (typeof EXPERIMENT_METRICS)[number];

/** The control's name unless declared otherwise. */
export const DEFAULT_CONTROL = 'control';
/** The deciding metric unless declared otherwise. */
export const DEFAULT_EXPERIMENT_METRIC: ExperimentMetric = 'satisfaction';
/**
 * Units each variant needs in the deciding metric (rated responses for satisfaction, responses
 * for the correction rate, scored responses for the composite score) before any verdict:
 * feedloop's choice, so a handful of early votes never reads as a result.
 */
export const DEFAULT_EXPERIMENT_MIN_SAMPLE = 100;

const variantName = responseSchema.shape.variant.unwrap();

/** The body of `PUT /v1/experiments/:id`. */
export const experimentDefinitionSchema = z
  .strictObject({
    control: variantName.default(DEFAULT_CONTROL).describe('The variant the others are compared with'),
    weights: z
      .record(variantName, z.number().positive().max(1_000_000))
      .optional()
      .describe('Expected traffic share per variant (any scale, normalized); even split over the variants seen when absent'),
    metric: z.enum(EXPERIMENT_METRICS).default(DEFAULT_EXPERIMENT_METRIC)
      .describe('satisfaction (higher is better), correction_rate (lower is better) or composite_score (higher is better)'),
    minSample: z.number().int().min(2).max(1_000_000_000).default(DEFAULT_EXPERIMENT_MIN_SAMPLE)
      .describe('Units each variant needs in the metric before a verdict'),
  })
  .superRefine((value, ctx) => {
    if (value.weights === undefined) return;
    const names = Object.keys(value.weights);
    if (names.length < 2) ctx.addIssue({ code: 'custom', path: ['weights'], message: 'name at least two variants' });
    else if (!names.includes(value.control)) {
      ctx.addIssue({ code: 'custom', path: ['weights'], message: `must include the control ${JSON.stringify(value.control)}` });
    }
  });

/** A declared experiment, defaults filled in. */
export type ExperimentDefinition = z.output<typeof experimentDefinitionSchema>;

/**
 * The definition of an experiment nobody declared.
 *
 * @example
 * defaultExperimentDefinition() // { control: 'control', metric: 'satisfaction', minSample: 100 }
 */
export function defaultExperimentDefinition(): ExperimentDefinition {
  return experimentDefinitionSchema.parse({});
}
