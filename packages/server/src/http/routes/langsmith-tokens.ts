/**
 * LangSmith's presigned feedback tokens under `/langsmith` (issue 26 §3), backed by feedloop's
 * signed feedback tokens (ingest/feedback-token.ts: stateless, HMAC with the workspace's token
 * secret, revoked all at once by rotating it). `POST /feedback/tokens` makes one per
 * `{ run_id, feedback_key }`; its `url` takes a tokenless `POST { score, value, comment,
 * correction, metadata }` or the same as a `GET`'s query parameters, from any origin.
 */
import { createHash } from 'node:crypto';
import { idSchema, langSmithFeedbackConfigSchema, langSmithTime, metadataSchema, type LangSmithFeedbackConfig } from '@feedloop/core';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { FeedloopError } from '../../errors.js';
import { readFeedbackToken, signFeedbackToken, verifyFeedbackToken, type FeedbackTokenClaims } from '../../ingest/feedback-token.js';
import { createLangSmithFeedback, responseOfRun } from '../../ingest/langsmith-feedback.js';
import { tokenSecretOf, tokenWorkspace } from '../../store/feedback-token-secrets.js';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';
import { allowAnyOrigin, DEFAULT_TOKEN_TTL_SECONDS, MAX_TOKEN_TTL_SECONDS } from './feedback-tokens.js';
import { langSmithFeedbackJson } from './langsmith-feedback.js';

const TAGS = ['langsmith'];
/** Tokens one request may make at most. */
const MAX_TOKENS = 100;

const tokenRequest = z.strictObject({
  run_id: idSchema,
  feedback_key: z.string().min(1).max(200),
  feedback_config: langSmithFeedbackConfigSchema.nullish(),
  expires_in: z
    .looseObject({ days: z.number().min(0).nullish(), hours: z.number().min(0).nullish(), minutes: z.number().min(0).nullish(), seconds: z.number().min(0).nullish() })
    .nullish(),
  /** ISO; the Python SDK sends a naive `datetime.isoformat()`, read as UTC. */
  expires_at: z.string().max(64).nullish(),
});

type TokenRequest = z.output<typeof tokenRequest>;

/** A token's life in seconds from its request: `expires_at`, else `expires_in`, else 24 h; at most 30 days. */
function lifeSeconds(t: TokenRequest, nowMs: number): number {
  const at = t.expires_at ? langSmithTime(t.expires_at) : undefined;
  if (t.expires_at && at === undefined) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'expires_at: not an ISO 8601 time', { field: 'expires_at' });
  const life = at
    ? Math.floor((Date.parse(at) - nowMs) / 1000)
    : t.expires_in
      ? Math.floor((t.expires_in.days ?? 0) * 86_400 + (t.expires_in.hours ?? 0) * 3_600 + (t.expires_in.minutes ?? 0) * 60 + (t.expires_in.seconds ?? 0))
      : DEFAULT_TOKEN_TTL_SECONDS;
  const field = t.expires_at ? 'expires_at' : 'expires_in';
  if (life < 1) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', `${field}: the token would be expired already`, { field });
  if (life > MAX_TOKEN_TTL_SECONDS) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', `${field}: a token may live 30 days at most`, { field });
  return life;
}

/** What a token's holder sends (the body of a POST, or a GET's query parameters read alike). */
const submission = z.looseObject({
  score: z.union([z.number().finite(), z.boolean()]).nullish(),
  value: z.union([z.number().finite(), z.boolean(), z.string().max(200_000), metadataSchema]).nullish(),
  comment: z.string().max(200_000).nullish(),
  correction: z.union([z.string().max(200_000), metadataSchema]).nullish(),
  metadata: metadataSchema.nullish(),
});

type Submission = z.output<typeof submission>;

/** A GET's query parameters as a submission: `score` a number, `correction` and `metadata` JSON when they parse as an object. */
function fromQuery(q: Record<string, string | string[] | undefined>): unknown {
  const one = (k: string): string | undefined => {
    const v = q[k];
    return Array.isArray(v) ? v[0] : v;
  };
  const objectOr = (text: string | undefined): unknown => {
    if (text === undefined || !text.trimStart().startsWith('{')) return text;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  };
  const score = one('score');
  return {
    ...(score !== undefined ? { score: score === 'true' ? true : score === 'false' ? false : Number(score) } : {}),
    ...(one('value') !== undefined ? { value: one('value') } : {}),
    ...(one('comment') !== undefined ? { comment: one('comment') } : {}),
    ...(one('correction') !== undefined ? { correction: objectOr(one('correction')) } : {}),
    ...(one('metadata') !== undefined ? { metadata: objectOr(one('metadata')) } : {}),
  };
}

