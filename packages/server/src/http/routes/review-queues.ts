/**
 * `/v1/review-queues` (issue 27; docs/review.md): queues and their items. Creating, changing and
 * filling a queue takes a secret key; a reviewer key lists the queues it is a member of and reads
 * one of them (with its progress). Reviewing itself is in reviewing.ts.
 */
import { idSchema, reviewQueueInputSchema, reviewQueuePatchSchema, type QueueRule } from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { SqlExecutor } from '../../db/sql-client.js';
import { FeedloopError } from '../../errors.js';
import type { AuthContext } from '../../store/auth-context.js';
import { addReviewItems, experimentPairs, knownResponses, listReviewItems, queueProgress, type ResponsePair } from '../../store/review-items.js';
import { createReviewQueue, listReviewQueues, requireReviewQueue, updateReviewQueue, type ReviewQueue } from '../../store/review-queues.js';
import { listResponses } from '../../store/response-list.js';
import { parseResponseFilter } from '../../store/response-list-filter.js';
import { assertDatasetField } from '../../store/datasets.js';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';

/** Response ids or pairs one add names at most. */
const MAX_ADD = 1_000;
/** Responses a `{ filter }` add takes at most (the newest matching first); `truncated` says when more match. */
export const MAX_FILTER_ADD = 10_000;
const FILTER_PAGE = 200;

const rubricView = z.object({
  verdict: z.boolean(),
  issues: z.boolean(),
  qualityScores: z.boolean(),
  correction: z.boolean(),
  comment: z.boolean(),
  scoreConfigs: z.array(z.string()).optional(),
});

const progressView = z.object({ total: z.number().int(), pending: z.number().int(), inProgress: z.number().int(), done: z.number().int() });

export const queueView = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(['single', 'pairwise']),
  instructions: z.string(),
  rubric: rubricView,
  reviewersPerItem: z.number().int(),
  reservationSeconds: z.number().int(),
  members: z.array(z.string()),
  rules: z.array(z.object({ filter: z.record(z.string(), z.unknown()), sample: z.number() })),
  datasetId: z.string().nullable(),
  progress: progressView,
  createdAt: z.string(),
  updatedAt: z.string(),
});

const idParams = z.strictObject({ id: z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, 'not a review queue id') });

const addBody = z.strictObject({
  responseIds: z.array(idSchema).min(1).max(MAX_ADD).optional().describe('Single queues: responses to add (207 per id)'),
  filter: z.record(z.string(), z.unknown()).optional().describe("Single queues: every response matching the response list's filters now"),
  pairs: z.array(z.tuple([idSchema, idSchema])).min(1).max(MAX_ADD).optional().describe('Pairwise queues: [a, b] pairs of responses to the same query (207 per pair)'),
  experimentId: idSchema.optional().describe("Pairwise queues: with variants, the two variants' responses to the same query text"),
  variants: z.tuple([idSchema, idSchema]).optional(),
});

const itemOutcome = z.object({
  index: z.number().int(),
  status: z.enum(['added', 'exists', 'rejected']),
  error: z.object({ code: z.string(), message: z.string(), field: z.string().optional() }).optional(),
});

const bulkOutcome = z.object({
  matched: z.number().int().describe('Responses (or pairs) found'),
  added: z.number().int(),
  existing: z.number().int().describe('Already in the queue'),
  truncated: z.boolean().describe(`More matched than one add takes (${MAX_FILTER_ADD}); add again to take the rest`),
});

const itemsQuery = z.strictObject({
  state: z.enum(['pending', 'in_progress', 'done']).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(64).optional().describe('nextCursor of the previous page'),
});

const itemView = z.object({
  id: z.string(),
  responseId: z.string(),
  responseBId: z.string().nullable(),
  state: z.enum(['pending', 'in_progress', 'done']),
  reviews: z.number().int(),
  reserved: z.number().int(),
  addedBy: z.enum(['hand', 'rule']),
  createdAt: z.string(),
});

/** Checks each rule's filter with the response list's own parser (`rules[i].filter.<field>` on error). */
function checkRules(rules: readonly QueueRule[] | undefined): void {
  rules?.forEach((rule, i) => parseResponseFilter(rule.filter, `rules[${i}].filter.`));
}

/** A queue as the API shows it, with its progress. */
export async function viewOfQueue(db: SqlExecutor, workspaceId: string, q: ReviewQueue): Promise<z.infer<typeof queueView>> {
  return { ...q, progress: await queueProgress(db, workspaceId, q.id), createdAt: q.createdAt.toISOString(), updatedAt: q.updatedAt.toISOString() };
}

/**
 * A queue the caller may read: any of the workspace's for a secret key, one it is a member of for
 * a reviewer key.
 *
 * @throws FeedloopError `FEEDLOOP_ERR_REVIEW_QUEUE_NOT_FOUND`, `FEEDLOOP_ERR_REVIEWER_NOT_MEMBER`.
 */
