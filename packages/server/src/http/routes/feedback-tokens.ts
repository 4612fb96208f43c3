/**
 * Signed feedback tokens (issue 13): a backend with a secret key makes a token for one response
 * (`POST /v1/responses/:id/feedback-tokens`), hands it to the page, and the browser submits with
 * the token alone (`POST /v1/feedback/token/:token`, CORS open): no key in the page. Rotating the
 * workspace's token secret revokes every token.
 */
import { createHash } from 'node:crypto';
import { FEEDBACK_EVENT_TYPES, idSchema, validateFeedbackEvent, type FeedbackEvent, type FeedbackEventType } from '@feedloop/core';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FeedloopError } from '../../errors.js';
import { readFeedbackToken, signFeedbackToken, verifyFeedbackToken, type FeedbackTokenClaims } from '../../ingest/feedback-token.js';
import { responseExists, rotateTokenSecret, tokenSecretOf, tokenWorkspace } from '../../store/feedback-token-secrets.js';
import { getResponse } from '../../store/responses.js';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';
import { withValidator } from '../validation.js';

/** A token's life by default: the Phase 4.1 "recent query" rule (24 h). */
export const DEFAULT_TOKEN_TTL_SECONDS = 86_400;
/** The longest life a token may be given (30 days). */
export const MAX_TOKEN_TTL_SECONDS = 30 * 86_400;

const createBody = z
  .strictObject({
    userId: idSchema.optional().describe('The user the token speaks for: their votes count as verified'),
    types: z
      .array(z.enum(FEEDBACK_EVENT_TYPES as [FeedbackEventType, ...FeedbackEventType[]]))
      .min(1)
      .max(FEEDBACK_EVENT_TYPES.length)
      .optional()
      .describe('Event types the token allows; all when absent'),
    ttlSeconds: z.number().int().min(1).max(MAX_TOKEN_TTL_SECONDS).optional().describe('Life of the token, default 86400 (24 h)'),
  })
  .default({});

