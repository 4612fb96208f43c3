/**
 * `/v1/admin`: what the CLI on the server's own machine needs while the server holds an embedded
 * data folder, where it cannot open the database itself: a key for a workspace (made when asked).
 * Registered only on a server with a local admin credential (db/local-admin-credential.ts), and
 * authenticated by that credential alone (`access: 'admin'`), never by a workspace's key.
 */
import { workspaceSettingsPatchSchema } from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FeedloopError } from '../../errors.js';
import { KEY_KINDS, createApiKey, reviewerNameProblem } from '../../store/api-keys.js';
import { createWorkspace, findWorkspaceByLabel } from '../../store/workspaces.js';
import type { AppServices } from '../services.js';

const LABEL_MAX_LENGTH = 200;

const keyBody = z
  .strictObject({
  workspace: z.string().trim().min(1).max(LABEL_MAX_LENGTH).regex(/^[^\p{Cc}\p{Cs}]*$/u, 'must not hold control characters').describe('Its id, its name, or tenant/name (as `feedloop workspace list` prints them)'),
  create: z.boolean().default(false).describe('Create the workspace (in the default tenant, by that name) when there is none'),
  settings: workspaceSettingsPatchSchema.optional().describe('The settings of a workspace created now; an existing one keeps its own'),
  kind: z.enum(KEY_KINDS).default('secret'),
  name: z.string().trim().min(1).max(100).regex(/^[^\p{Cc}\p{Cs}]*$/u, 'must not hold control characters').optional().describe("What the key is for; for a reviewer key (required) the reviewer's name"),
  })
  .superRefine((body, ctx) => {
    const problem = body.kind === 'reviewer' ? reviewerNameProblem(body.name) : undefined;
    if (problem) ctx.addIssue({ code: 'custom', path: ['name'], message: problem });
  });

const keyAnswer = z.object({
  workspace: z.object({ id: z.string(), tenantId: z.string(), name: z.string(), created: z.boolean() }),
  id: z.string(),
  kind: z.enum(KEY_KINDS),
  prefix: z.string(),
  key: z.string().describe('The key, shown this once'),
});

/** The admin routes. */
export const adminRoutes: FastifyPluginAsync<AppServices> = async (app, { db }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post('/v1/admin/keys', {
    config: { access: 'admin' },
    schema: { summary: "A new key for a workspace, made first when asked (the local admin credential's)", tags: ['admin'], body: keyBody, response: { 201: keyAnswer } },
    handler: async (request, reply) => {
      const { workspace: label, create, settings, kind, name } = request.body;
      const found = await findWorkspaceByLabel(db, label);
      const { workspace, created } = found
        ? { workspace: found, created: false }
        : create
          ? await createWorkspace(db, { name: label, ...(settings ? { settings } : {}) })
          : { workspace: undefined, created: false };
      if (!workspace) throw new FeedloopError('FEEDLOOP_ERR_WORKSPACE_NOT_FOUND', `no workspace ${label} (give its id, its name or tenant/name)`, { field: 'workspace' });
      const made = await createApiKey(db, workspace.id, kind, name === undefined ? {} : { name });
      return reply.status(201).send({
        workspace: { id: workspace.id, tenantId: workspace.tenantId, name: workspace.name, created },
        id: made.info.id,
        kind: made.info.kind,
        prefix: made.info.prefix,
        key: made.key,
      });
    },
  });
};
