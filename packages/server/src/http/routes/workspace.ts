/**
 * `/v1/workspace`: the caller's workspace and its settings.
 */
import { workspaceSettingsPatchSchema } from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { FeedloopError } from '../../errors.js';
import { redactionPatternProblem } from '../../ingest/redaction-patterns.js';
import { appendAudit } from '../../store/audit-log.js';
import { findWorkspace, updateWorkspaceSettings } from '../../store/workspaces.js';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';

/** The workspace routes. */
export const workspaceRoutes: FastifyPluginAsync<AppServices> = async (app, { db, keys }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get('/v1/workspace', { schema: { summary: 'The workspace of the key', tags: ['workspace'] } }, async (request) => {
    const ws = await findWorkspace(db, authOf(request).workspaceId);
    if (!ws) throw new FeedloopError('FEEDLOOP_ERR_WORKSPACE_NOT_FOUND', 'the workspace of this key is gone');
    return ws;
  });

  r.patch(
    '/v1/workspace/settings',
    { schema: { summary: 'Change workspace settings', tags: ['workspace'], body: workspaceSettingsPatchSchema } },
    async (request) => {
      const auth = authOf(request);
      // Operator patterns run on RE2 (linear time): one it cannot run is refused, nothing saved.
      (request.body.redactionPatterns ?? []).forEach((p, i) => {
        const problem = redactionPatternProblem(p.pattern);
        if (problem) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', `redactionPatterns.${i}.pattern: ${problem}`, { field: `redactionPatterns.${i}.pattern` });
      });
      const ws = await updateWorkspaceSettings(db, auth.workspaceId, request.body);
      await appendAudit(db, { workspaceId: auth.workspaceId, action: 'settings.changed', actorKeyId: auth.keyId, details: { changed: request.body } });
      keys.clear();
      return ws;
    },
  );
};