const tokenBodyCheck = (data: unknown): { ok: true; value: unknown } | { ok: false; error: { code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD'; message: string } } =>
  data !== null && typeof data === 'object' && !Array.isArray(data)
    ? { ok: true, value: data }
    : { ok: false, error: { code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', message: 'an event must be a JSON object' } };

/** Any page may submit with a token: the token is the whole authority, so CORS is open. */
export function allowAnyOrigin(reply: FastifyReply): void {
  reply.header('access-control-allow-origin', '*');
  reply.header('access-control-allow-methods', 'GET, POST, OPTIONS');
  reply.header('access-control-allow-headers', 'content-type');
  reply.header('access-control-expose-headers', 'retry-after');
  reply.header('access-control-max-age', '86400');
}

const scope = (message: string, field: string): FeedloopError => new FeedloopError('FEEDLOOP_ERR_TOKEN_SCOPE', message, { field });

/**
 * Checks an event against a token's claims and fills in what the token implies (its response, its
 * user).
 *
 * @throws FeedloopError `FEEDLOOP_ERR_TOKEN_SCOPE` for another response, type or user.
 */
function withinScope(input: Record<string, unknown>, claims: FeedbackTokenClaims): Record<string, unknown> {
  if (input.responseId !== undefined && input.responseId !== claims.r) {
    throw scope(`responseId: the token is for response ${JSON.stringify(claims.r)}`, 'responseId');
  }
  if (claims.t && typeof input.type === 'string' && !claims.t.includes(input.type as FeedbackEventType)) {
    throw scope(`type: the token allows ${claims.t.join(', ')} only`, 'type');
  }
  if (claims.u !== undefined && input.userId !== undefined && input.userId !== claims.u) {
    throw scope(`userId: the token speaks for user ${JSON.stringify(claims.u)}`, 'userId');
  }
  return { ...input, responseId: claims.r, ...(claims.u !== undefined ? { userId: claims.u } : {}) };
}

/** The feedback-token routes. */
export const feedbackTokenRoutes: FastifyPluginAsync<AppServices> = async (app, { db, ingest, config }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post('/v1/responses/:id/feedback-tokens', {
    schema: {
      summary: 'Make a signed feedback token for one response (for a browser: no key in the page)',
      tags: ['feedback tokens'],
      params: z.object({ id: idSchema }),
      body: createBody,
      response: { 201: z.object({ token: z.string(), url: z.string(), expiresAt: z.string() }) },
    },
    handler: async (request, reply) => {
      const { workspaceId } = authOf(request);
      const { id } = request.params;
      const body = request.body ?? {};
      if (!(await responseExists(db, workspaceId, id))) {
        throw new FeedloopError('FEEDLOOP_ERR_RESPONSE_NOT_FOUND', `no response ${JSON.stringify(id)} in this workspace`, { field: 'id' });
      }
      const secret = await tokenSecretOf(db, workspaceId);
      const exp = Math.floor(Date.now() / 1000) + (body.ttlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS);
      const claims: FeedbackTokenClaims = {
        ws: workspaceId,
        r: id,
        ...(body.userId !== undefined ? { u: body.userId } : {}),
        ...(body.types !== undefined ? { t: [...new Set(body.types)] } : {}),
        exp,
      };
      const token = signFeedbackToken(secret, claims);
      return reply.status(201).send({ token, url: `${config.publicUrl}/v1/feedback/token/${token}`, expiresAt: new Date(exp * 1000).toISOString() });
    },
  });

  r.post('/v1/workspace/feedback-token-secret/rotate', {
    schema: { summary: 'Replace the workspace feedback-token secret: every token made before stops working', tags: ['feedback tokens'] },
    handler: async (request) => {
      await rotateTokenSecret(db, authOf(request).workspaceId);
      return { status: 'rotated' };
    },
  });

  r.options('/v1/feedback/token/:token', {
    config: { access: 'none' },
    schema: { hide: true },
    handler: async (_request, reply) => {
      allowAnyOrigin(reply);
      return reply.status(204).send();
    },
  });

  r.get('/v1/feedback/token/:token', {
    config: { access: 'none' },
    schema: {
      summary: 'The response a feedback token names (its query and answer), so a page can show what is rated; no key',
      tags: ['feedback tokens'],
      params: z.object({ token: z.string().max(2_048) }),
    },
    onRequest: async (_request, reply) => allowAnyOrigin(reply),
    handler: async (request) => {
      const read = readFeedbackToken(request.params.token);
      const workspace = await tokenWorkspace(db, read.claims.ws);
      const claims = verifyFeedbackToken(read, workspace?.secret, Date.now());
      if (!workspace) throw new FeedloopError('FEEDLOOP_ERR_TOKEN_INVALID', 'the feedback token is invalid: its workspace is gone', { field: 'token' });
      const response = await getResponse(db, claims.ws, claims.r);
      if (!response) throw new FeedloopError('FEEDLOOP_ERR_RESPONSE_NOT_FOUND', `response ${JSON.stringify(claims.r)} not found`);
      // What the token's holder was shown anyway: the query and answer, nothing else of the workspace.
      return { responseId: response.id, query: response.query, answer: response.answer, expiresAt: new Date(claims.exp * 1_000).toISOString() };
    },
  });

  r.post('/v1/feedback/token/:token', {
    config: { access: 'none', countsFeedback: true },
    schema: {
      summary: 'Submit one feedback event with a feedback token (no key; responseId comes from the token)',
      tags: ['feedback tokens'],
      params: z.object({ token: z.string().max(2_048) }),
      body: withValidator(z.record(z.string(), z.unknown()), tokenBodyCheck),
    },
    // Headers go on before anything can fail: a browser reads an error only with CORS allowed.
    onRequest: async (_request, reply) => allowAnyOrigin(reply),
    handler: async (request, reply) => {
      const { token } = request.params;
      const read = readFeedbackToken(token);
      const workspace = await tokenWorkspace(db, read.claims.ws);
      const claims = verifyFeedbackToken(read, workspace?.secret, Date.now());
      if (!workspace) throw new FeedloopError('FEEDLOOP_ERR_TOKEN_INVALID', 'the feedback token is invalid: its workspace is gone', { field: 'token' });
      // The limit is per token (a digest: the token itself need not sit in Redis).
      await ingest.checkTokenRate(createHash('sha256').update(token).digest('base64url').slice(0, 32), 1, config.tokenRateLimitPerMinute);
      const checked = validateFeedbackEvent(withinScope(request.body as Record<string, unknown>, claims));
      if (!checked.ok) throw FeedloopError.from(checked.error);
      const auth = { keyId: 'feedback-token', workspaceId: claims.ws, kind: 'public' as const, settings: workspace.settings };
      const [outcome] = await ingest.submitFeedback(auth, [checked.value as FeedbackEvent], { verified: claims.u !== undefined });
      if (!outcome) throw new FeedloopError('FEEDLOOP_ERR_INTERNAL', 'no outcome');
      if (outcome.status === 'rejected') throw FeedloopError.from(outcome.error);
      return reply.status(202).send(outcome);
    },
  });
};
