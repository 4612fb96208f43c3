/**
 * `/v1/keys`: list, create and revoke the workspace's API keys over HTTP (the dashboard's
 * Settings page; the CLI's `feedloop key` does the same on the server's machine). Secret keys
 * only (the `/v1/` default): a key grants access to the workspace. A key is shown once, in the
 * answer that creates it; only its SHA-256 and its first ten characters are stored.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { KEY_KINDS, createApiKey, listApiKeys, reviewerNameProblem, revokeApiKeyKeepingAccess, type ApiKeyInfo } from '../../store/api-keys.js';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';

const NAME_MAX_LENGTH = 100;

// A name is shown in listings and the audit log: printable text only (no NUL, no control
// characters, no lone surrogates), so nothing the database or a terminal cannot hold.
const printable = /^[^\p{Cc}\p{Cs}]*$/u;

const createBody = z
  .strictObject({
    kind: z
      .enum(KEY_KINDS)
      .describe('secret: reads and writes (server side); public: submits feedback only (safe in a browser); reviewer: reviews the queues it is a member of (its name is who reviews)'),
    name: z
      .string()
      .trim()
      .min(1)
      .max(NAME_MAX_LENGTH)
      .regex(printable, 'must not hold control characters')
      .optional()
      .describe('What the key is for, e.g. "backend" or "web widget"; for a reviewer key (required) the reviewer\'s name'),
  })
  .superRefine((body, ctx) => {
    const problem = body.kind === 'reviewer' ? reviewerNameProblem(body.name) : undefined;
    if (problem) ctx.addIssue({ code: 'custom', path: ['name'], message: problem });
  });

const keyView = z.object({
  id: z.string(),
  kind: z.enum(KEY_KINDS),
  prefix: z.string().describe('The first ten characters of the key, to recognise it'),
  name: z.string().nullable(),
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
  current: z.boolean().describe('Whether this is the key that made the request'),
});

// Key ids are UUIDs (older ones any id the CLI was given): letters, digits, `-` and `_` only, so
// a NUL or a path trick is a 400 before it reaches a query.
const idParams = z.strictObject({ id: z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, 'not a key id') });

const viewOf = (k: ApiKeyInfo, callerKeyId: string): z.infer<typeof keyView> => ({
  id: k.id,
  kind: k.kind,
  prefix: k.prefix,
  name: k.name,
  createdAt: k.createdAt.toISOString(),
  revokedAt: k.revokedAt?.toISOString() ?? null,
  current: k.id === callerKeyId,
});

/** The key routes. */
export const keyRoutes: FastifyPluginAsync<AppServices> = async (app, { db, keys }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get('/v1/keys', {
    schema: {
      summary: 'The keys of the workspace, newest first, revoked ones included; never the keys themselves',
      tags: ['keys'],
      response: { 200: z.object({ keys: z.array(keyView) }) },
    },
    handler: async (request) => {
      const { workspaceId, keyId } = authOf(request);
      return { keys: (await listApiKeys(db, workspaceId)).map((k) => viewOf(k, keyId)) };
    },
  });

  r.post('/v1/keys', {
    schema: {
      summary: 'Create a key; the answer is the only time the key is shown',
      tags: ['keys'],
      body: createBody,
      response: { 201: keyView.extend({ key: z.string() }) },
    },
    handler: async (request, reply) => {
      const { workspaceId, keyId } = authOf(request);
      const { kind, name } = request.body;
      const created = await createApiKey(db, workspaceId, kind, { ...(name === undefined ? {} : { name }), actorKeyId: keyId });
      return reply.status(201).send({ ...viewOf(created.info, keyId), key: created.key });
    },
  });

  r.delete('/v1/keys/:id', {
    schema: {
      summary: "Revoke a key (at once in this process, within FEEDLOOP_KEY_CACHE_SECONDS in others); never the workspace's last active secret key",
      tags: ['keys'],
      params: idParams,
      response: { 200: keyView },
    },
    handler: async (request) => {
      const { workspaceId, keyId } = authOf(request);
      const revoked = await revokeApiKeyKeepingAccess(db, workspaceId, request.params.id, keyId);
      // This process stops accepting the key now; other processes when their cache entry expires.
      keys.clear();
      return viewOf(revoked, keyId);
    },
  });
};
