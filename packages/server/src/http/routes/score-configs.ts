/**
 * `/v1/score-configs` (issue 26 §1): a workspace's named score dimensions. Secret keys only (the
 * `/v1/` default). Configs are archived (`PATCH { archived: true }`), never deleted: events keep
 * naming them.
 */
import { SCORE_DATA_TYPES, SCORE_MAPPINGS, scoreConfigInputSchema, scoreConfigPatchSchema } from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FeedloopError } from '../../errors.js';
import { createScoreConfig, getScoreConfig, listScoreConfigs, updateScoreConfig, type StoredScoreConfig } from '../../store/score-configs.js';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';

const ID_MAX_LENGTH = 64;

const configView = z.object({
  id: z.string(),
  name: z.string(),
  dataType: z.enum(SCORE_DATA_TYPES),
  min: z.number().optional(),
  max: z.number().optional(),
  categories: z.array(z.object({ value: z.number(), label: z.string() })).optional(),
  description: z.string().optional(),
  mapsTo: z.enum(SCORE_MAPPINGS),
  weight: z.number(),
  archived: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const idParams = z.strictObject({ id: z.string().min(1).max(ID_MAX_LENGTH).regex(/^[A-Za-z0-9_-]+$/, 'not a score config id') });

const listQuery = z.strictObject({
  archived: z
    .enum(['true', 'false'])
    .optional()
    .describe('true: archived configs listed too'),
});

const viewOf = (c: StoredScoreConfig): z.infer<typeof configView> => ({ ...c, createdAt: c.createdAt.toISOString(), updatedAt: c.updatedAt.toISOString() });

const notFound = (id: string): FeedloopError =>
  new FeedloopError('FEEDLOOP_ERR_SCORE_CONFIG_NOT_FOUND', `id: no score config ${JSON.stringify(id)} in this workspace`, { field: 'id' });

/** The score-config routes. */
export const scoreConfigRoutes: FastifyPluginAsync<AppServices> = async (app, { db }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post('/v1/score-configs', {
    schema: {
      summary: 'Define a named score: its data type, range or categories, and what it maps to',
      tags: ['scores'],
      body: scoreConfigInputSchema,
      response: { 201: configView },
    },
    handler: async (request, reply) => reply.status(201).send(viewOf(await createScoreConfig(db, authOf(request).workspaceId, request.body))),
  });

  r.get('/v1/score-configs', {
    schema: {
      summary: "The workspace's score configs by name (archived ones with ?archived=true)",
      tags: ['scores'],
      querystring: listQuery,
      response: { 200: z.object({ configs: z.array(configView) }) },
    },
    handler: async (request) => ({
      configs: (await listScoreConfigs(db, authOf(request).workspaceId, { archived: request.query.archived === 'true' })).map(viewOf),
    }),
  });

  r.get('/v1/score-configs/:id', {
    schema: { summary: 'One score config', tags: ['scores'], params: idParams, response: { 200: configView } },
    handler: async (request) => {
      const found = await getScoreConfig(db, authOf(request).workspaceId, request.params.id);
      if (!found) throw notFound(request.params.id);
      return viewOf(found);
    },
  });

  r.patch('/v1/score-configs/:id', {
    schema: {
      summary: 'Change a score config, archive it (archived: true) or restore it; configs are never deleted',
      tags: ['scores'],
      params: idParams,
      body: scoreConfigPatchSchema,
      response: { 200: configView },
    },
    handler: async (request) => viewOf(await updateScoreConfig(db, authOf(request).workspaceId, request.params.id, request.body)),
  });
};
