/**
 * The Langfuse drop-in (issue 26 §2, docs/compat.md): Langfuse's SDKs pointed at feedloop
 * (`baseUrl`, a workspace's public and secret keys) register each trace as a response and each
 * score as feedback. Every route here takes Langfuse's credentials and answers errors in
 * Langfuse's shape (`langfuse-access.ts`); CORS is open, as on feedloop's public-key routes.
 */
import { createRequire } from 'node:module';
import { firstIssue, langfuseBatchSchema, langfuseConfigInput, langfuseConfigView, langfuseScoreConfigSchema, langfuseScoreView, scoreConfigInputSchema } from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import { FeedloopError } from '../../errors.js';
import { feedbackIdEvent, markFeedbackIdDeleted } from '../../store/compat-feedback-ids.js';
import { createScoreConfig, getScoreConfig, listScoreConfigs, type StoredScoreConfig } from '../../store/score-configs.js';
import { findWorkspace } from '../../store/workspaces.js';
import { authOf } from '../auth.js';
import { allowBrowsers, langfuseRequestHook, sendLangfuseError } from '../langfuse-access.js';
import { ingestLangfuseBatch } from '../langfuse-ingestion.js';
import { LANGFUSE, writeLangfuseScores } from '../langfuse-scores.js';
import { chargeEvents } from '../public-limits.js';
import type { AppServices } from '../services.js';

const { version: VERSION } = createRequire(import.meta.url)('../../../package.json') as { version: string };

/** Langfuse's routes, with their own auth hook and error shape (`access: 'none'` to feedloop's hook). */
const ROUTE = { config: { access: 'none' as const }, schema: { tags: ['langfuse'] } };

