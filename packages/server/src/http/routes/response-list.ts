/**
 * `GET /v1/responses`: the searchable response list (the dashboard's Responses page), newest
 * first, filtered by score, rating, category, comment text, agent, model, experiment, variant and
 * time. See store/response-list.ts for how each filter is served by an index.
 * `GET /v1/response-facets`: the values those filters can take in this workspace (its agents,
 * models, variants and error categories), for the page's filter choices (store/response-facets.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FeedloopError } from '../../errors.js';
import { responseFacets } from '../../store/response-facets.js';
import { decodeListCursor, listResponses } from '../../store/response-list.js';
import { responseFilterFields, toResponseListFilter } from '../../store/response-list-filter.js';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;
const listQuery = z.strictObject({
  ...responseFilterFields,
  limit: z.coerce.number().int().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT),
  cursor: z.string().max(512).optional().describe('nextCursor of the previous page'),
});

const item = z.object({
  id: z.string(),
  query: z.string().describe('First 300 characters'),
  answer: z.string().describe('First 300 characters'),
  userId: z.string().nullable(),
  model: z.string().nullable(),
  agent: z.string().nullable(),
  queryType: z.string().nullable(),
  experimentId: z.string().nullable(),
  variant: z.string().nullable(),
  createdAt: z.string(),
  score: z.number().nullable(),
  confidence: z.number().nullable(),
  positive: z.number().int().describe("Counted positive signals of the response's users (reviews and judges apart)"),
  negative: z.number().int().describe("Counted negative signals of the response's users"),
  corrections: z.number().int(),
  reviews: z.number().int().describe('Counted signals of reviewers (source review)'),
  judgements: z.number().int().describe('Counted signals of automated evaluators (source judge)'),
  categories: z.array(z.string()),
  scores: z.array(z.object({ name: z.string(), count: z.number().int(), mean: z.number().nullable() })).describe('Current named scores: per name, count and mean'),
});

/** The response list route. */
export const responseListRoutes: FastifyPluginAsync<AppServices> = async (app, { db }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get('/v1/responses', {
    schema: {
      summary: 'Responses newest first, filtered by score, rating, category, comment, agent, model, variant and time',
      tags: ['responses'],
      querystring: listQuery,
      response: { 200: z.object({ data: z.array(item), nextCursor: z.string().nullable() }) },
    },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const { limit, cursor, ...fields } = request.query;
      const after = cursor === undefined ? undefined : decodeListCursor(cursor);
      if (cursor !== undefined && after === undefined) {
        throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'cursor: not a cursor from this list', { field: 'cursor' });
      }
      const filter = toResponseListFilter(fields);
      return listResponses(db, workspaceId, filter, after, limit);
    },
  });

  r.get('/v1/response-facets', {
    schema: {
      summary: "The workspace's agents, models, experiment variants and error categories: the values the response list filters by",
      tags: ['responses'],
      response: {
        200: z.object({
          agents: z.array(z.string()),
          models: z.array(z.string()),
          variants: z.array(z.object({ experimentId: z.string(), variant: z.string() })),
          categories: z.array(z.string()),
          truncated: z.array(z.string()).describe('Facets with more values than listed (200 each)'),
        }),
      },
    },
    handler: async (request) => responseFacets(db, authOf(request).workspaceId),
  });
};
