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
import { decodeListCursor, listResponses, type ResponseListFilter } from '../../store/response-list.js';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;
const text = z.string().min(1).max(256);
const score = z.coerce.number().min(-1).max(1);

const listQuery = z.strictObject({
  minScore: score.optional().describe('Composite score at least (-1..1)'),
  maxScore: score.optional().describe('Composite score at most (-1..1)'),
  rating: z.enum(['positive', 'negative', 'unrated']).optional().describe('Has a positive / negative counted signal, or none'),
  category: text.optional().describe('Has feedback with this error category'),
  // Three characters at least: a shorter text has no three-letter piece in the comment index
  // (migration 0020) and walks the whole workspace (13 s at 10 M events when nothing matches).
  comment: z.string().min(3, 'must be at least 3 characters').max(256).optional().describe('Case-insensitive text (3 characters or more) in a comment, reason or note'),
  agent: text.optional(),
  model: text.optional(),
  experimentId: text.optional(),
  variant: text.optional(),
  since: z.iso.datetime({ offset: true }).optional().describe('Created at or after (ISO 8601)'),
  until: z.iso.datetime({ offset: true }).optional().describe('Created before (ISO 8601)'),
  scoreName: text.optional().describe('Has a current named score of this name (docs/scores.md)'),
  scoreMin: z.coerce.number().finite().optional().describe("With scoreName: the score's value at least"),
  scoreMax: z.coerce.number().finite().optional().describe("With scoreName: the score's value at most"),
  scoreValue: text.optional().describe("With scoreName: the score's label (stringValue), or its value when a number"),
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
      const { limit, cursor, since, until, scoreName, scoreMin, scoreMax, scoreValue, ...rest } = request.query;
      const after = cursor === undefined ? undefined : decodeListCursor(cursor);
      if (cursor !== undefined && after === undefined) {
        throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'cursor: not a cursor from this list', { field: 'cursor' });
      }
      if (rest.minScore !== undefined && rest.maxScore !== undefined && rest.minScore > rest.maxScore) {
        throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'minScore: must not be above maxScore', { field: 'minScore' });
      }
      const lone = scoreMin !== undefined ? 'scoreMin' : scoreMax !== undefined ? 'scoreMax' : scoreValue !== undefined ? 'scoreValue' : undefined;
      if (scoreName === undefined && lone !== undefined) {
        throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', `${lone}: needs scoreName`, { field: lone });
      }
      if (scoreMin !== undefined && scoreMax !== undefined && scoreMin > scoreMax) {
        throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'scoreMin: must not be above scoreMax', { field: 'scoreMin' });
      }
      const filter: ResponseListFilter = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
      if (scoreName !== undefined) {
        filter.score = {
          name: scoreName,
          ...(scoreMin !== undefined ? { min: scoreMin } : {}),
          ...(scoreMax !== undefined ? { max: scoreMax } : {}),
          ...(scoreValue !== undefined ? { value: scoreValue } : {}),
        };
      }
      if (since !== undefined) filter.since = new Date(since);
      if (until !== undefined) filter.until = new Date(until);
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
