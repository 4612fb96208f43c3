/**
 * The LangSmith drop-in (issue 26 §3), mounted under `/langsmith`: the SDKs (`langsmith` for JS,
 * the Python `langsmith`) pointed at `<feedloop>/langsmith` with a workspace secret key trace
 * into responses and give feedback as feedloop events, with no other change. This file: the
 * scope (auth, error shape), `GET /info` and the run routes; feedback and its presigned tokens in
 * langsmith-feedback.ts and langsmith-tokens.ts. See docs/compat.md "LangSmith".
 */
import { assembleLangSmithMultipart, idSchema } from '@feedloop/core';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FeedloopError } from '../../errors.js';
import { ingestLangSmithRuns, type RefusedRun } from '../../ingest/langsmith-runs.js';
import { authOf } from '../auth.js';
import { installLangSmithScope } from '../langsmith-scope.js';
import { readMultipartParts } from '../multipart-parts.js';
import type { AppServices } from '../services.js';
import { langsmithFeedbackRoutes, submitMultipartFeedback } from './langsmith-feedback.js';
import { langsmithTokenRoutes } from './langsmith-tokens.js';

const TAGS = ['langsmith'];
/** The version `/info` reports: feedloop's drop-in, not a LangSmith server's. */
const INFO_VERSION = '0.1.0-feedloop';
/** Runs per batch request the SDKs are told to send at most (`size_limit`). */
const BATCH_SIZE_LIMIT = 100;

const run = z.record(z.string(), z.unknown()).describe('A LangSmith run (RunCreate / RunUpdate)');

/** Answers a runs request: 202 when every run was taken, 207 listing the ones refused (the others are stored). */
function answerRuns(reply: FastifyReply, refused: RefusedRun[], taken: number): FastifyReply {
  if (refused.length === 0) return reply.status(202).send({});
  const first = refused[0]?.error;
  return reply.status(207).send({
    detail: `${refused.length} of ${taken + refused.length} runs refused${first ? `; first: ${first.message}` : ''}`,
    accepted: taken,
    errors: refused.map((r) => ({ kind: r.kind, index: r.index, ...(r.id !== undefined ? { id: r.id } : {}), error: r.error })),
  });
}

/** A single run's refusal, its field named within the run (`inputs`, not `post[0].inputs`). */
function singleRunError(r: RefusedRun): FeedloopError {
  const strip = (text: string): string => text.replace(/^(post|patch)\[0\]\.?/, '');
  const field = r.error.field === undefined ? undefined : strip(r.error.field) || 'body';
  return FeedloopError.from({ ...r.error, message: strip(r.error.message), ...(field === undefined ? {} : { field }) });
}

const runRoutes: FastifyPluginAsync<AppServices> = async (app, services) => {
  const { db, ingest, config } = services;
  const r = app.withTypeProvider<ZodTypeProvider>();

  // The Python SDK's batches; parsed here only, so no other route takes multipart.
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, (request, body, done) => {
    readMultipartParts(request.headers, body as Buffer).then(
      (parts) => done(null, parts),
      (err: Error) => done(err),
    );
  });

  r.get('/info', {
    schema: { summary: 'LangSmith server info: plain JSON batches (no multipart), no instance flags', tags: TAGS },
    handler: async () => ({
      version: INFO_VERSION,
      license_expiration_time: null,
      batch_ingest_config: {
        use_multipart_endpoint: false,
        scale_up_qsize_trigger: 1_000,
        scale_up_nthreads_limit: 16,
        scale_down_nempty_trigger: 4,
        size_limit: BATCH_SIZE_LIMIT,
        size_limit_bytes: config.bodyLimitBytes,
      },
      instance_flags: {},
    }),
  });

  r.post('/runs', {
    schema: { summary: 'Create (or update) one run: a root run is a response', tags: TAGS, body: run },
    handler: async (request, reply) => {
      const refused = await ingestLangSmithRuns(db, ingest, authOf(request), [request.body], []);
      if (refused[0]) throw singleRunError(refused[0]);
      return reply.status(202).send({});
    },
  });

  r.patch('/runs/:id', {
    schema: { summary: "Update one run (its outputs, end time, …): a root run's update updates its response", tags: TAGS, params: z.object({ id: idSchema }), body: run },
    handler: async (request, reply) => {
      const refused = await ingestLangSmithRuns(db, ingest, authOf(request), [], [{ ...request.body, id: request.params.id }]);
      if (refused[0]) throw singleRunError(refused[0]);
      return reply.status(202).send({});
    },
  });

  r.post('/runs/batch', {
    schema: {
      summary: 'Create and update runs in one request (creates first); each run refused alone (207)',
      tags: TAGS,
      body: z.looseObject({ post: z.array(z.unknown()).nullish(), patch: z.array(z.unknown()).nullish() }),
    },
    handler: async (request, reply) => {
      const posts = request.body.post ?? [];
      const patches = request.body.patch ?? [];
      const refused = await ingestLangSmithRuns(db, ingest, authOf(request), posts, patches);
      return answerRuns(reply, refused, posts.length + patches.length - refused.length);
    },
  });

  r.post('/runs/multipart', {
    schema: {
      summary: "The Python SDK's multipart batch: post.<id>, patch.<id> (and their fields), feedback.<id>; attachments skipped",
      tags: TAGS,
      consumes: ['multipart/form-data'],
    },
    handler: async (request, reply) => {
      if (!Array.isArray(request.body)) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_UNSUPPORTED_MEDIA_TYPE', 'send the body as multipart/form-data');
      const auth = authOf(request);
      const body = assembleLangSmithMultipart(request.body as Parameters<typeof assembleLangSmithMultipart>[0]);
      const refused: RefusedRun[] = body.refused.map((p, index) => ({ kind: p.part.split('.')[0] ?? 'part', index, id: p.part, error: p.error }));
      refused.push(...(await ingestLangSmithRuns(db, ingest, auth, body.post, body.patch)));
      // Feedback after the runs: it may name a run of this very batch.
      refused.push(...(await submitMultipartFeedback({ db, ingest }, auth, body.feedback)));
      return answerRuns(reply, refused, body.post.length + body.patch.length + body.feedback.length - refused.length);
    },
  });
};

/**
 * The `/langsmith` routes, registered by the app with their scope.
 *
 * @example
 * await app.register(async (scope) => scope.register(langsmithRoutes, services), { prefix: '/langsmith' });
 */
export const langsmithRoutes: FastifyPluginAsync<AppServices> = async (app, services) => {
  installLangSmithScope(app, services.keys);
  await app.register(runRoutes, services);
  await app.register(langsmithFeedbackRoutes, services);
  await app.register(langsmithTokenRoutes, services);
};
