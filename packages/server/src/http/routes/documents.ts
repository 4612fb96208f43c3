/**
 * ADR-016 context-document effectiveness: `GET /v1/documents?sort=` ranks the workspace's
 * documents (or, with `by=source`, their sources) by a Bayesian-smoothed score with its 95 %
 * interval; `POST /v1/documents/scores` scores a context builder's candidate list in one call.
 */
import { documentScore, documentSource, LIMITS, type DocumentCounts } from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { readDocuments, type DocumentRow } from '../../store/documents.js';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';

const SORTS = ['effectiveness', 'uses', 'positive', 'negative', 'flagged'] as const;

const listQuery = z.strictObject({
  sort: z.enum(SORTS).default('effectiveness'),
  order: z.enum(['desc', 'asc']).default('desc'),
  by: z.enum(['document', 'source']).default('document'),
  limit: z.coerce.number().int().min(1).max(1_000).default(100),
});

const scoresBody = z.strictObject({
  documentIds: z.array(z.string().min(1).max(2_048).refine((s) => !s.includes('\u0000'), 'must not contain a NUL character (the database refuses it)')).min(1).max(LIMITS.sourcesMaxItems).describe('The candidates, ids or source URLs'),
});

type Scored = DocumentCounts & { effectiveness: number; interval: [number, number] };

function scored<T extends DocumentCounts>(row: T): T & Scored {
  return { ...row, ...documentScore(row) };
}

const empty = (documentId: string): DocumentRow => ({ documentId, uses: 0, positive: 0, negative: 0, neutral: 0, flaggedIrrelevant: 0, flaggedMissing: 0, errorCategoryCounts: {} });

/** Per source: the sum of its documents' counts. */
function bySource(rows: readonly DocumentRow[]): Array<DocumentCounts & { source: string; documents: number }> {
  const out = new Map<string, DocumentCounts & { source: string; documents: number }>();
  for (const r of rows) {
    const source = documentSource(r.documentId);
    const s = out.get(source) ?? { source, documents: 0, uses: 0, positive: 0, negative: 0, flaggedIrrelevant: 0, flaggedMissing: 0 };
    s.documents += 1;
    s.uses += r.uses;
    s.positive += r.positive;
    s.negative += r.negative;
    s.flaggedIrrelevant += r.flaggedIrrelevant;
    s.flaggedMissing += r.flaggedMissing;
    out.set(source, s);
  }
  return [...out.values()];
}

function sortKey(sort: (typeof SORTS)[number], x: Scored): number {
  switch (sort) {
    case 'effectiveness':
      return x.effectiveness;
    case 'uses':
      return x.uses;
    case 'positive':
      return x.positive;
    case 'negative':
      return x.negative;
    case 'flagged':
      return x.flaggedIrrelevant + x.flaggedMissing;
  }
}

/** The document routes. */
export const documentRoutes: FastifyPluginAsync<AppServices> = async (app, { db }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get('/v1/documents', {
    schema: { summary: 'Context documents (or sources) ranked by effectiveness, uses, positive, negative or flags', tags: ['documents'], querystring: listQuery },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const { sort, order, by, limit } = request.query;
      const rows = await readDocuments(db, workspaceId);
      const items: Array<Scored & { documentId?: string; source?: string }> = by === 'source' ? bySource(rows).map(scored) : rows.map(scored);
      const sign = order === 'desc' ? -1 : 1;
      items.sort((a, b) => sign * (sortKey(sort, a) - sortKey(sort, b)) || sign * (a.uses - b.uses) || ((a.documentId ?? a.source ?? '') < (b.documentId ?? b.source ?? '') ? -1 : 1));
      return { sort, order, by, total: items.length, data: items.slice(0, limit) };
    },
  });

  r.post('/v1/documents/scores', {
    schema: { summary: "Scores of a context builder's candidate documents, in the order given", tags: ['documents'], body: scoresBody },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const ids = [...new Set(request.body.documentIds)];
      const found = new Map((await readDocuments(db, workspaceId, ids)).map((d) => [d.documentId, d]));
      return { data: ids.map((id) => ({ ...scored(found.get(id) ?? empty(id)), known: found.has(id) })) };
    },
  });
};

