/**
 * `/v1/feedback`: submit one event or a batch, and list stored events.
 */
import {
  LIMITS,
  SIGNAL_SOURCES,
  feedbackEventSchema,
  idSchema,
  isFeedbackEventType,
  timestampSchema,
  validateFeedbackEvent,
  type ErrorBody,
  type FeedbackEvent,
} from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FeedloopError } from '../../errors.js';
import { decodeCursor, listFeedback } from '../../store/feedback-queries.js';
import { authOf } from '../auth.js';
import { chargeEvents } from '../public-limits.js';
import type { AppServices } from '../services.js';
import { judgeItems } from '../batch-items.js';
import { withValidator } from '../validation.js';

const outcomeSchema = z.object({
  id: z.string().nullable(),
  status: z.enum(['accepted', 'duplicate', 'rejected', 'sampled']),
  error: z.object({ code: z.string(), message: z.string(), field: z.string().optional() }).optional(),
});

const batchSchema = withValidator(
  z.object({ events: z.array(feedbackEventSchema).min(1).max(LIMITS.batchMaxItems) }),
  (body) => {
    const events = (body as { events?: unknown } | null)?.events;
    if (!Array.isArray(events)) {
      return { ok: false, error: { code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', message: 'events: must be an array of events', field: 'events' } };
    }
    if (events.length < 1 || events.length > LIMITS.batchMaxItems) {
      return {
        ok: false,
        error: { code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', message: `events: send 1 to ${LIMITS.batchMaxItems} events`, field: 'events' },
      };
    }
    return { ok: true, value: body };
  },
);

const listQuery = z.strictObject({
  responseId: idSchema.optional(),
  userId: idSchema.optional(),
  sessionId: idSchema.optional(),
  type: z.string().max(1_000).optional().describe('One type or several, comma-separated'),
  source: z.enum(SIGNAL_SOURCES).optional().describe('Only events of this source: explicit, implicit, outcome, review or judge'),
  evaluatorId: z.string().min(1).max(LIMITS.labelMaxLength).optional().describe("Only a judge's events: its `metadata.evaluatorId`"),
  since: timestampSchema.optional(),
  until: timestampSchema.optional(),
  cursor: z.string().max(64).optional(),
  limit: z.coerce.number().int().min(1).max(1_000).default(100),
});

const clientId = (input: unknown): string | null => {
  const id = (input as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : null;
};

/** The feedback routes. */
export const feedbackRoutes: FastifyPluginAsync<AppServices> = async (app, { ingest, db, config }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post('/v1/feedback', {
    config: { access: 'public', countsFeedback: true },
    schema: {
      summary: 'Submit one feedback event',
      tags: ['feedback'],
      body: withValidator(feedbackEventSchema, validateFeedbackEvent),
      response: { 202: outcomeSchema },
    },
    handler: async (request, reply) => {
      const auth = authOf(request);
      await chargeEvents(request, ingest, config, 1);
      const [outcome] = await ingest.submitFeedback(auth, [request.body as FeedbackEvent]);
      if (!outcome) throw new FeedloopError('FEEDLOOP_ERR_INTERNAL', 'no outcome');
      if (outcome.status === 'rejected') throw FeedloopError.from(outcome.error);
      return reply.status(202).send(outcome);
    },
  });

  r.post('/v1/feedback/batch', {
    config: { access: 'public', itemsJudgedAlone: true },
    bodyLimit: config.batchBodyLimitBytes,
    schema: {
      summary: 'Submit up to 1,000 feedback events; each is judged alone',
      tags: ['feedback'],
      body: batchSchema,
      response: { 207: z.object({ results: z.array(outcomeSchema) }) },
    },
    handler: async (request, reply) => {
      const auth = authOf(request);
      const inputs = (request.body as { events: unknown[] }).events;
      await chargeEvents(request, ingest, config, inputs.length, { batch: true });
      const checked = judgeItems(inputs, validateFeedbackEvent, config.bodyLimitBytes);
      const valid = checked.flatMap((c) => (c.ok ? [c.value] : []));
      const written = await ingest.submitFeedback(auth, valid);
      let next = 0;
      const results = checked.map((c, i) => {
        if (c.ok) {
          const outcome = written[next++];
          if (outcome?.status === 'rejected') ingest.countRejected(outcome.error.code);
          return outcome;
        }
        ingest.countRejected(c.error.code);
        return { id: clientId(inputs[i]), status: 'rejected' as const, error: c.error satisfies ErrorBody };
      });
      return reply.status(207).send({ results: results as z.infer<typeof outcomeSchema>[] });
    },
  });

  r.delete('/v1/feedback/:eventId', {
    schema: {
      summary: 'Retract a feedback event: kept on record, marked retracted, its effects reversed; a repeat changes nothing',
      tags: ['feedback'],
      params: z.strictObject({ eventId: idSchema }),
      querystring: z.strictObject({ reason: z.string().min(1).max(LIMITS.commentMaxLength).optional().describe('Why; kept with the event and in the audit log') }),
      response: {
        200: z.object({
          id: z.string(),
          responseId: z.string(),
          type: z.string(),
          status: z.enum(['retracted', 'already_retracted']),
          retractedAt: z.string(),
          reason: z.string().nullable(),
        }),
      },
    },
    handler: async (request) => {
      const done = await ingest.retractFeedback(authOf(request), request.params.eventId, request.query.reason);
      return {
        id: done.eventId,
        responseId: done.responseId,
        type: done.type,
        status: done.changed ? ('retracted' as const) : ('already_retracted' as const),
        retractedAt: done.retractedAt.toISOString(),
        reason: done.reason,
      };
    },
  });

  r.get('/v1/feedback', {
    schema: { summary: 'List feedback events, newest first', tags: ['feedback'], querystring: listQuery },
    handler: async (request) => {
      const q = request.query;
      const beforeSeq = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
      if (q.cursor !== undefined && beforeSeq === undefined) {
        throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'cursor: not a cursor this API returned', { field: 'cursor' });
      }
      const types = q.type?.split(',').map((t) => t.trim()).filter(Boolean);
      const unknown = types?.find((t) => !isFeedbackEventType(t));
      if (unknown !== undefined) {
        throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_UNKNOWN_TYPE', `type: unknown feedback type ${JSON.stringify(unknown)}`, { field: 'type' });
      }
      return listFeedback(
        db,
        authOf(request).workspaceId,
        {
          ...(q.responseId ? { responseId: q.responseId } : {}),
          ...(q.userId ? { userId: q.userId } : {}),
          ...(q.sessionId ? { sessionId: q.sessionId } : {}),
          ...(types ? { types } : {}),
          ...(q.source ? { source: q.source } : {}),
          ...(q.evaluatorId ? { evaluatorId: q.evaluatorId } : {}),
          ...(q.since ? { since: new Date(q.since) } : {}),
          ...(q.until ? { until: new Date(q.until) } : {}),
        },
        beforeSeq,
        q.limit,
      );
    },
  });
};
