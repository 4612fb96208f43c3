/**
 * Privacy routes (issue 11, docs/privacy.md): end users' consent, what is stored about them,
 * their erasure, the audit log, and aggregates with k-anonymity.
 */
import { DAY_MS, consentInputSchema, idSchema, resolveWorkspaceSettings, suppressBaselineParts, suppressSmallGroups, timestampSchema } from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FeedloopError } from '../../errors.js';
import { AGGREGATE_GROUP_BY, tenantBaselineParts, workspaceAggregates } from '../../store/aggregates.js';
import { appendAudit, auditKey, listAudit, userSubject } from '../../store/audit-log.js';
import { changeConsent, readConsent } from '../../store/consent.js';
import { eraseUser } from '../../store/erasure.js';
import { readUserData } from '../../store/user-data.js';
import { findWorkspace } from '../../store/workspaces.js';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';

const userParams = z.strictObject({ userId: idSchema });

const auditQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(1_000).default(100),
  cursor: z.string().regex(/^\d{1,19}$/).optional(),
  action: z.string().max(64).optional(),
  userId: idSchema.optional().describe('Entries about this end user (matched by their keyed hash)'),
});

const periodQuery = z.strictObject({
  groupBy: z.enum(AGGREGATE_GROUP_BY).default('agent'),
  from: timestampSchema.optional(),
  to: timestampSchema.optional(),
});

/** The period of an aggregate read: `to` defaults to now, `from` to 30 days before it. */
function periodOf(q: { from?: string | undefined; to?: string | undefined }): { from: Date; to: Date } {
  const to = q.to ? new Date(q.to) : new Date();
  const from = q.from ? new Date(q.from) : new Date(to.getTime() - 30 * DAY_MS);
  if (from >= to) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'from: must be before to', { field: 'from' });
  return { from, to };
}

/** The privacy routes. */
export const privacyRoutes: FastifyPluginAsync<AppServices> = async (app, { db, config, memory, pipeline }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const subjectOf = async (workspaceId: string, userId: string): Promise<string> => userSubject(await auditKey(db, config.auditKey), workspaceId, userId);

  r.get('/v1/users/:userId/consent', { schema: { summary: "An end user's consent", tags: ['privacy'], params: userParams } }, async (request) =>
    readConsent(db, authOf(request).workspaceId, request.params.userId),
  );

  r.put(
    '/v1/users/:userId/consent',
    { schema: { summary: "Change an end user's consent (fields left out stay; null clears)", tags: ['privacy'], params: userParams, body: consentInputSchema } },
    async (request) => {
      const auth = authOf(request);
      const { before, after } = await changeConsent(db, auth.workspaceId, request.params.userId, request.body);
      const strip = (c: typeof before) => ({ explicit: c.explicit, implicit: c.implicit, outcome: c.outcome, types: c.types });
      await appendAudit(db, {
        workspaceId: auth.workspaceId,
        action: 'consent.changed',
        actorKeyId: auth.keyId,
        subject: await subjectOf(auth.workspaceId, request.params.userId),
        details: { before: strip(before), after: strip(after) },
      });
      return after;
    },
  );

  r.get('/v1/users/:userId/data', { schema: { summary: 'Everything stored about an end user', tags: ['privacy'], params: userParams } }, async (request) =>
    readUserData(db, authOf(request).workspaceId, request.params.userId),
  );

  r.delete('/v1/users/:userId', { schema: { summary: "Erase an end user's data", tags: ['privacy'], params: userParams } }, async (request) => {
    const auth = authOf(request);
    const keepFrom = new Date(Date.now() - (auth.settings.retentionDays + 1) * DAY_MS);
    const removed = await eraseUser(db, auth.workspaceId, request.params.userId, keepFrom);
    memory.forget(auth.workspaceId, request.params.userId);
    // What the erased rows counted in (scores, the workspace's days: marked dirty by the erasure)
    // is recomputed by the pipeline's jobs, off the request: never global work inline (issue 25).
    await pipeline.recompute(auth.workspaceId);
    const total = Object.values(removed).reduce((a, b) => a + b, 0);
    await appendAudit(db, {
      workspaceId: auth.workspaceId,
      action: 'user.erased',
      actorKeyId: auth.keyId,
      subject: await subjectOf(auth.workspaceId, request.params.userId),
      details: { rows: total, tables: Object.fromEntries(Object.entries(removed).filter(([, n]) => n > 0)) },
    });
    return { erased: total > 0, rows: total, tables: removed };
  });

  r.get('/v1/audit', { schema: { summary: 'The audit log, newest first', tags: ['privacy'], querystring: auditQuery } }, async (request) => {
    const auth = authOf(request);
    const q = request.query;
    return listAudit(db, auth.workspaceId, {
      limit: q.limit,
      ...(q.cursor ? { before: q.cursor } : {}),
      ...(q.action ? { action: q.action } : {}),
      ...(q.userId ? { subject: await subjectOf(auth.workspaceId, q.userId) } : {}),
    });
  });

  r.get('/v1/aggregates', { schema: { summary: "The workspace's counted feedback by group, k-anonymous", tags: ['privacy'], querystring: periodQuery } }, async (request) => {
    const auth = authOf(request);
    const { from, to } = periodOf(request.query);
    const groups = await workspaceAggregates(db, auth.workspaceId, request.query.groupBy, from, to);
    return { from: from.toISOString(), to: to.toISOString(), groupBy: request.query.groupBy, ...suppressSmallGroups(groups, auth.settings.kAnonymity) };
  });

  r.get('/v1/baselines', { schema: { summary: "Cross-workspace baselines of the key's tenant, k-anonymous", tags: ['privacy'], querystring: periodQuery } }, async (request) => {
    const auth = authOf(request);
    const ws = await findWorkspace(db, auth.workspaceId);
    if (!ws) throw new FeedloopError('FEEDLOOP_ERR_WORKSPACE_NOT_FOUND', 'the workspace of this key is gone');
    const { from, to } = periodOf(request.query);
    const rows = await tenantBaselineParts(db, ws.tenantId, request.query.groupBy, from, to);
    // Each workspace's own k applies to its own part, and the strictest k to the group (issue 22).
    const parts = rows.map(({ workspaceId: _ws, settings, ...counts }) => ({ ...counts, k: resolveWorkspaceSettings(settings).kAnonymity }));
    return { from: from.toISOString(), to: to.toISOString(), groupBy: request.query.groupBy, ...suppressBaselineParts(parts, auth.settings.kAnonymity) };
  });
};
