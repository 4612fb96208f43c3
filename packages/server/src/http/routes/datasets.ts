/**
 * `/v1/datasets` (issue 27; docs/datasets.md): versioned datasets of responses with their expected
 * outputs. Secret keys only (the `/v1/` default). Every change of items is a new version; every
 * version stays readable (`?version=`) and exportable in every training format of `/v1/exports`.
 */
import {
  DEFAULT_EXPORT_OPTIONS,
  EXPECTED_SOURCES,
  EXPORT_FORMATS,
  datasetInputSchema,
  datasetItemsInputSchema,
  datasetResponseIdSchema,
  firstIssue,
  idSchema,
  isExportFormat,
  type ErrorBody,
  type ExportOptions,
} from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { heavyReadClient, type SqlExecutor } from '../../db/sql-client.js';
import { FeedloopError } from '../../errors.js';
import { addFilteredResponses, addResponseIds } from '../../store/dataset-adds.js';
import { datasetExportJsonl, validateDatasetExport } from '../../store/dataset-export.js';
import { changeDatasetItems, decodeItemCursor, encodeItemCursor, itemNotFound, readVersionItems, type DatasetItem } from '../../store/dataset-items.js';
import { createDataset, datasetNotFound, getDataset, listDatasets, listDatasetVersions, type Dataset, type DatasetVersion } from '../../store/datasets.js';
import { parseResponseFilter } from '../../store/response-list-filter.js';
import { authOf } from '../auth.js';
import { exportRowOptions } from '../export-options.js';
import type { AppServices } from '../services.js';

const NDJSON = 'application/x-ndjson';
/** Versions `GET /v1/datasets/:id` lists (newest first); older ones through `/versions`. */
const VERSIONS_SHOWN = 100;
const DEFAULT_ITEMS_LIMIT = 50;
const MAX_ITEMS_LIMIT = 500;

const datasetView = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  latestVersion: z.number().int().describe('0 before the first change'),
  itemCount: z.number().int().describe('Items of the latest version'),
  createdAt: z.string(),
});

const versionView = z.object({
  version: z.number().int(),
  createdAt: z.string(),
  via: z.enum(['responseIds', 'filter', 'queue', 'remove']).describe('How the change was made'),
  added: z.number().int(),
  removed: z.number().int(),
  itemCount: z.number().int(),
  queueId: z.string().nullable(),
  actorKeyId: z.string().nullable(),
});

const itemView = z.object({
  responseId: z.string(),
  addedInVersion: z.number().int(),
  query: z.string(),
  answer: z.string(),
  expectedOutput: z.string().nullable().describe('The correction, else the answer if approved, else null'),
  expectedSource: z.enum(EXPECTED_SOURCES).nullable(),
  expectedEventId: z.string().nullable().describe('The correction or review event it came from'),
  contextDocumentIds: z.array(z.string()),
  model: z.string().nullable(),
  agent: z.string().nullable(),
  experimentId: z.string().nullable(),
  variant: z.string().nullable(),
  score: z.number().nullable().describe('Composite score when added'),
  responseCreatedAt: z.string(),
});

const errorView = z.object({ code: z.string(), message: z.string(), field: z.string().optional() });
const idResult = z.object({ responseId: z.string().nullable(), status: z.enum(['added', 'duplicate', 'rejected']), error: errorView.optional() });

const idParams = z.strictObject({ id: idSchema });
const versionParam = z.coerce.number().int().min(1).optional().describe('A version number (default: the latest)');

const exportQuery = z.strictObject({
  version: versionParam,
  minWeight: z.coerce.number().min(0).optional().describe('Minimum pipeline weight of the frozen event'),
  ...exportRowOptions,
});

const viewOf = (d: Dataset): z.infer<typeof datasetView> => ({ ...d, createdAt: d.createdAt.toISOString() });
const versionViewOf = (v: DatasetVersion): z.infer<typeof versionView> => ({ ...v, createdAt: v.createdAt.toISOString() });
const itemViewOf = (i: DatasetItem): z.infer<typeof itemView> => ({
  responseId: i.responseId,
  addedInVersion: i.addedInVersion,
  query: i.response.query,
  answer: i.response.answer,
  expectedOutput: i.expectedOutput,
  expectedSource: i.expectedSource,
  expectedEventId: i.expectedSource === null ? null : (i.expectedEvent?.id ?? null),
  contextDocumentIds: i.response.contextDocumentIds,
  model: i.response.model,
  agent: i.response.agent,
  experimentId: i.response.experimentId,
  variant: i.response.variant,
  score: i.response.score,
  responseCreatedAt: i.response.createdAt.toISOString(),
});

