/**
 * Builds the Fastify app: validation and error handling, authentication, metrics, OpenAPI docs
 * and every route plugin, wired to the services it is given.
 */
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import { roundingReplacer } from '@feedloop/core';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { installAuth } from './auth.js';
import { installEdgeChecks } from './edge-checks.js';
import { HeavyReadGate, installHeavyReadGate } from './heavy-reads.js';
import { clientErrorHandler, installErrorHandlers, sendFrameworkError } from './error-handler.js';
import { installPublicLimits } from './public-limits.js';
import { langfuseRoutes } from './routes/langfuse.js';
import { compatRoutes } from './routes/compat.js';
import { otelRoutes } from './routes/otel.js';
import { experimentRoutes } from './routes/experiments.js';
import { exportRoutes } from './routes/exports.js';
import { feedbackRoutes } from './routes/feedback.js';
import { healthRoutes } from './routes/health.js';
import { insightsRoutes } from './routes/insights.js';
import { responseRoutes } from './routes/responses.js';
import { statsRoutes } from './routes/stats.js';
import { statsReportRoutes } from './routes/stats-report.js';
import { keyRoutes } from './routes/keys.js';
import { webhookRoutes } from './routes/webhooks.js';
import { evaluatorRoutes } from './routes/evaluators.js';
import { trainingBatchRoutes } from './routes/training-batches.js';
import { workspaceRoutes } from './routes/workspace.js';
import { alertRoutes } from './routes/alerts.js';
import { privacyRoutes } from './routes/privacy.js';
import { userRoutes } from './routes/users.js';
import { targetRoutes } from './routes/targets.js';
import { documentRoutes } from './routes/documents.js';
import { feedbackTokenRoutes } from './routes/feedback-tokens.js';
import { exampleRoutes } from './routes/examples.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { responseListRoutes } from './routes/response-list.js';
import { alertPreviewRoutes } from './routes/alert-preview.js';
import { mcpRoutes } from './routes/mcp.js';
import { langsmithRoutes } from './routes/langsmith.js';
import { adminRoutes } from './routes/admin.js';
import { scoreConfigRoutes } from './routes/score-configs.js';
import { datasetRoutes } from './routes/datasets.js';
import { reviewQueueRoutes } from './routes/review-queues.js';
import { reviewingRoutes } from './routes/reviewing.js';
import { reviewAgreementRoutes } from './routes/review-agreement.js';
import type { AppServices } from './services.js';
import { installShutdown } from './shutdown.js';
import { zodValidatorCompiler } from './validation.js';

/** Options of the app beyond its services. */
export interface AppOptions {
  /** A pino logger config or `false`; default: JSON logs at the configured level. */
  logger?: boolean | { level: string };
  /** The local admin credential's token (db/local-admin-credential.ts): with it, the `/v1/admin` routes. */
  adminToken?: string;
}

/**
 * Creates the app (not yet listening).
 *
 * @example
 * const app = await buildApp(services); await app.listen({ port: 8787 });
 */
export async function buildApp(services: AppServices, options: AppOptions = {}): Promise<FastifyInstance> {
  const { config, metrics } = services;
  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel },
    // Per-request info lines would cost more than the request itself at thousands a second.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    requestIdHeader: 'x-request-id',
    // Feedback tokens travel in the path (`/v1/feedback/token/:token`) and run to ~1 KB.
    routerOptions: { maxParamLength: 1_536 },
    // Fastify's own answers to these have another shape than the API's errors: see error-handler.ts.
    return503OnClosing: false,
    frameworkErrors: sendFrameworkError,
    clientErrorHandler,
  });
  // The API speaks JSON only; anything else is a 415, not a string handed to the validators.
  app.removeContentTypeParser('text/plain');
  app.setValidatorCompiler(zodValidatorCompiler);
  // Responses are built by our own code from typed values; plain JSON.stringify is the fastest.
  // Every number is rounded on its way out (core/round-figures.ts): no float noise in an answer.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data, roundingReplacer));
  app.setReplySerializer((payload) => JSON.stringify(payload, roundingReplacer));
  installShutdown(app);
  installErrorHandlers(app, metrics);
  installAuth(app, services.keys, options.adminToken);
  // After authentication (hooks run in order): public keys' rate limit and body cap, before the body is read.
  installPublicLimits(app, config, services.ingest);
  // UTF-8, faithful numbers, storable query/params/body and nesting depth, on every route (issue 22).
  installEdgeChecks(app);
  // Exports, user contexts, insights and stats ranges: capped, so cheap requests keep their latency.
  installHeavyReadGate(app, new HeavyReadGate(config.heavyReads));

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });

  await app.register(fastifySwagger, {
    openapi: {
      info: { title: 'feedloop', description: 'Feedback loop for AI products', version: '0.1.0' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });
  // The docs page and its assets are public; every other route needs a key (see auth.ts).
  await app.register(async (docs) => {
    docs.addHook('onRoute', (route) => {
      route.config = { ...route.config, access: 'none' };
    });
    await docs.register(fastifySwaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
  });

  await app.register(healthRoutes, services);
  await app.register(feedbackRoutes, services);
  await app.register(responseRoutes, services);
  await app.register(workspaceRoutes, services);
  await app.register(webhookRoutes, services);
  await app.register(evaluatorRoutes, services);
  await app.register(keyRoutes, services);
  await app.register(compatRoutes, services);
  await app.register(otelRoutes, services);
  await app.register(langfuseRoutes, services);
  await app.register(statsRoutes, services);
  await app.register(alertRoutes, services);
  await app.register(insightsRoutes, services);
  await app.register(experimentRoutes, services);
  await app.register(statsReportRoutes, services);
  await app.register(trainingBatchRoutes, services);
  await app.register(exportRoutes, services);
  await app.register(privacyRoutes, services);
  await app.register(userRoutes, services);
  await app.register(targetRoutes, services);
  await app.register(documentRoutes, services);
  await app.register(feedbackTokenRoutes, services);
  await app.register(exampleRoutes, services);
  await app.register(dashboardRoutes, services);
  await app.register(responseListRoutes, services);
  await app.register(alertPreviewRoutes, services);
  await app.register(scoreConfigRoutes, services);
  await app.register(datasetRoutes, services);
  await app.register(reviewQueueRoutes, services);
  await app.register(reviewingRoutes, services);
  await app.register(reviewAgreementRoutes, services);
  await app.register(mcpRoutes, services);
  // The LangSmith SDKs' API (issue 26 §3), with its own auth (x-api-key) and error shape ({ detail }).
  await app.register(async (scope) => scope.register(langsmithRoutes, services), { prefix: '/langsmith' });
  if (options.adminToken !== undefined) await app.register(adminRoutes, services);
  return app;
}
