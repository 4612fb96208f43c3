/**
 * `/v1/evaluators` (issue 28; docs/evaluators.md): automated judges, their calls (with dead
 * letters and a retry), and backfills. Secret keys only (the `/v1/` default): an evaluator
 * decides where a workspace's responses are sent.
 */
import { DAY_MS, calibrationKindOf, calibrationPairs, isoWeekOf, judgeCalibration } from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { SqlExecutor } from '../../db/sql-client.js';
import { forbiddenUrlClass } from '../../emit/safe-address.js';
import { generateWebhookSecret } from '../../emit/webhook-signature.js';
import { FeedloopError } from '../../errors.js';
import { createBackfill, findBackfill, listBackfills } from '../../store/evaluator-backfills.js';
import { evaluatorCallCounts, listEvaluatorCalls, retryDeadCall } from '../../store/evaluator-calls.js';
import { createEvaluator, deleteEvaluator, fieldsOf, findEvaluator, listEvaluators, updateEvaluator, type EvaluatorFields, type EvaluatorWithSecret } from '../../store/evaluators.js';
import { decodeCursor, encodeCursor } from '../../store/feedback-queries.js';
import { parseResponseFilter } from '../../store/response-list-filter.js';
import { getScoreConfig } from '../../store/score-configs.js';
import { judgedUnits } from '../../store/judge-calibration-reads.js';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';
import { backfillBody, backfillParams, backfillView, backfillViewOf, calibrationQuery, callParams, callsQuery, callView, callViewOf, createBody, DEFAULT_CALIBRATION_DAYS, evaluatorView, idParams, patchBody, viewOf } from './evaluator-views.js';

const notFound = (id: string): FeedloopError =>
  new FeedloopError('FEEDLOOP_ERR_EVALUATOR_NOT_FOUND', `id: no evaluator ${JSON.stringify(id)} in this workspace`, { field: 'id' });

/** The evaluator, or a 404 naming it. */
async function requireEvaluator(db: SqlExecutor, workspaceId: string, id: string): Promise<EvaluatorWithSecret> {
  const found = await findEvaluator(db, workspaceId, id);
  if (!found) throw notFound(id);
  return found;
}

/**
 * Checks what the schema cannot: the URL against the webhook address rules (the operator's
 * `FEEDLOOP_WEBHOOK_ALLOW_PRIVATE` lets private addresses through, as for webhooks), the filter
 * in the response list's vocabulary, and the score config (a live one of this workspace, for
 * output `score` only).
 */
async function checkFields(db: SqlExecutor, workspaceId: string, fields: EvaluatorFields, allowPrivate: boolean, urlChanged: boolean): Promise<void> {
  if (urlChanged) {
    const forbidden = await forbiddenUrlClass(fields.url, { allowPrivate });
    if (forbidden !== undefined) {
      throw new FeedloopError(
        'FEEDLOOP_ERR_EVALUATOR_URL_FORBIDDEN',
        `url: the host is or resolves to a ${forbidden.replace('_', '-')} address; evaluators go to public addresses only (FEEDLOOP_WEBHOOK_ALLOW_PRIVATE)`,
        { field: 'url' },
      );
    }
  }
  parseResponseFilter(fields.filter, 'filter.');
  if (fields.scoreConfigId !== null) {
    if (fields.kind !== 'pointwise' || fields.output !== 'score') {
      throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'scoreConfigId: only a pointwise evaluator with output "score" has a score config', { field: 'scoreConfigId' });
    }
    const config = await getScoreConfig(db, workspaceId, fields.scoreConfigId);
    if (!config || config.archived) {
      throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', `scoreConfigId: no live score config ${JSON.stringify(fields.scoreConfigId)} in this workspace`, {
        field: 'scoreConfigId',
      });
    }
  }
}

