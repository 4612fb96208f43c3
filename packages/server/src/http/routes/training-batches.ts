/**
 * `/v1/training-batches`: the workspace's training batches (made by the scheduled job when unused
 * examples of a kind reach the threshold, or on demand), one batch, and its file. Secret keys only.
 */
import { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FeedloopError } from '../../errors.js';
import { TRAINING_BATCH_KIND_NAMES, type TrainingBatchKindName } from '@feedloop/core';
import { trainingBatchLines } from '../../pipeline/training-batch-lines.js';
import { findTrainingBatch, listTrainingBatches } from '../../store/training-batches.js';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';

const ID_MAX_LENGTH = 64;
const DEFAULT_PAGE = 50;
const MAX_PAGE = 1_000;

const batchView = z.object({
  id: z.string(),
  kind: z.string(),
  format: z.string(),
  eventCount: z.number(),
  rowCount: z.number(),
  file: z.string().nullable(),
  createdAt: z.string(),
});

// Batch ids are `tb_` and a UUID: anything else is refused before it reaches a query.
const batchId = z.string().min(1).max(ID_MAX_LENGTH).regex(/^[A-Za-z0-9_-]+$/, 'not a training batch id');
const idParams = z.strictObject({ id: batchId });

const kindField = z.enum(TRAINING_BATCH_KIND_NAMES);
const kindQuery = z.strictObject({ kind: kindField.default('corrections').describe('The kind of batch to make') });

const listQuery = z.strictObject({
  kind: kindField.optional().describe('Only the batches of this kind'),
  before: batchId.optional().describe('List the batches older than this one (the last id of the previous page)'),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(DEFAULT_PAGE),
});

const notFound = (id: string): FeedloopError =>
  new FeedloopError('FEEDLOOP_ERR_TRAINING_BATCH_NOT_FOUND', `id: no training batch ${JSON.stringify(id)} in this workspace`, { field: 'id' });

/** The training batch routes. */
export const trainingBatchRoutes: FastifyPluginAsync<AppServices> = async (app, { db, pipeline }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get('/v1/training-batches', {
    schema: {
      summary: 'The training batches of the workspace, newest first',
      tags: ['training'],
      querystring: listQuery,
      response: { 200: z.object({ batches: z.array(batchView) }) },
    },
    handler: async (request) => {
      const { before, limit, kind } = request.query;
      return { batches: await listTrainingBatches(db, authOf(request).workspaceId, { limit, ...(before ? { before } : {}), ...(kind ? { kind } : {}) }) };
    },
  });

  r.post('/v1/training-batches', {
    schema: {
      summary: 'Make a batch of the unused examples of a kind (default corrections) now, however few; 204 when none is unused',
      tags: ['training'],
      querystring: kindQuery,
      response: { 201: batchView, 204: z.null().describe('No unused examples of the kind') },
    },
    handler: async (request, reply) => {
      const batch = await pipeline.trainingBatchNow(authOf(request).workspaceId, request.query.kind);
      return batch ? reply.status(201).send(batch) : reply.status(204).send(null);
    },
  });

  r.get('/v1/training-batches/:id', {
    schema: { summary: 'One training batch', tags: ['training'], params: idParams, response: { 200: batchView } },
    handler: async (request) => {
      const batch = await findTrainingBatch(db, authOf(request).workspaceId, request.params.id);
      if (!batch) throw notFound(request.params.id);
      return batch;
    },
  });

  r.get('/v1/training-batches/:id/file', {
    schema: { summary: "The batch's rows as JSONL, read from the database (any API process serves it)", tags: ['training'], params: idParams },
    handler: async (request, reply) => {
      const { workspaceId } = authOf(request);
      const batch = await findTrainingBatch(db, workspaceId, request.params.id);
      if (!batch) throw notFound(request.params.id);
      const lines = trainingBatchLines(db, workspaceId, batch.id, batch.kind as TrainingBatchKindName);
      const body = Readable.from(
        (async function* () {
          for await (const line of lines) yield `${line}\n`;
        })(),
      );
      return reply.type('application/x-ndjson').header('content-disposition', `attachment; filename="${batch.id}.jsonl"`).send(body);
    },
  });
};
