/**
 * `GET /v1/targets/:id`: a target's current state after every label action (ADR-0012), applied
 * at once (read from the committed events), with its full history and the decision on each action,
 * its registration and, for a claim, its confidence recomputed from its edges.
 * `PUT /v1/targets/:id`: registers a target with its content (issue 24).
 */
import { idSchema, registeredTargetSchema, targetState } from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FeedloopError } from '../../errors.js';
import { putTarget, readRegisteredTarget, recomputeClaimConfidence } from '../../store/registered-targets.js';
import { readTargetEvents } from '../../store/targets.js';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';

/** The target routes. */
export const targetRoutes: FastifyPluginAsync<AppServices> = async (app, { db }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const params = z.strictObject({ id: idSchema });

  r.put('/v1/targets/:id', {
    schema: {
      summary: 'Register a target with its content: a fragment, claim or page and its text, or an edge between a fragment and a claim',
      description:
        'kind: fragment | claim | edge | page. text: the content (premise of a fragment, a claim). An edge needs fragmentId and claimId, ' +
        "and may carry the model's relation and confidence (0-1); the other kinds refuse those fields. 201 when created, 200 when replaced. " +
        "A correct_label on a registered edge makes an NLI sample with its fragment's text as premise and its claim's as hypothesis, " +
        "and recomputes the claim's confidence (GET /v1/targets/:claimId, target.corrected).",
      tags: ['targets'],
      params,
      body: registeredTargetSchema,
    },
    handler: async (request, reply) => {
      const { workspaceId } = authOf(request);
      const { target, created } = await putTarget(db, workspaceId, request.params.id, request.body);
      return reply.status(created ? 201 : 200).send(target);
    },
  });

  r.get('/v1/targets/:id', {
    schema: {
      summary: "A target's current state (label, relations, flags, notes), the history of its corrections, its registration and a claim's confidence",
      tags: ['targets'],
      params,
    },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const { id } = request.params;
      const [events, registered] = await Promise.all([readTargetEvents(db, workspaceId, id), readRegisteredTarget(db, workspaceId, id)]);
      if (events.length === 0 && !registered) {
        throw new FeedloopError('FEEDLOOP_ERR_TARGET_NOT_FOUND', `no label action names target ${JSON.stringify(id)}, and it is not registered`, { field: 'id' });
      }
      const claimConfidence = registered?.kind === 'claim' ? await recomputeClaimConfidence(db, workspaceId, id) : null;
      return { ...targetState(id, events), registered: registered ?? null, claimConfidence };
    },
  });
};