export async function readableQueue(db: SqlExecutor, auth: AuthContext, id: string): Promise<ReviewQueue> {
  const queue = await requireReviewQueue(db, auth.workspaceId, id);
  if (auth.kind === 'reviewer' && !queue.members.includes(auth.keyId)) {
    throw new FeedloopError('FEEDLOOP_ERR_REVIEWER_NOT_MEMBER', `id: this reviewer is not a member of review queue ${id}`, { field: 'id' });
  }
  return queue;
}

/** Every response matching a filter now, newest first, at most {@link MAX_FILTER_ADD}, read a page at a time. */
async function matchingResponses(db: SqlExecutor, workspaceId: string, filter: unknown): Promise<{ ids: string[]; truncated: boolean }> {
  const parsed = parseResponseFilter(filter, 'filter.');
  const ids: string[] = [];
  let cursor: string | null = null;
  let after: { createdAt: Date; id: string } | undefined;
  do {
    const page = await listResponses(db, workspaceId, parsed, after, Math.min(FILTER_PAGE, MAX_FILTER_ADD - ids.length + 1));
    for (const r of page.data) ids.push(r.id);
    cursor = page.nextCursor;
    const last = page.data[page.data.length - 1];
    after = last ? { createdAt: new Date(last.createdAt), id: last.id } : undefined;
  } while (cursor !== null && ids.length <= MAX_FILTER_ADD);
  return { ids: ids.slice(0, MAX_FILTER_ADD), truncated: ids.length > MAX_FILTER_ADD || cursor !== null };
}

