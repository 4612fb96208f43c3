/**
 * `GET /v1/review-queues/:id/agreement` (issue 27; docs/review.md#agreement): how far a queue's
 * reviewers agree. Reads the queue's reviews in one bounded query and hands them to core's
 * `queueAgreement` (in a worker thread for a big queue: http/agreement-pool.ts); nothing is
 * stored. A secret key reads it: the issue gives a reviewer key the
 * queues it reviews and their items, not its colleagues' figures.
 */
import { agreementReviewOf } from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { readQueueReviews } from '../../store/review-agreement.js';
import { requireReviewQueue } from '../../store/review-queues.js';
import { AgreementPool } from '../agreement-pool.js';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';

const idParams = z.strictObject({ id: z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, 'not a review queue id') });

const estimate = z.object({
  value: z.number().nullable().describe('The statistic; null when undefined (no units, or no variation)'),
  low: z.number().nullable().describe('Lower end of the 95 % percentile bootstrap interval'),
  high: z.number().nullable(),
  n: z.number().int().describe('Items (units) it rests on'),
});
const positionBias = z.object({
  share: z.number().nullable().describe('First-position wins / decided comparisons (ties left out)'),
  low: z.number().nullable().describe('95 % Wilson interval'),
  high: z.number().nullable(),
  n: z.number().int(),
  firstWins: z.number().int(),
});

const agreementView = z.object({
  queueId: z.string(),
  kind: z.enum(['single', 'pairwise']),
  reviews: z.object({
    read: z.number().int(),
    truncated: z.boolean().describe('More reviews than one read takes: the oldest items were left out'),
  }),
  resamples: z.number().int().describe('Bootstrap resamples behind every interval: 1,000, fewer for a very big queue (a budget of items × statistics)'),
  items: z.object({ reviewed: z.number().int(), withTwoOrMore: z.number().int().describe('The agreement figures’ units') }),
  percentAgreement: estimate,
  cohenKappa: z.array(estimate.extend({ reviewers: z.tuple([z.string(), z.string()]) })),
  fleissKappa: estimate.extend({ reviewersPerItem: z.number().int() }).nullable(),
  krippendorffAlpha: z.object({ labels: estimate.describe('Nominal'), scores: z.array(estimate.extend({ name: z.string() })).describe('Interval, per score name') }),
  reviewers: z.array(
    z.object({
      reviewer: z.string(),
      itemsDone: z.number().int(),
      medianSeconds: z.number().nullable(),
      agreementWithMajority: z.object({ rate: z.number().nullable(), low: z.number().nullable(), high: z.number().nullable(), n: z.number().int() }),
      positionBias,
    }),
  ),
  positionBias,
});

/** The review agreement route. */
export const reviewAgreementRoutes: FastifyPluginAsync<AppServices> = async (app, { db }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const pool = new AgreementPool();
  app.addHook('onClose', () => pool.close());

  r.get('/v1/review-queues/:id/agreement', {
    schema: {
      summary: "A review queue's reviewer agreement: percent agreement, Cohen's kappa per pair, Fleiss' kappa, Krippendorff's alpha, per reviewer, position bias",
      tags: ['review'],
      params: idParams,
      response: { 200: agreementView },
    },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const queue = await requireReviewQueue(db, workspaceId, request.params.id);
      const { reviews, truncated, fingerprint } = await readQueueReviews(db, workspaceId, queue.id);
      const report = await pool.compute(reviews.map(agreementReviewOf), fingerprint);
      return { queueId: queue.id, kind: queue.kind, reviews: { read: reviews.length, truncated }, ...report };
    },
  });
};