/** The dataset, or its 404. */
async function found(db: SqlExecutor, workspaceId: string, id: string): Promise<Dataset> {
  const dataset = await getDataset(db, workspaceId, id);
  if (!dataset) throw datasetNotFound(id);
  return dataset;
}

/** The version a read asks for (default the latest; 0 when the dataset has none yet), or its 404. */
function versionOf(dataset: Dataset, asked: number | undefined): number {
  if (asked === undefined) return dataset.latestVersion;
  if (asked > dataset.latestVersion) {
    throw new FeedloopError('FEEDLOOP_ERR_DATASET_VERSION_NOT_FOUND', `version: dataset ${JSON.stringify(dataset.id)} has versions 1 to ${dataset.latestVersion}`, {
      field: 'version',
    });
  }
  return asked;
}

/** The dataset routes. */
export const datasetRoutes: FastifyPluginAsync<AppServices> = async (app, { db }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  // Exports and item pages are heavy reads: on PGlite their pages wait while a request's statement waits.
  const reads = heavyReadClient(db);

  r.post('/v1/datasets', {
    schema: { summary: 'Create a dataset (names are unique per workspace)', tags: ['datasets'], body: datasetInputSchema, response: { 201: datasetView } },
    handler: async (request, reply) => {
      const { workspaceId, keyId } = authOf(request);
      return reply.status(201).send(viewOf(await createDataset(db, workspaceId, request.body, keyId)));
    },
  });

  r.get('/v1/datasets', {
    schema: { summary: "The workspace's datasets by name", tags: ['datasets'], response: { 200: z.object({ datasets: z.array(datasetView) }) } },
    handler: async (request) => ({ datasets: (await listDatasets(db, authOf(request).workspaceId)).map(viewOf) }),
  });

  r.get('/v1/datasets/:id', {
    schema: {
      summary: `A dataset with its versions, newest first (the ${VERSIONS_SHOWN} newest; older ones from /versions?before=)`,
      tags: ['datasets'],
      params: idParams,
      response: { 200: datasetView.extend({ versions: z.array(versionView), nextVersionsBefore: z.number().int().nullable() }) },
    },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const dataset = await found(db, workspaceId, request.params.id);
      const { versions, nextBefore } = await listDatasetVersions(db, workspaceId, dataset.id, { limit: VERSIONS_SHOWN });
      return { ...viewOf(dataset), versions: versions.map(versionViewOf), nextVersionsBefore: nextBefore };
    },
  });

  r.get('/v1/datasets/:id/versions', {
    schema: {
      summary: "A dataset's versions, newest first, a page at a time",
      tags: ['datasets'],
      params: idParams,
      querystring: z.strictObject({
        before: z.coerce.number().int().min(1).optional().describe('Versions older than this one (nextBefore of the previous page)'),
        limit: z.coerce.number().int().min(1).max(1_000).default(VERSIONS_SHOWN),
      }),
      response: { 200: z.object({ versions: z.array(versionView), nextBefore: z.number().int().nullable() }) },
    },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const dataset = await found(db, workspaceId, request.params.id);
      const { before, limit } = request.query;
      const page = await listDatasetVersions(db, workspaceId, dataset.id, { limit, ...(before === undefined ? {} : { before }) });
      return { versions: page.versions.map(versionViewOf), nextBefore: page.nextBefore };
    },
  });

  r.post('/v1/datasets/:id/items', {
    schema: {
      summary: 'Add responses as items (a new version): { responseIds } (≤ 1,000, 207 per id) or { filter } (every response matching now)',
      description: 'filter: the fields of GET /v1/responses (rating, minScore, category, agent, model, experimentId, variant, comment, since, until, scoreName…).',
      tags: ['datasets'],
      params: idParams,
      body: datasetItemsInputSchema,
      response: {
        207: z.object({ version: z.number().int().nullable().describe('The version made; null when nothing was added'), results: z.array(idResult) }),
        200: z.object({
          version: z.number().int().nullable(),
          added: z.number().int(),
          alreadyIn: z.number().int(),
          truncated: z.boolean().describe('More responses matched than one request adds; send it again for the next ones'),
        }),
      },
    },
    handler: async (request, reply) => {
      const { workspaceId, keyId } = authOf(request);
      const dataset = await found(db, workspaceId, request.params.id);
      const body = request.body;
      if ('filter' in body) {
        const filter = parseResponseFilter(body.filter, 'filter.');
        const done = await addFilteredResponses(db, workspaceId, dataset.id, filter, keyId);
        return reply.status(200).send({ version: done.version?.version ?? null, added: done.added, alreadyIn: done.alreadyIn, truncated: done.truncated });
      }
      const checked = body.responseIds.map((raw, i) => {
        const parsed = datasetResponseIdSchema.safeParse(raw);
        if (parsed.success) return { ok: true as const, value: parsed.data };
        const error: ErrorBody = firstIssue(parsed.error, `responseIds[${i}]`);
        return { ok: false as const, error, raw };
      });
      const done = await addResponseIds(db, workspaceId, dataset.id, checked, keyId);
      return reply.status(207).send({ version: done.version?.version ?? null, results: done.results });
    },
  });

  r.delete('/v1/datasets/:id/items/:responseId', {
    schema: {
      summary: 'Remove a response from the dataset (a new version; earlier versions keep it)',
      tags: ['datasets'],
      params: z.strictObject({ id: idSchema, responseId: idSchema }),
      response: { 200: z.object({ version: z.number().int(), removed: z.string() }) },
    },
    handler: async (request) => {
      const { workspaceId, keyId } = authOf(request);
      const { id, responseId } = request.params;
      const change = await changeDatasetItems(db, workspaceId, id, { via: 'remove', add: [], remove: [responseId], queueId: null, actorKeyId: keyId });
      if (!change.version) throw itemNotFound(id, responseId);
      return { version: change.version.version, removed: responseId };
    },
  });

  r.get('/v1/datasets/:id/items', {
    schema: {
      summary: "A version's items (default the latest), a page at a time in normalized-prompt order",
      tags: ['datasets'],
      params: idParams,
      querystring: z.strictObject({
        version: versionParam,
        limit: z.coerce.number().int().min(1).max(MAX_ITEMS_LIMIT).default(DEFAULT_ITEMS_LIMIT),
        cursor: z.string().max(2_048).optional().describe('nextCursor of the previous page'),
      }),
      response: { 200: z.object({ version: z.number().int(), data: z.array(itemView), nextCursor: z.string().nullable() }) },
    },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const dataset = await found(db, workspaceId, request.params.id);
      const { limit, cursor } = request.query;
      const version = versionOf(dataset, request.query.version);
      const after = cursor === undefined ? undefined : decodeItemCursor(cursor);
      if (cursor !== undefined && after === undefined) {
        throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'cursor: not a cursor from this list', { field: 'cursor' });
      }
      const rows = await readVersionItems(reads, workspaceId, dataset.id, version, after, limit + 1);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return { version, data: page.map(itemViewOf), nextCursor: rows.length > limit && last ? encodeItemCursor(last) : null };
    },
  });

  r.get('/v1/datasets/:id/export/:format', {
    // A heavy read: under the per-workspace and per-process cap (http/heavy-reads.ts).
    config: { heavyRead: true },
    schema: {
      summary: "Stream a version's items as training data (JSONL, application/x-ndjson); validate=true answers the validator report",
      description: `format: one of ${EXPORT_FORMATS.join(', ')}, as GET /v1/exports/:format. Rows: docs/datasets.md.`,
      tags: ['datasets'],
      params: z.strictObject({ id: idSchema, format: z.string().max(64) }),
      querystring: exportQuery,
    },
    handler: async (request, reply) => {
      const { format } = request.params;
      if (!isExportFormat(format)) {
        throw new FeedloopError('FEEDLOOP_ERR_EXPORT_UNKNOWN_FORMAT', `format: no export format ${JSON.stringify(format)}; one of ${EXPORT_FORMATS.join(', ')}`, {
          field: 'format',
        });
      }
      const { workspaceId } = authOf(request);
      const dataset = await found(db, workspaceId, request.params.id);
      const q = request.query;
      const options: ExportOptions = {
        ...DEFAULT_EXPORT_OPTIONS,
        style: q.style,
        kind: q.kind,
        dedup: q.dedup === 'true',
        tokenBudget: q.tokenBudget,
        ...(q.system === undefined ? {} : { system: q.system }),
        ...(q.minWeight === undefined ? {} : { minWeight: q.minWeight }),
      };
      const exportRequest = { datasetId: dataset.id, version: versionOf(dataset, q.version), format, options };
      if (q.validate === 'true') return reply.send(await validateDatasetExport(reads, workspaceId, exportRequest, q.maxTokens));
      return reply.type(NDJSON).send(datasetExportJsonl(reads, workspaceId, exportRequest));
    },
  });
};