const rejected = (index: number, message: string, field: string): z.infer<typeof itemOutcome> => ({
  index,
  status: 'rejected',
  error: { code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', message: `${field}: ${message}`, field },
});

/** The review queue routes. */
export const reviewQueueRoutes: FastifyPluginAsync<AppServices> = async (app, { db }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post('/v1/review-queues', {
    schema: { summary: 'Create a review queue', tags: ['review'], body: reviewQueueInputSchema, response: { 201: queueView } },
    handler: async (request, reply) => {
      const auth = authOf(request);
      checkRules(request.body.rules);
      await assertDatasetField(db, auth.workspaceId, request.body.datasetId);
      const queue = await createReviewQueue(db, auth.workspaceId, request.body, auth.keyId);
      return reply.status(201).send(await viewOfQueue(db, auth.workspaceId, queue));
    },
  });

  r.get('/v1/review-queues', {
    config: { access: 'reviewer' },
    schema: { summary: "The workspace's review queues by name (a reviewer key: the ones it is a member of), with progress", tags: ['review'], response: { 200: z.object({ queues: z.array(queueView) }) } },
    handler: async (request) => {
      const auth = authOf(request);
      const queues = await listReviewQueues(db, auth.workspaceId, auth.kind === 'reviewer' ? { memberKeyId: auth.keyId } : {});
      return { queues: await Promise.all(queues.map((q) => viewOfQueue(db, auth.workspaceId, q))) };
    },
  });

  r.get('/v1/review-queues/:id', {
    config: { access: 'reviewer' },
    schema: { summary: 'One review queue with its progress', tags: ['review'], params: idParams, response: { 200: queueView } },
    handler: async (request) => {
      const auth = authOf(request);
      return viewOfQueue(db, auth.workspaceId, await readableQueue(db, auth, request.params.id));
    },
  });

  r.patch('/v1/review-queues/:id', {
    schema: { summary: "Change a review queue's fields (not its kind)", tags: ['review'], params: idParams, body: reviewQueuePatchSchema, response: { 200: queueView } },
    handler: async (request) => {
      const auth = authOf(request);
      checkRules(request.body.rules);
      await assertDatasetField(db, auth.workspaceId, request.body.datasetId);
      const queue = await updateReviewQueue(db, auth.workspaceId, request.params.id, request.body, auth.keyId);
      return viewOfQueue(db, auth.workspaceId, queue);
    },
  });

  r.post('/v1/review-queues/:id/items', {
    schema: {
      summary: 'Add items: { responseIds } or { filter } (single queues), { pairs } or { experimentId, variants } (pairwise queues)',
      tags: ['review'],
      params: idParams,
      body: addBody,
      response: { 200: bulkOutcome, 207: z.object({ results: z.array(itemOutcome) }) },
    },
    handler: async (request, reply) => {
      const { workspaceId } = authOf(request);
      const queue = await requireReviewQueue(db, workspaceId, request.params.id);
      const body = request.body;
      const given = (['responseIds', 'filter', 'pairs', 'experimentId'] as const).filter((k) => body[k] !== undefined);
      if (given.length !== 1) {
        throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'responseIds: give exactly one of responseIds, filter, pairs, or experimentId with variants', { field: given[1] ?? 'responseIds' });
      }
      const mode = given[0];
      const wrongKind = (field: string, kind: string) =>
        new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', `${field}: review queue ${queue.id} is ${queue.kind}; ${field} fills a ${kind} queue`, { field });
      if (queue.kind === 'single' && (mode === 'pairs' || mode === 'experimentId')) throw wrongKind(mode, 'pairwise');
      if (queue.kind === 'pairwise' && (mode === 'responseIds' || mode === 'filter')) throw wrongKind(mode, 'single');

      if (body.responseIds !== undefined) {
        const known = await knownResponses(db, workspaceId, body.responseIds);
        const ok = body.responseIds.flatMap((id, index) => (known.has(id) ? [{ index, item: [id] as const }] : []));
        const statuses = await addReviewItems(db, workspaceId, queue.id, ok.map((o) => o.item), 'hand');
        const byIndex = new Map(ok.map((o, i) => [o.index, statuses[i]]));
        const results = body.responseIds.map((id, index): z.infer<typeof itemOutcome> => {
          const status = byIndex.get(index);
          const field = `responseIds[${index}]`;
          if (status === undefined) return { index, status: 'rejected', error: { code: 'FEEDLOOP_ERR_RESPONSE_NOT_FOUND', message: `${field}: no response ${JSON.stringify(id)} in this workspace`, field } };
          return { index, status };
        });
        return reply.status(207).send({ results });
      }

      if (body.pairs !== undefined) {
        const known = await knownResponses(db, workspaceId, body.pairs.flat());
        const outcomes: Array<z.infer<typeof itemOutcome> | undefined> = [];
        const ok: Array<{ index: number; pair: ResponsePair }> = [];
        body.pairs.forEach(([a, b], index) => {
          const field = `pairs[${index}]`;
          const missing = [a, b].find((id) => !known.has(id));
          if (missing !== undefined) outcomes[index] = { index, status: 'rejected', error: { code: 'FEEDLOOP_ERR_RESPONSE_NOT_FOUND', message: `${field}: no response ${JSON.stringify(missing)} in this workspace`, field } };
          else if (a === b) outcomes[index] = rejected(index, 'the two responses must differ', field);
          // Two answers to one query: comparing answers to different questions measures the questions.
          else if (known.get(a)?.trim() !== known.get(b)?.trim()) outcomes[index] = rejected(index, 'the two responses answer different queries', field);
          else ok.push({ index, pair: [a, b] });
        });
        const statuses = await addReviewItems(db, workspaceId, queue.id, ok.map((o) => o.pair), 'hand');
        ok.forEach((o, i) => {
          outcomes[o.index] = { index: o.index, status: statuses[i] ?? 'exists' };
        });
        return reply.status(207).send({ results: outcomes.map((o, index) => o ?? rejected(index, 'not judged', `pairs[${index}]`)) });
      }

      if (body.experimentId !== undefined) {
        if (body.variants === undefined) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'variants: experimentId needs the two variants to compare', { field: 'variants' });
        const [x, y] = body.variants;
        if (x === y) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'variants: the two variants must differ', { field: 'variants' });
        const pairs = await experimentPairs(db, workspaceId, body.experimentId, x, y, MAX_FILTER_ADD + 1);
        const taken = pairs.slice(0, MAX_FILTER_ADD);
        const statuses = await addReviewItems(db, workspaceId, queue.id, taken, 'hand');
        const added = statuses.filter((s) => s === 'added').length;
        return { matched: taken.length, added, existing: taken.length - added, truncated: pairs.length > MAX_FILTER_ADD };
      }

      const { ids, truncated } = await matchingResponses(db, workspaceId, body.filter);
      const statuses = await addReviewItems(db, workspaceId, queue.id, ids.map((id) => [id] as const), 'hand');
      const added = statuses.filter((s) => s === 'added').length;
      return { matched: ids.length, added, existing: ids.length - added, truncated };
    },
  });

  r.get('/v1/review-queues/:id/items', {
    schema: {
      summary: "A review queue's items in the order they came, with their state, and the queue's progress",
      tags: ['review'],
      params: idParams,
      querystring: itemsQuery,
      response: { 200: z.object({ data: z.array(itemView), nextCursor: z.string().nullable(), progress: progressView }) },
    },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const queue = await requireReviewQueue(db, workspaceId, request.params.id);
      const { state, limit, cursor } = request.query;
      const page = await listReviewItems(db, workspaceId, queue.id, { limit, ...(cursor === undefined ? {} : { after: cursor }), ...(state === undefined ? {} : { state }) });
      return { ...page, progress: await queueProgress(db, workspaceId, queue.id) };
    },
  });
};
