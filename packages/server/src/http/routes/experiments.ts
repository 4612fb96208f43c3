/**
 * `/v1/experiments`: A/B experiments over the responses' `experimentId` and `variant`. `PUT`
 * declares an experiment (control, expected shares, deciding metric, minimum sample); the reads
 * analyse any experiment a response carries, declared or not, from per-variant sufficient
 * statistics (one bounded query, see store/experiment-totals.ts; statistics in core).
 */
import {
  analyzeExperiment,
  defaultExperimentDefinition,
  experimentDefinitionSchema,
  idSchema,
  type ExperimentAnalysis,
  type ExperimentDefinition,
} from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FeedloopError } from '../../errors.js';
import { experimentTotals } from '../../store/experiment-totals.js';
import { listDeclaredExperiments, putExperiment, type StoredExperiment } from '../../store/experiments.js';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';

const TAGS = ['experiments'];
const UNITS =
  'Rates (satisfaction, correction rate, expected share) and lifts with their intervals are percentages; p-values and chance to win are ' +
  "probabilities 0-1; risk is the expected loss relative to the control's mean, as a fraction (GrowthBook's relative risk).";

const params = z.strictObject({ id: idSchema });

/** One experiment as the API shows it: its definition, whether declared, and its analysis. */
function view(id: string, declared: StoredExperiment | undefined, analysis: ExperimentAnalysis): Record<string, unknown> {
  return {
    id,
    declared: declared !== undefined,
    weights: declared?.definition.weights ?? null,
    ...analysis,
  };
}

function definitionOf(declared: StoredExperiment | undefined): ExperimentDefinition {
  return declared?.definition ?? defaultExperimentDefinition();
}

/** The experiment routes. */
export const experimentRoutes: FastifyPluginAsync<AppServices> = async (app, { db }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.put('/v1/experiments/:id', {
    schema: {
      summary: 'Declare an experiment: control, expected traffic shares, deciding metric, minimum sample',
      description:
        'Every field is optional: control defaults to "control", weights to an even split over the variants seen, metric to ' +
        'satisfaction, minSample to 100 units per variant. weights must name the control and at least two variants.',
      tags: TAGS,
      params,
      body: experimentDefinitionSchema,
    },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const stored = await putExperiment(db, workspaceId, request.params.id, request.body);
      return { id: stored.id, ...stored.definition, weights: stored.definition.weights ?? null, createdAt: stored.createdAt, updatedAt: stored.updatedAt };
    },
  });

  r.get('/v1/experiments', {
    schema: {
      summary: 'Every experiment of the workspace (declared or carried by a response) with its verdict',
      description: `Sorted by id. Per experiment: variants with their responses, the deciding metric and the verdict. ${UNITS}`,
      tags: TAGS,
    },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const [declared, totals] = await Promise.all([listDeclaredExperiments(db, workspaceId), experimentTotals(db, workspaceId)]);
      const byId = new Map(declared.map((d) => [d.id, d]));
      const ids = [...new Set([...byId.keys(), ...totals.keys()])].sort();
      return {
        experiments: ids.map((id) => {
          const d = byId.get(id);
          const a = analyzeExperiment(totals.get(id) ?? [], definitionOf(d));
          return {
            id,
            declared: d !== undefined,
            control: a.control,
            metric: a.metric,
            responses: a.variants.reduce((sum, v) => sum + v.responses, 0),
            variants: a.variants.map((v) => ({ variant: v.variant, responses: v.responses, satisfaction: v.satisfaction.rate })),
            sampleRatioMismatch: a.sampleRatio.mismatch,
            verdict: a.verdict,
          };
        }),
      };
    },
  });

  r.get('/v1/experiments/:id', {
    schema: {
      summary: 'One experiment: per-variant figures and each variant against the control',
      description:
        'Per variant: responses, rated, positive, satisfaction with its 95 % Wilson interval, correction rate, average edit distance, ' +
        'mean composite score. Per treatment, on the deciding metric, as GrowthBook computes it: relative lift with Welch\'s t-test ' +
        '(fixedHorizon), the always-valid sequential interval (sequential, tuning 5000), Bayesian chance to win and risk (improper ' +
        'gaussian prior), and the sample-ratio test (mismatch at p < 0.001). The absolute difference (difference, differenceCi: ' +
        'percentage points, or score units) is always given; where the normal approximation fails for a rate (0 % or 100 %, a ' +
        'control at 0, an expected count below 5) Fisher\'s exact test (exact) decides, and a score without a relative lift is ' +
        'decided by Welch\'s test on the difference (decidedBy). Below minSample the figures are shown with preliminary: true. ' +
        UNITS,
      tags: TAGS,
      params,
    },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const { id } = request.params;
      const [[declared], totals] = await Promise.all([listDeclaredExperiments(db, workspaceId, id), experimentTotals(db, workspaceId, id)]);
      const seen = totals.get(id);
      if (!declared && !seen) throw new FeedloopError('FEEDLOOP_ERR_EXPERIMENT_NOT_FOUND', `no experiment ${JSON.stringify(id)} in this workspace`);
      return view(id, declared, analyzeExperiment(seen ?? [], definitionOf(declared)));
    },
  });
};