/** The LangSmith token routes. */
export const langsmithTokenRoutes: FastifyPluginAsync<AppServices> = async (app, { db, ingest, config }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  // A page's `fetch(url, { method: 'POST', body: JSON.stringify(...) })` sends text/plain (a
  // simple request, no preflight): its body is read as JSON here, as LangSmith takes it.
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, JSON.parse(body as string) as unknown);
    } catch {
      done(new FeedloopError('FEEDLOOP_ERR_VALIDATION_BAD_JSON', 'the body is not valid JSON'));
    }
  });

  r.post('/feedback/tokens', {
    schema: {
      summary: 'Presigned feedback tokens (one, or an array): { id, url, expires_at } each',
      tags: TAGS,
      body: z.union([tokenRequest, z.array(tokenRequest).min(1).max(MAX_TOKENS)]),
    },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const secret = await tokenSecretOf(db, workspaceId);
      const now = Date.now();
      const make = async (t: TokenRequest) => {
        const exp = Math.floor(now / 1000) + lifeSeconds(t, now);
        const id = uuidv7();
        const claims: FeedbackTokenClaims = {
          ws: workspaceId,
          r: await responseOfRun(db, workspaceId, t.run_id),
          exp,
          ls: { id, run: t.run_id, k: t.feedback_key, ...(t.feedback_config ? { c: t.feedback_config } : {}) },
        };
        const token = signFeedbackToken(secret, claims);
        return { id, url: `${config.publicUrl}/langsmith/feedback/tokens/${token}`, expires_at: new Date(exp * 1000).toISOString(), feedback_key: t.feedback_key };
      };
      const body = request.body;
      return Array.isArray(body) ? Promise.all(body.map(make)) : make(body);
    },
  });

  /** Verifies the token, then submits what its holder sent as the token's feedback. */
  const submit = async (token: string, raw: unknown) => {
    const read = readFeedbackToken(token);
    const workspace = await tokenWorkspace(db, read.claims.ws);
    const claims = verifyFeedbackToken(read, workspace?.secret, Date.now());
    if (!workspace || !claims.ls) throw new FeedloopError('FEEDLOOP_ERR_TOKEN_INVALID', 'the feedback token is invalid: not a LangSmith feedback token of a live workspace', { field: 'token' });
    await ingest.checkTokenRate(createHash('sha256').update(token).digest('base64url').slice(0, 32), 1, config.tokenRateLimitPerMinute);
    const parsed = submission.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.join('.') || 'body';
      throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', `${field}: ${issue?.message ?? 'invalid'}`, { field });
    }
    const s: Submission = parsed.data;
    const auth = { keyId: 'feedback-token', workspaceId: claims.ws, kind: 'public' as const, settings: workspace.settings };
    const stored = await createLangSmithFeedback(
      { db, ingest },
      auth,
      {
        run_id: claims.ls.run,
        trace_id: claims.r,
        key: claims.ls.k,
        score: s.score ?? null,
        value: s.value ?? null,
        comment: s.comment ?? null,
        correction: s.correction ?? null,
        feedback_source: { type: 'app', metadata: { ...(s.metadata ?? {}), __token_id: claims.ls.id } },
      },
      { config: (claims.ls.c as LangSmithFeedbackConfig | undefined) ?? null },
    );
    return langSmithFeedbackJson(stored);
  };

  const tokenParams = z.object({ token: z.string().min(1).max(2_048) });
  const open = { langsmithToken: true, countsFeedback: true } as const;
  const cors = async (_request: FastifyRequest, reply: Parameters<typeof allowAnyOrigin>[0]) => allowAnyOrigin(reply);

  r.options('/feedback/tokens/:token', {
    config: { langsmithToken: true },
    schema: { hide: true },
    handler: async (_request, reply) => {
      allowAnyOrigin(reply);
      return reply.status(204).send();
    },
  });

  r.post('/feedback/tokens/:token', {
    config: open,
    schema: { summary: 'Give feedback with a presigned token (no key): { score, value, comment, correction, metadata }', tags: TAGS, params: tokenParams, body: submission },
    onRequest: cors,
    handler: async (request, reply) => reply.status(201).send(await submit(request.params.token, request.body)),
  });

  r.get('/feedback/tokens/:token', {
    config: open,
    schema: {
      summary: 'Give feedback with a presigned token (no key), as query parameters (a link in an email or a page)',
      tags: TAGS,
      params: tokenParams,
      querystring: z.object({ score: z.string().max(64).optional(), value: z.string().max(2_000).optional(), comment: z.string().max(10_000).optional(), correction: z.string().max(10_000).optional(), metadata: z.string().max(10_000).optional() }),
    },
    onRequest: cors,
    handler: async (request) => submit(request.params.token, fromQuery(request.query)),
  });
};