/** The evaluator routes. */
export const evaluatorRoutes: FastifyPluginAsync<AppServices> = async (app, { db, config, pipeline }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post('/v1/evaluators', {
    schema: { summary: 'Create an evaluator; the answer is the only time the secret is shown', tags: ['evaluators'], body: createBody, response: { 201: evaluatorView.extend({ secret: z.string() }) } },
    handler: async (request, reply) => {
      const { workspaceId } = authOf(request);
      const { secret: given, ...body } = request.body;
      const fields: EvaluatorFields = { ...body, scoreConfigId: body.scoreConfigId ?? null };
      await checkFields(db, workspaceId, fields, config.webhookAllowPrivate, true);
      const created = await createEvaluator(db, workspaceId, fields, given ?? generateWebhookSecret());
      return reply.status(201).send({ ...viewOf(created), secret: created.secret });
    },
  });

  r.get('/v1/evaluators', {
    schema: { summary: 'The evaluators of the workspace, without secrets', tags: ['evaluators'], response: { 200: z.object({ evaluators: z.array(evaluatorView) }) } },
    handler: async (request) => ({ evaluators: (await listEvaluators(db, authOf(request).workspaceId)).map(viewOf) }),
  });

  r.get('/v1/evaluators/:id', {
    schema: { summary: 'One evaluator, with its calls by status', tags: ['evaluators'], params: idParams, response: { 200: evaluatorView } },
    handler: async (request) => {
      const evaluator = await requireEvaluator(db, authOf(request).workspaceId, request.params.id);
      return { ...viewOf(evaluator), calls: await evaluatorCallCounts(db, evaluator.id) };
    },
  });

  r.patch('/v1/evaluators/:id', {
    schema: {
      summary: "Change an evaluator's fields; a change of url, kind, output, scoreConfigId or filter makes a new version",
      tags: ['evaluators'],
      params: idParams,
      body: patchBody,
      response: { 200: evaluatorView },
    },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const { secret: newSecret, ...patch } = request.body;
      const current = await requireEvaluator(db, workspaceId, request.params.id);
      const next: EvaluatorFields = { ...fieldsOf(current), ...patch, scoreConfigId: patch.scoreConfigId === undefined ? current.scoreConfigId : patch.scoreConfigId };
      await checkFields(db, workspaceId, next, config.webhookAllowPrivate, next.url !== current.url);
      const updated = await db.transaction((tx) =>
        updateEvaluator(
          tx,
          workspaceId,
          current.id,
          (latest) => ({ ...latest, ...patch, scoreConfigId: patch.scoreConfigId === undefined ? latest.scoreConfigId : patch.scoreConfigId }),
          newSecret,
        ),
      );
      if (!updated) throw notFound(request.params.id);
      return viewOf(updated);
    },
  });

  r.delete('/v1/evaluators/:id', {
    schema: { summary: 'Delete an evaluator; its pending calls are dead-lettered, its calls and events kept', tags: ['evaluators'], params: idParams },
    handler: async (request, reply) => {
      if (!(await deleteEvaluator(db, authOf(request).workspaceId, request.params.id))) throw notFound(request.params.id);
      return reply.status(204).send();
    },
  });

  r.get('/v1/evaluators/:id/calls', {
    schema: {
      summary: "An evaluator's calls, newest first: status, latency, error, dead letters",
      tags: ['evaluators'],
      params: idParams,
      querystring: callsQuery,
      response: { 200: z.object({ calls: z.array(callView), nextCursor: z.string().nullable() }) },
    },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const { status, cursor, limit } = request.query;
      const beforeId = cursor === undefined ? undefined : decodeCursor(cursor);
      if (cursor !== undefined && beforeId === undefined) {
        throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'cursor: not a cursor this API returned', { field: 'cursor' });
      }
      const evaluator = await requireEvaluator(db, workspaceId, request.params.id);
      const page = await listEvaluatorCalls(db, workspaceId, evaluator.id, { status, beforeId, limit });
      return { calls: page.calls.map((c) => callViewOf(evaluator.id, c)), nextCursor: page.nextBeforeId === null ? null : encodeCursor(page.nextBeforeId) };
    },
  });

  r.post('/v1/evaluators/:id/calls/:callId/retry', {
    schema: { summary: 'Send a dead-lettered call again (attempts start over)', tags: ['evaluators'], params: callParams, response: { 202: z.object({ id: z.number().int(), status: z.literal('pending') }) } },
    handler: async (request, reply) => {
      const { workspaceId } = authOf(request);
      const evaluator = await requireEvaluator(db, workspaceId, request.params.id);
      const { callId } = request.params;
      const outcome = await retryDeadCall(db, workspaceId, evaluator.id, callId);
      if (outcome === 'not_found') throw new FeedloopError('FEEDLOOP_ERR_EVALUATOR_CALL_NOT_FOUND', `callId: no call ${callId} for this evaluator`, { field: 'callId' });
      if (outcome === 'not_dead') throw new FeedloopError('FEEDLOOP_ERR_EVALUATOR_CALL_NOT_DEAD', `callId: call ${callId} is not dead-lettered`, { field: 'callId' });
      await pipeline.judgeSoon([callId]);
      return reply.status(202).send({ id: callId, status: 'pending' as const });
    },
  });

  r.post('/v1/evaluators/:id/backfill', {
    schema: {
      summary: 'Judge what already exists: past responses (pointwise) or pairwise review items (pairwise), once per evaluator version',
      tags: ['evaluators'],
      params: idParams,
      body: backfillBody,
      response: { 202: backfillView },
    },
    handler: async (request, reply) => {
      const { workspaceId } = authOf(request);
      const evaluator = await requireEvaluator(db, workspaceId, request.params.id);
      const since = new Date(request.body.since);
      const until = request.body.until === undefined ? new Date() : new Date(request.body.until);
      if (until <= since) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'until: must be after since', { field: 'until' });
      const backfill = await createBackfill(db, workspaceId, evaluator, { since, until, limit: request.body.limit });
      await pipeline.evaluatorsSoon();
      return reply.status(202).send(backfillViewOf(backfill));
    },
  });

  r.get('/v1/evaluators/:id/calibration', {
    schema: {
      summary: "A judge held to the humans: agreement, Cohen's kappa (weighted kappa and Spearman's rho for ratings), confusion, per week, and the disagreements worst first",
      tags: ['evaluators'],
      params: idParams,
      querystring: calibrationQuery,
    },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const evaluator = await requireEvaluator(db, workspaceId, request.params.id);
      const to = request.query.to === undefined ? new Date() : new Date(request.query.to);
      const from = request.query.from === undefined ? new Date(to.getTime() - DEFAULT_CALIBRATION_DAYS * DAY_MS) : new Date(request.query.from);
      if (to <= from) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'to: must be after from', { field: 'to' });
      const units = await judgedUnits(db, workspaceId, evaluator.id, from, to);
      const kind = calibrationKindOf(evaluator.kind, evaluator.output);
      const pairs = calibrationPairs(
        units.map((u) => ({ ...u, week: isoWeekOf(u.answeredDay) })),
        kind,
      );
      const report = judgeCalibration(pairs);
      const responseOf = new Map(units.map((u) => [u.unitId, u.responseId]));
      return {
        evaluatorId: evaluator.id,
        from: from.toISOString(),
        to: to.toISOString(),
        judged: units.length,
        ...report,
        kind,
        disagreements: report.disagreements.map((d) => {
          const responseId = responseOf.get(d.unitId) ?? d.unitId;
          return { ...d, responseId, link: `/v1/responses/${encodeURIComponent(responseId)}` };
        }),
      };
    },
  });

  r.get('/v1/evaluators/:id/backfills', {
    schema: { summary: "An evaluator's backfills with their progress, newest first", tags: ['evaluators'], params: idParams, response: { 200: z.object({ backfills: z.array(backfillView) }) } },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const evaluator = await requireEvaluator(db, workspaceId, request.params.id);
      return { backfills: (await listBackfills(db, workspaceId, evaluator.id)).map(backfillViewOf) };
    },
  });

  r.get('/v1/evaluators/:id/backfills/:backfillId', {
    schema: { summary: "A backfill's progress", tags: ['evaluators'], params: backfillParams, response: { 200: backfillView } },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const evaluator = await requireEvaluator(db, workspaceId, request.params.id);
      const found = await findBackfill(db, workspaceId, evaluator.id, request.params.backfillId);
      if (!found) throw new FeedloopError('FEEDLOOP_ERR_EVALUATOR_BACKFILL_NOT_FOUND', `backfillId: no backfill ${JSON.stringify(request.params.backfillId)} for this evaluator`, { field: 'backfillId' });
      return backfillViewOf(found);
    },
  });
};