export const langfuseRoutes: FastifyPluginAsync<AppServices> = async (app, { db, ingest, keys, config }) => {
  app.setErrorHandler((err, request, reply) => sendLangfuseError(err, request, reply));
  // Scores (and the ingestion batch's score-create) take the browser's public key; the rest a secret key.
  const authenticate = langfuseRequestHook(keys, ingest, config, { publicKeys: false });
  const authenticateScores = langfuseRequestHook(keys, ingest, config, { publicKeys: true });

  // Preflight of the browser client (LangfuseWeb): no credential, only the CORS headers.
  app.options('/api/public/*', { config: { access: 'none' }, schema: { hide: true } }, async (_request, reply) => {
    allowBrowsers(reply);
    return reply.status(204).send();
  });

  app.get('/api/public/health', { ...ROUTE, schema: { ...ROUTE.schema, summary: 'Langfuse: health (no key)' } }, async (_request, reply) => {
    allowBrowsers(reply);
    return { status: 'OK', version: VERSION };
  });

  app.get('/api/public/projects', { ...ROUTE, onRequest: authenticate, schema: { ...ROUTE.schema, summary: "Langfuse: the key's project (the SDKs' auth check): the workspace" } }, async (request) => {
    const { workspaceId } = authOf(request);
    const workspace = await findWorkspace(db, workspaceId);
    return { data: [{ id: workspaceId, name: workspace?.name ?? workspaceId, metadata: {} }] };
  });

  app.post(
    '/api/public/ingestion',
    {
      ...ROUTE,
      onRequest: authenticateScores,
      bodyLimit: config.batchBodyLimitBytes,
      schema: { ...ROUTE.schema, summary: 'Langfuse: a batch of trace, observation and score events (207 per event)' },
    },
    async (request, reply) => {
      const parsed = langfuseBatchSchema.safeParse(request.body);
      if (!parsed.success) {
        return reply.status(400).send({
          message: 'Invalid request data: the body is { batch: [{ id, type, timestamp, body }], metadata? }',
          error: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD',
          field: 'batch',
        });
      }
      const auth = authOf(request);
      // A public key pays for its scores (the hook charged 1), and sends few at once.
      await chargeEvents(request, ingest, config, Math.max(1, parsed.data.batch.length), { batch: true });
      return reply.status(207).send(await ingestLangfuseBatch(db, ingest, auth, parsed.data.batch));
    },
  );

  app.post('/api/public/scores', { ...ROUTE, onRequest: authenticateScores, schema: { ...ROUTE.schema, summary: 'Langfuse: create (or replace, by id) a score' } }, async (request) => {
    const [written] = await writeLangfuseScores(db, ingest, authOf(request), [request.body]);
    if (!written?.ok) {
      const error = written?.error ?? { code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD' as const, message: 'the score is missing' };
      throw new FeedloopError(error.code, error.message, error.field === undefined ? {} : { field: error.field });
    }
    return { id: written.id };
  });

  for (const path of ['/api/public/scores/:id', '/api/public/v2/scores/:id']) {
    app.get<{ Params: { id: string } }>(path, { ...ROUTE, onRequest: authenticate, schema: { ...ROUTE.schema, summary: 'Langfuse: a score by id' } }, async (request) => {
        const found = await feedbackIdEvent(db, authOf(request).workspaceId, LANGFUSE, request.params.id);
      if (!found || found.deleted) throw new FeedloopError('FEEDLOOP_ERR_NOT_FOUND', `no score ${JSON.stringify(request.params.id)} in this workspace`, { field: 'id' });
      const e = found.event;
      return langfuseScoreView(found.externalId, {
        responseId: e.responseId,
        type: e.type,
        payload: e.payload,
        metadata: e.metadata,
        occurredAt: e.occurredAt.toISOString(),
        updatedAt: found.updatedAt.toISOString(),
      });
    });
  }

  app.delete<{ Params: { id: string } }>('/api/public/scores/:id', { ...ROUTE, onRequest: authenticate, schema: { ...ROUTE.schema, summary: 'Langfuse: delete a score (its feedback is retracted)' } }, async (request, reply) => {
    const auth = authOf(request);
    const found = await feedbackIdEvent(db, auth.workspaceId, LANGFUSE, request.params.id);
    if (!found || found.deleted) throw new FeedloopError('FEEDLOOP_ERR_NOT_FOUND', `no score ${JSON.stringify(request.params.id)} in this workspace`, { field: 'id' });
    await ingest.retractFeedback(auth, found.event.id, `deleted through Langfuse's API (score ${request.params.id})`);
    await markFeedbackIdDeleted(db, auth.workspaceId, LANGFUSE, request.params.id);
    return reply.status(204).send();
  });

  const configView = (c: StoredScoreConfig, workspaceId: string) => langfuseConfigView(c, workspaceId, c.createdAt.toISOString(), c.updatedAt.toISOString());

  app.post('/api/public/score-configs', { ...ROUTE, onRequest: authenticate, schema: { ...ROUTE.schema, summary: "Langfuse: create a score config (feedloop's /v1/score-configs)" } }, async (request) => {
    const parsed = langfuseScoreConfigSchema.safeParse(request.body);
    if (!parsed.success) throw FeedloopError.from(firstIssue(parsed.error));
    const input = scoreConfigInputSchema.safeParse(langfuseConfigInput(parsed.data));
    if (!input.success) throw FeedloopError.from(firstIssue(input.error));
    const { workspaceId } = authOf(request);
    return configView(await createScoreConfig(db, workspaceId, input.data), workspaceId);
  });

  app.get<{ Querystring: { page?: string; limit?: string } }>(
    '/api/public/score-configs',
    { ...ROUTE, onRequest: authenticate, schema: { ...ROUTE.schema, summary: "Langfuse: the workspace's score configs, archived ones included" } },
    async (request) => {
        const { workspaceId } = authOf(request);
      const all = await listScoreConfigs(db, workspaceId, { archived: true });
      const limit = Math.min(Math.max(Number(request.query.limit) || 50, 1), 100);
      const page = Math.max(Number(request.query.page) || 1, 1);
      return {
        data: all.slice((page - 1) * limit, page * limit).map((c) => configView(c, workspaceId)),
        meta: { page, limit, totalItems: all.length, totalPages: Math.ceil(all.length / limit) },
      };
    },
  );

  app.get<{ Params: { id: string } }>('/api/public/score-configs/:id', { ...ROUTE, onRequest: authenticate, schema: { ...ROUTE.schema, summary: 'Langfuse: a score config' } }, async (request) => {
    const { workspaceId } = authOf(request);
    const found = await getScoreConfig(db, workspaceId, request.params.id);
    if (!found) throw new FeedloopError('FEEDLOOP_ERR_SCORE_CONFIG_NOT_FOUND', `no score config ${JSON.stringify(request.params.id)} in this workspace`, { field: 'id' });
    return configView(found, workspaceId);
  });
};
