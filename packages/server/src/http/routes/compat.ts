/**
 * The seeds' own endpoints, so their clients can point at feedloop unchanged:
 *
 * - Feedback-and-RLHF: `POST /api/v1/feedback/submit|correction|rating` and
 *   `GET /api/v1/feedback/summary?session_id=`.
 * - Phase 4.1 RAG: `POST /api/rag/feedback`.
 *
 * Each POST maps its body onto a feedloop event (the pure mappers in core) and then takes the
 * single ingest path of `/v1/feedback`: same keys, rate limit, feedback window, idempotency and
 * dedup. Only the names differ: errors name fields the way the seed's client sent them.
 */
import {
  RAG_FIELD_NAMES,
  RLHF_FIELD_NAMES,
  idSchema,
  mapRagFeedbackEntry,
  mapRlhfEvent,
  ragFeedbackEntrySchema,
  renameErrorField,
  rlhfEventSchema,
  summarizeSession,
  type FeedbackEvent,
  type RlhfFeedbackType,
} from '@feedloop/core';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FeedloopError } from '../../errors.js';
import type { FeedbackOutcome } from '../../store/feedback-writer.js';
import { anonymousClient } from '../../ingest/anonymous-client.js';
import { tagResponseExperiment } from '../../store/experiments.js';
import { loadSessionFeedback } from '../../store/session-summary.js';
import { authOf } from '../auth.js';
import { chargeEvents } from '../public-limits.js';
import type { AppServices } from '../services.js';
import { withValidator } from '../validation.js';

const TAGS = ['compatibility'];
/** Feedback routes take public keys, as `/v1/feedback` does; rejections count as rejected events. */
const FEEDBACK_CONFIG = { access: 'public', countsFeedback: true } as const;

const rlhfAcceptedSchema = z.object({
  event_id: z.string().describe('The event id: the client\'s event_id, or one the server made'),
  id: z.string().describe('Same as event_id, under feedloop\'s name'),
  status: z.enum(['accepted', 'duplicate']),
});

const ragAcceptedSchema = z.object({ id: z.string(), status: z.enum(['accepted', 'duplicate']) });

const rate = z.number().min(0).max(100).nullable();
const summarySchema = z.object({
  session_id: z.string(),
  total: z.number().int(),
  by_type: z.record(z.string(), z.number().int()),
  positive_rate: rate.describe('thumbs_up / (thumbs_up + thumbs_down), %; null without votes'),
  correction_rate: rate.describe('Responses with a correction / response_count, %'),
  escalation_rate: rate.describe('Responses with an escalation / response_count, %'),
  average_rating: z.number().nullable().describe('Mean stars of the rating events'),
  response_count: z.number().int().describe('The session\'s responses with any counted feedback'),
  first_feedback_at: z.string().nullable(),
  last_feedback_at: z.string().nullable(),
});

/** The RLHF seed's typed endpoints and the type each fills in (`submit` takes every type). */
const RLHF_ROUTES: ReadonlyArray<{ path: string; type?: RlhfFeedbackType; summary: string }> = [
  { path: '/api/v1/feedback/submit', summary: 'RLHF seed: submit a feedback event of any type (202)' },
  { path: '/api/v1/feedback/correction', type: 'correction', summary: 'RLHF seed: submit a correction; feedback_type defaults to correction (202)' },
  { path: '/api/v1/feedback/rating', type: 'rating', summary: 'RLHF seed: submit a 1-5 rating; feedback_type defaults to rating (202)' },
];

/**
 * The experiment and variant a Phase 4.1 entry names. The mapper keeps them in the event's
 * metadata; read back from there, each is checked against the entry's own schema again, since
 * the client's metadata could hold the same keys.
 */
function entryExperimentTags(event: FeedbackEvent): { experimentId?: string; variant?: string } {
  const metadata = event.metadata ?? {};
  const experimentId = ragFeedbackEntrySchema.shape.experimentId.safeParse(metadata.experimentId);
  const variant = ragFeedbackEntrySchema.shape.variant.safeParse(metadata.variant);
  const tags: { experimentId?: string; variant?: string } = {};
  if (experimentId.success && experimentId.data !== undefined) tags.experimentId = experimentId.data;
  if (variant.success && variant.data !== undefined) tags.variant = variant.data;
  return tags;
}

