/**
 * `/v1/responses`: register the AI responses feedback is about, and read one with its feedback.
 */
import { LIMITS, idSchema, responseSchema, validateResponse } from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FeedloopError } from '../../errors.js';
import { countFeedbackBySource, listFeedback } from '../../store/feedback-queries.js';
import { responseScores } from '../../store/score-reads.js';
import { getResponseQuality } from '../../store/response-quality.js';
import { getResponse } from '../../store/responses.js';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';
import { judgeItems } from '../batch-items.js';
import { withValidator } from '../validation.js';

const batchSchema = withValidator(
  z.object({ responses: z.array(responseSchema).min(1).max(LIMITS.batchMaxItems) }),
  (body) => {
    const responses = (body as { responses?: unknown } | null)?.responses;
    if (!Array.isArray(responses) || responses.length < 1 || responses.length > LIMITS.batchMaxItems) {
      return {
        ok: false,
        error: {
          code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD',
          message: `responses: send an array of 1 to ${LIMITS.batchMaxItems} responses`,
          field: 'responses',
        },
      };
    }
    return { ok: true, value: body };
  },
);

const resultSchema = z.object({
  id: z.string().nullable(),
  status: z.enum(['created', 'duplicate', 'rejected']),
  error: z.object({ code: z.string(), message: z.string(), field: z.string().optional() }).optional(),
});

/** Feedback shown with a response at most; older events are listed by `GET /v1/feedback?responseId=`. */
const FEEDBACK_WITH_RESPONSE = 1_000;

/** The response routes. */
export const responseRoutes: FastifyPluginAsync<AppServices> = async (app, { ingest, db, config }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post('/v1/responses', {
    schema: {
      summary: 'Register an AI response',
      tags: ['responses'],
      body: withValidator(responseSchema, validateResponse),
      response: {
        201: z.object({ id: z.string(), status: z.literal('created') }),
        200: z.object({ id: z.string(), status: z.literal('duplicate') }),
      },
    },
    handler: async (request, reply) => {
      const [outcome] = await ingest.registerResponses(authOf(request), [request.body]);
      if (!outcome) throw new FeedloopError('FEEDLOOP_ERR_INTERNAL', 'no outcome');
      if (outcome.status === 'rejected') throw FeedloopError.from(outcome.error);
      return outcome.status === 'created' ? reply.status(201).send({ id: outcome.id, status: 'created' }) : reply.status(200).send({ id: outcome.id, status: 'duplicate' });
    },
  });

  r.post('/v1/responses/batch', {
    bodyLimit: config.batchBodyLimitBytes,
    config: { itemsJudgedAlone: true },
    schema: {
      summary: 'Register up to 1,000 responses; each is judged alone',
      tags: ['responses'],
      body: batchSchema,
      response: { 207: z.object({ results: z.array(resultSchema) }) },
    },
    handler: async (request, reply) => {
      const inputs = (request.body as { responses: unknown[] }).responses;
      const checked = judgeItems(inputs, validateResponse, config.bodyLimitBytes);
      const valid = checked.flatMap((c) => (c.ok ? [c.value] : []));
      const written = await ingest.registerResponses(authOf(request), valid);
      let next = 0;
      const results = checked.map((c, i) => {
        if (c.ok) return written[next++];
        const id = (inputs[i] as { id?: unknown } | null)?.id;
        return { id: typeof id === 'string' ? id : null, status: 'rejected' as const, error: c.error };
      });
      return reply.status(207).send({ results: results as z.infer<typeof resultSchema>[] });
    },
  });

  r.get('/v1/responses/:id', {
    schema: { summary: 'A response with its feedback, composite quality (score, conflicts), learning signals and current named scores', tags: ['responses'], params: z.object({ id: idSchema }) },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const response = await getResponse(db, workspaceId, request.params.id);
      if (!response) {
        throw new FeedloopError('FEEDLOOP_ERR_RESPONSE_NOT_FOUND', `id: no response ${JSON.stringify(request.params.id)} in this workspace`, {
          field: 'id',
        });
      }
      const [feedback, learned, scores, bySource] = await Promise.all([
        listFeedback(db, workspaceId, { responseId: response.id }, undefined, FEEDBACK_WITH_RESPONSE),
        getResponseQuality(db, workspaceId, response),
        responseScores(db, workspaceId, response.id),
        countFeedbackBySource(db, workspaceId, response.id),
      ]);
      return {
        ...response,
        quality: learned.quality,
        learningSignals: learned.learningSignals,
        scores,
        feedback: feedback.data,
        moreFeedback: feedback.nextCursor !== null,
        // Current feedback per source: users' (explicit, implicit, outcome) apart from reviewers' and judges'.
        feedbackBySource: bySource,
      };
    },
  });
};
