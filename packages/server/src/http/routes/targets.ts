/**
 * `GET /v1/targets/:id`: a target's current state after every label action (ADR-0012), applied
 * at once (read from the committed events), with its full history and the decision on each action.
 */
import { idSchema, targetState } from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FeedloopError } from '../../errors.js';
import { readTargetEvents } from '../../store/targets.js';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';

/** The target routes. */
export const targetRoutes: FastifyPluginAsync<AppServices> = async (app, { db }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get('/v1/targets/:id', {
    schema: {
      summary: "A target's current state (label, relations, flags, notes) and the history of its corrections",
      tags: ['targets'],
      params: z.strictObject({ id: idSchema }),
    },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const events = await readTargetEvents(db, workspaceId, request.params.id);
      if (events.length === 0) throw new FeedloopError('FEEDLOOP_ERR_TARGET_NOT_FOUND', `no label action names target ${JSON.stringify(request.params.id)}`, { field: 'id' });
      return targetState(request.params.id, events);
    },
  });
};