/** The compatible routes. */
export const compatRoutes: FastifyPluginAsync<AppServices> = async (app, { ingest, db, config }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  /** One event through the ingest path; a rejection is thrown with its field renamed for the client. */
  const submit = async (
    request: FastifyRequest,
    names: Readonly<Record<string, string>>,
    options: { anonymousByClient?: boolean } = {},
  ): Promise<FeedbackOutcome & { status: 'accepted' | 'duplicate' }> => {
    const auth = authOf(request);
    await chargeEvents(request, ingest, config, 1);
    const event = request.body as FeedbackEvent;
    // Phase 4.1 prevents duplicate submissions of anonymous entries too: their identity is their
    // client (IP and user agent, hashed under the privacy key; neither is stored).
    const anonymous = options.anonymousByClient && event.userId === undefined && event.sessionId === undefined;
    const client = anonymous ? await anonymousClient(db, config.auditKey, auth.workspaceId, request.ip, request.headers['user-agent']) : undefined;
    const [outcome] = await ingest.submitFeedback(auth, [event], client ? { client } : {});
    if (!outcome) throw new FeedloopError('FEEDLOOP_ERR_INTERNAL', 'no outcome');
    if (outcome.status === 'rejected') throw FeedloopError.from(renameErrorField(outcome.error, names));
    // The seeds' answers know no `sampled`: a sampled-out event was acknowledged all the same.
    return outcome.status === 'sampled' ? { id: outcome.id, status: 'accepted' } : outcome;
  };

  for (const route of RLHF_ROUTES) {
    r.post(route.path, {
      config: FEEDBACK_CONFIG,
      schema: {
        summary: route.summary,
        description:
          'Maps the seed\'s event onto a feedloop event: event_id → id, response_id → responseId, user_id, session_id, ' +
          'timestamp → occurredAt, feedback_source → source, data → the type\'s payload. tenant_id is kept in metadata; the key decides the workspace.',
        tags: TAGS,
        // Each route needs its own schema object: the validator is looked up by it.
        body: withValidator(rlhfEventSchema(route.type), (body) => mapRlhfEvent(body, route.type)),
        response: { 202: rlhfAcceptedSchema },
      },
      handler: async (request, reply) => {
        const outcome = await submit(request, RLHF_FIELD_NAMES);
        return reply.status(202).send({ event_id: outcome.id, id: outcome.id, status: outcome.status });
      },
    });
  }

  r.get('/api/v1/feedback/summary', {
    schema: {
      summary: 'RLHF seed: summary of a session\'s feedback (secret key)',
      description:
        'Counts the events carrying the session_id and the events on responses registered with it. Replaced votes and content ' +
        'duplicates are not counted. Rates are percentages 0–100 with 2 decimals (as on every route), null when their denominator is 0.',
      tags: TAGS,
      querystring: z.strictObject({ session_id: idSchema }),
      response: { 200: summarySchema },
    },
    handler: async (request) => {
      const { session_id: sessionId } = request.query;
      return summarizeSession(sessionId, await loadSessionFeedback(db, authOf(request).workspaceId, sessionId));
    },
  });

  r.post('/api/rag/feedback', {
    config: FEEDBACK_CONFIG,
    schema: {
      summary: 'Phase 4.1 RAG seed: submit a FeedbackEntry (201 when stored, 200 when a duplicate)',
      description:
        'queryId names a registered response; explicit feedback is taken within the workspace feedback window (24 h by default). ' +
        'rating positive → thumbs_up, negative → thumbs_down with { category, comment }; query, answer, sources, experimentId ' +
        'and variant are kept in metadata, the registered response being the source of truth. experimentId and variant also tag ' +
        'the response when it carries neither (a response registered with an experiment or variant keeps its own), with a secret key only: ' +
        'a public key never assigns experiments. An entry without userId is deduplicated by client (IP address and user agent, hashed ' +
        'under the privacy key) within the dedup window.',
      tags: TAGS,
      body: withValidator(ragFeedbackEntrySchema, mapRagFeedbackEntry),
      response: { 201: ragAcceptedSchema, 200: ragAcceptedSchema },
    },
    handler: async (request, reply) => {
      const outcome = await submit(request, RAG_FIELD_NAMES, { anonymousByClient: true });
      // After the entry is stored (or known), so a refused entry changes nothing. The body is the
      // mapped event by now (the validator's value), as `submit` reads it.
      const event = (request as FastifyRequest).body as FeedbackEvent;
      // Only a secret key assigns experiments (issue 22): a public key is in every browser, and a
      // tag decides which variant a response's feedback counts for.
      const auth = authOf(request);
      if (auth.kind === 'secret') await tagResponseExperiment(db, auth.workspaceId, event.responseId, entryExperimentTags(event));
      // As /v1/responses: 201 when something was created, 200 when this entry was already known.
      return reply.status(outcome.status === 'accepted' ? 201 : 200).send({ id: outcome.id, status: outcome.status });
    },
  });
};
