/**
 * `GET /v1/users/:userId/context`: the user's memory (ADR-004) as a block to inject into the next
 * prompt, text and items, computed from their own committed events on every request (through a
 * snapshot of their events' facts, store/user-memory-window.ts).
 * `?explain=true` adds the ids of the events behind each item ("why did the AI do X").
 */
import { MEMORY_DEFAULTS, idSchema, memoryFromFacts } from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';

const query = z.strictObject({
  explain: z.enum(['true', 'false']).default('false'),
  halfLifeDays: z.coerce.number().min(1).max(3650).default(MEMORY_DEFAULTS.halfLifeDays),
});

/** The user routes. */
export const userRoutes: FastifyPluginAsync<AppServices> = async (app, { memory: windows }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get('/v1/users/:userId/context', {
    // A heavy read: under the per-workspace and per-process cap (http/heavy-reads.ts).
    config: { heavyRead: true },
    schema: {
      summary: "A user's memory: mistakes to avoid, style, domain calibration (?explain=true names the events)",
      tags: ['memory'],
      params: z.strictObject({ userId: idSchema }),
      querystring: query,
    },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const { userId } = request.params;
      const { facts } = await windows.read(workspaceId, userId);
      const memory = memoryFromFacts(facts, new Date(), { halfLifeDays: request.query.halfLifeDays });
      const explain = request.query.explain === 'true';
      return {
        userId,
        text: memory.text,
        items: memory.items.map(({ eventIds, ...item }) => (explain ? { ...item, eventIds } : item)),
        eventsRead: facts.length,
      };
    },
  });
};
