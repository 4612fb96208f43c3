/**
 * Training-data exports (docs/exports.md):
 *
 * - `GET /v1/exports/:format` streams a format's rows as JSONL (`application/x-ndjson`), or with
 *   `validate=true` answers the validator's report instead of the rows.
 * - `GET /api/rag/feedback/export?format=json|jsonl` serves Phase 4.1's `TrainingExample`s.
 *
 * Both read the workspace a page at a time (store/export-stream.ts): memory stays flat however
 * large the workspace, and a client that reads slowly slows the reads.
 */
import { Readable } from 'node:stream';
import {
  DEFAULT_EXPORT_OPTIONS,
  EXPORT_FORMATS,
  TRAINING_BATCH_KIND_NAMES,
  checkStorable,
  isExportFormat,
  timestampSchema,
  type ExportOptions,
} from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FeedloopError } from '../../errors.js';
import { EXPORT_TRUST, type ExportFilters } from '../../store/export-reads.js';
import { exportJsonl, trainingExampleRows, validateExport } from '../../store/export-stream.js';
import { authOf } from '../auth.js';
import { exportRowOptions } from '../export-options.js';
import { heavyReadClient } from '../../db/sql-client.js';
import type { AppServices } from '../services.js';

const NDJSON = 'application/x-ndjson';
const label = z.string().min(1).max(256);

/** The filters every export takes. */
const filterQuery = {
  from: timestampSchema.optional().describe('Responses created at or after this instant'),
  to: timestampSchema.optional().describe('Responses created before this instant'),
  agent: label.optional(),
  model: label.optional(),
  variant: label.optional(),
  minScore: z.coerce.number().min(-1).max(1).optional().describe('Minimum composite score of the response, -1 to 1'),
  unused: z.enum(TRAINING_BATCH_KIND_NAMES).optional().describe('Leave out the events already in a training batch of this kind'),
  trust: z.enum(EXPORT_TRUST).default('verified').describe('verified (default): only feedback verified for its user (secret key, or a token naming the user); all: public-key feedback too'),
};

const exportQuery = z.strictObject({
  ...filterQuery,
  minWeight: z.coerce.number().min(0).optional().describe("Minimum pipeline weight of an event (in nli: of the sample's weight)"),
  ...exportRowOptions,
});

const ragQuery = z.strictObject({ format: z.enum(['json', 'jsonl']).default('jsonl'), ...filterQuery });

type FilterInput = { [K in keyof typeof filterQuery]?: z.infer<(typeof filterQuery)[K]> };

/** The store's filters from a query. */
function filtersOf(q: FilterInput): ExportFilters {
  return {
    ...(q.from ? { from: new Date(q.from) } : {}),
    ...(q.to ? { to: new Date(q.to) } : {}),
    ...(q.agent ? { agent: q.agent } : {}),
    ...(q.model ? { model: q.model } : {}),
    ...(q.variant ? { variant: q.variant } : {}),
    ...(q.minScore === undefined ? {} : { minScore: q.minScore }),
    ...(q.unused ? { unused: q.unused } : {}),
    ...(q.trust ? { trust: q.trust } : {}),
  };
}

/**
 * Rejects what the database cannot compare (a NUL, a lone surrogate) and a time range that ends
 * before it starts (it would silently export nothing).
 */
function checkFilters(query: object, filters: ExportFilters): void {
  const unstorable = checkStorable(query);
  if (unstorable) throw FeedloopError.from(unstorable);
  if (filters.from && filters.to && filters.to < filters.from) {
    throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'to: must not be before from', { field: 'to' });
  }
}

/** The export routes. */
export const exportRoutes: FastifyPluginAsync<AppServices> = async (app, services) => {
  // Every route here is a heavy read: on PGlite its pages wait while a request's statement waits.
  const db = heavyReadClient(services.db);
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get('/v1/exports/:format', {
    // A heavy read: under the per-workspace and per-process cap (http/heavy-reads.ts).
    config: { heavyRead: true },
    schema: {
      summary: 'Stream training data as JSONL (application/x-ndjson); validate=true answers the validator report',
      description: `format: one of ${EXPORT_FORMATS.join(', ')}. Rows and rules: docs/exports.md.`,
      tags: ['exports'],
      params: z.object({ format: z.string().max(64) }),
      querystring: exportQuery,
    },
    handler: async (request, reply) => {
      const { format } = request.params;
      if (!isExportFormat(format)) {
        throw new FeedloopError('FEEDLOOP_ERR_EXPORT_UNKNOWN_FORMAT', `format: no export format ${JSON.stringify(format)}; one of ${EXPORT_FORMATS.join(', ')}`, {
          field: 'format',
        });
      }
      const q = request.query;
      const filters = filtersOf(q);
      checkFilters(q, filters);
      const options: ExportOptions = {
        ...DEFAULT_EXPORT_OPTIONS,
        style: q.style,
        kind: q.kind,
        dedup: q.dedup === 'true',
        tokenBudget: q.tokenBudget,
        ...(q.system === undefined ? {} : { system: q.system }),
        ...(q.minWeight === undefined ? {} : { minWeight: q.minWeight }),
      };
      const exportRequest = { format, filters, options };
      const { workspaceId } = authOf(request);
      if (q.validate === 'true') return reply.send(await validateExport(db, workspaceId, exportRequest, q.maxTokens));
      return reply.type(NDJSON).send(exportJsonl(db, workspaceId, exportRequest));
    },
  });

  r.get('/api/rag/feedback/export', {
    // A heavy read: under the per-workspace and per-process cap (http/heavy-reads.ts).
    config: { heavyRead: true },
    schema: {
      summary: 'Phase 4.1 RAG seed: training examples (query, positiveAnswer, negativeAnswer?, context, rating) as a JSON array or JSONL',
      description: 'Positively judged answers with their context; each paired, when there is one, with a negative answer to the same normalized query.',
      tags: ['compatibility'],
      querystring: ragQuery,
    },
    handler: async (request, reply) => {
      const q = request.query;
      const filters = filtersOf(q);
      checkFilters(q, filters);
      const batches = trainingExampleRows(db, authOf(request).workspaceId, filters);
      async function* text(): AsyncGenerator<string> {
        // A JSON array is streamed too: '[' then each example with its comma, then ']'.
        let first = true;
        if (q.format === 'json') yield '[';
        for await (const examples of batches) {
          let chunk = '';
          for (const example of examples) {
            const json = JSON.stringify(example);
            chunk += q.format === 'json' ? `${first ? '' : ','}${json}` : `${json}\n`;
            first = false;
          }
          yield chunk;
        }
        if (q.format === 'json') yield ']';
      }
      return reply.type(q.format === 'json' ? 'application/json' : NDJSON).send(Readable.from(text(), { objectMode: false }));
    },
  });
};
