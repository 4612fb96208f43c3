/**
 * `GET /v1/users`: the workspace's end users, searchable by id, with their figures and consent
 * (store/user-list.ts).
 * `GET /v1/users/:userId/context`: the user's memory (ADR-004) as a block to inject into the next
 * prompt, text and items, computed from their own committed events on every request (through a
 * snapshot of their events' facts, store/user-memory-window.ts).
 * `?explain=true` adds the ids of the events behind each item ("why did the AI do X").
 */
import { MEMORY_DEFAULTS, checkStorable, idSchema, memoryFromFacts } from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FeedloopError } from '../../errors.js';
import { listUsers } from '../../store/user-list.js';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';

const query = z.strictObject({
  explain: z.enum(['true', 'false']).default('false'),
  halfLifeDays: z.coerce.number().min(1).max(3650).default(MEMORY_DEFAULTS.halfLifeDays),
});

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;

const listQuery = z.strictObject({
  search: z.string().min(1).max(256).optional().describe('A case-insensitive piece of the user id'),
  limit: z.coerce.number().int().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT),
  cursor: idSchema.optional().describe('nextCursor of the previous page'),
});

const consentState = z.boolean().nullable().describe('null: never stated');
const listItem = z.object({
  userId: z.string(),
  responses: z.number().int(),
  events: z.number().int().describe('Feedback events the user sent'),
  lastSeenAt: z.string().nullable().describe('Latest event (occurredAt) or response (createdAt)'),
  ratings: z.object({ positive: z.number().int(), negative: z.number().int() }),
  satisfaction: z.number().nullable().describe('positive / rated, in percent (one decimal); null without ratings'),
  consent: z.object({ explicit: consentState, implicit: consentState, outcome: consentState, types: z.record(z.string(), z.boolean()), updatedAt: z.string().nullable() }),
});

/** The user routes. */
export const userRoutes: FastifyPluginAsync<AppServices> = async (app, { db, memory: windows }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get('/v1/users', {
    schema: {
      summary: "The workspace's end users in id order, searchable by id, with responses, events, last seen, satisfaction and consent",
      tags: ['privacy'],
      querystring: listQuery,
      response: { 200: z.object({ data: z.array(listItem), nextCursor: z.string().nullable() }) },
    },
    handler: async (request) => {
      const { search, limit, cursor } = request.query;
      // What the database cannot compare (a NUL, a lone surrogate) is refused, naming the field.
      const unstorable = checkStorable(request.query);
      if (unstorable) throw FeedloopError.from(unstorable);
      return listUsers(db, authOf(request).workspaceId, { limit, ...(search ? { search } : {}), ...(cursor ? { after: cursor } : {}) });
    },
  });
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
