/**
 * `/v1/evaluators` (issue 28; docs/evaluators.md): automated judges, their calls (with dead
 * letters and a retry), and backfills. Secret keys only (the `/v1/` default): an evaluator
 * decides where a workspace's responses are sent.
 */
import { EVALUATOR_DEFAULTS, EVALUATOR_KINDS, EVALUATOR_LIMITS, EVALUATOR_OUTPUTS, DAY_MS, JUDGE_WEIGHT_RULE, calibrationKindOf, calibrationPairs, isoWeekOf, judgeCalibration } from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { SqlExecutor } from '../../db/sql-client.js';
import { forbiddenUrlClass } from '../../emit/safe-address.js';
import { generateWebhookSecret } from '../../emit/webhook-signature.js';
import { FeedloopError } from '../../errors.js';
import { createBackfill, findBackfill, listBackfills, type BackfillInfo } from '../../store/evaluator-backfills.js';
import { EVALUATOR_CALL_STATUSES, evaluatorCallCounts, listEvaluatorCalls, retryDeadCall, type EvaluatorCallInfo } from '../../store/evaluator-calls.js';
import {
  createEvaluator,
  deleteEvaluator,
  evaluatorInfo,
  fieldsOf,
  findEvaluator,
  listEvaluators,
  updateEvaluator,
  type EvaluatorFields,
  type EvaluatorWithSecret,
} from '../../store/evaluators.js';
import { decodeCursor, encodeCursor } from '../../store/feedback-queries.js';
import { parseResponseFilter } from '../../store/response-list-filter.js';
import { getScoreConfig } from '../../store/score-configs.js';
import { judgedUnits } from '../../store/judge-calibration-reads.js';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';

const URL_MAX_LENGTH = 2_048;
const SECRET_MIN_LENGTH = 16;
const SECRET_MAX_LENGTH = 200;
const NAME_MAX_LENGTH = 200;
const ID_MAX_LENGTH = 64;
const DEFAULT_PAGE = 50;
const MAX_PAGE = 1_000;
/** Items one backfill judges at most. */
const MAX_BACKFILL = 100_000;
const DEFAULT_BACKFILL = 1_000;

const url = z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }).max(URL_MAX_LENGTH);
const secret = z.string().min(SECRET_MIN_LENGTH).max(SECRET_MAX_LENGTH);
const fieldShapes = {
  name: z.string().trim().min(1).max(NAME_MAX_LENGTH).describe('What the team calls the judge'),
  url: url.describe('Where calls are POSTed (the webhook address rules)'),
  kind: z.enum(EVALUATOR_KINDS).describe('pointwise: one response a call; pairwise: the two responses of a pairwise review item'),
  output: z.enum(EVALUATOR_OUTPUTS).describe('What a pointwise judge answers: thumbs, rating (1-5) or score'),
  scoreConfigId: z.string().min(1).max(ID_MAX_LENGTH).nullable().describe('output score: the score config its scores are validated by'),
  sample: z.number().min(0).max(1).describe('Share of items judged, decided per (evaluator, item)'),
  filter: z.record(z.string(), z.unknown()).describe("Which responses: the response list's filters"),
  timeoutMs: z.number().int().min(EVALUATOR_LIMITS.timeoutMsMin).max(EVALUATOR_LIMITS.timeoutMsMax),
  ratePerMinute: z.number().int().min(EVALUATOR_LIMITS.ratePerMinuteMin).max(EVALUATOR_LIMITS.ratePerMinuteMax).describe('Calls started per minute at most'),
  enabled: z.boolean(),
};

const createBody = z.strictObject({
  name: fieldShapes.name,
  url: fieldShapes.url,
  secret: secret.optional().describe('The signing secret; generated (whsec_…) when absent'),
  kind: fieldShapes.kind,
  output: fieldShapes.output.default('thumbs'),
  scoreConfigId: fieldShapes.scoreConfigId.optional(),
  sample: fieldShapes.sample.default(EVALUATOR_DEFAULTS.sample),
  filter: fieldShapes.filter.default({}),
  timeoutMs: fieldShapes.timeoutMs.default(EVALUATOR_DEFAULTS.timeoutMs),
  ratePerMinute: fieldShapes.ratePerMinute.default(EVALUATOR_DEFAULTS.ratePerMinute),
  enabled: fieldShapes.enabled.default(EVALUATOR_DEFAULTS.enabled),
});

const patchBody = z.strictObject({
  name: fieldShapes.name.optional(),
  url: fieldShapes.url.optional(),
  secret: secret.optional(),
  kind: fieldShapes.kind.optional(),
  output: fieldShapes.output.optional(),
  scoreConfigId: fieldShapes.scoreConfigId.optional(),
  sample: fieldShapes.sample.optional(),
  filter: fieldShapes.filter.optional(),
  timeoutMs: fieldShapes.timeoutMs.optional(),
  ratePerMinute: fieldShapes.ratePerMinute.optional(),
  enabled: fieldShapes.enabled.optional(),
});

const countsView = z.object({ pending: z.number().int(), done: z.number().int(), dead: z.number().int() });

const evaluatorView = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  kind: z.enum(EVALUATOR_KINDS),
  output: z.enum(EVALUATOR_OUTPUTS),
  scoreConfigId: z.string().nullable(),
  sample: z.number(),
  filter: z.record(z.string(), z.unknown()),
  timeoutMs: z.number().int(),
  ratePerMinute: z.number().int(),
  enabled: z.boolean(),
  version: z.number().int(),
  weight: z
    .object({
      factor: z.number(),
      kappa: z.number().nullable(),
      n: z.number().int(),
      checkedAt: z.string().nullable(),
      window: z
        .object({ from: z.string(), to: z.string() })
        .nullable()
        .describe('The answers kappa and n are over: the 30 days to checkedAt (the calibration of ?from=&to= these, unless answers or labels changed since); null before the first check'),
      rule: z.string(),
    })
    .describe("The weight rule's state at its last (hourly) check: its events weigh factor × the human weight"),
  createdAt: z.string(),
  updatedAt: z.string(),
  calls: countsView.optional(),
});

const callView = z.object({
  id: z.number().int(),
  evaluatorVersion: z.number().int(),
  itemKey: z.string(),
  responseId: z.string(),
  responseBId: z.string().nullable(),
  origin: z.enum(['new', 'backfill']),
  backfillId: z.string().nullable(),
  status: z.enum(EVALUATOR_CALL_STATUSES),
  deadLetter: z.boolean(),
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  latencyMs: z.number().int().nullable(),
  eventId: z.string().nullable(),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  links: z.object({ response: z.string(), retry: z.string().nullable() }),
});

const backfillBody = z.strictObject({
  since: z.iso.datetime({ offset: true }).describe('Items created at or after this'),
  until: z.iso.datetime({ offset: true }).optional().describe('Items created before this; default now'),
  limit: z.number().int().min(1).max(MAX_BACKFILL).default(DEFAULT_BACKFILL).describe('Items judged at most'),
});

const backfillView = z.object({
  id: z.string(),
  evaluatorId: z.string(),
  evaluatorVersion: z.number().int(),
  since: z.string(),
  until: z.string(),
  limit: z.number().int(),
  status: z.enum(['running', 'done']),
  considered: z.number().int(),
  queued: z.number().int(),
  calls: countsView,
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
});

/** The calibration period when none is given: the last 90 days. */
const DEFAULT_CALIBRATION_DAYS = 90;
const calibrationQuery = z.strictObject({
  from: z.iso.datetime({ offset: true }).optional().describe('Answers from this instant; default 90 days before `to`'),
  to: z.iso.datetime({ offset: true }).optional().describe('Answers before this instant; default now'),
});

const safeId = z.string().min(1).max(ID_MAX_LENGTH).regex(/^[A-Za-z0-9_-]+$/, 'not an id');
const idParams = z.strictObject({ id: safeId });
const callParams = z.strictObject({ id: safeId, callId: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER) });
const backfillParams = z.strictObject({ id: safeId, backfillId: safeId });
const callsQuery = z.strictObject({
  status: z.enum(EVALUATOR_CALL_STATUSES).optional(),
  cursor: z.string().max(ID_MAX_LENGTH).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(DEFAULT_PAGE),
});

type EvaluatorView = z.infer<typeof evaluatorView>;

const WEIGHT_RULE_TEXT = `${JUDGE_WEIGHT_RULE.share} × the human weight while Cohen's kappa over the last ${JUDGE_WEIGHT_RULE.windowDays} days ≥ ${JUDGE_WEIGHT_RULE.minKappa} with n ≥ ${JUDGE_WEIGHT_RULE.minN}, else 0`;

/** The period of the weight check's kappa and n: the rule's days up to the check. */
const weightWindow = (checkedAt: Date | null): { from: string; to: string } | null =>
  checkedAt === null ? null : { from: new Date(checkedAt.getTime() - JUDGE_WEIGHT_RULE.windowDays * DAY_MS).toISOString(), to: checkedAt.toISOString() };

const viewOf = (e: EvaluatorWithSecret): EvaluatorView => {
  const info = evaluatorInfo(e);
  return {
    ...info,
    weight: { ...info.weight, checkedAt: info.weight.checkedAt?.toISOString() ?? null, window: weightWindow(info.weight.checkedAt), rule: WEIGHT_RULE_TEXT },
    createdAt: info.createdAt.toISOString(),
    updatedAt: info.updatedAt.toISOString(),
  };
};

const callViewOf = (evaluatorId: string, c: EvaluatorCallInfo): z.infer<typeof callView> => ({
  ...c,
  deadLetter: c.status === 'dead',
  createdAt: c.createdAt.toISOString(),
  completedAt: c.completedAt?.toISOString() ?? null,
  nextAttemptAt: c.nextAttemptAt?.toISOString() ?? null,
  links: {
    response: `/v1/responses/${encodeURIComponent(c.responseId)}`,
    retry: c.status === 'dead' ? `/v1/evaluators/${evaluatorId}/calls/${c.id}/retry` : null,
  },
});

const backfillViewOf = (b: BackfillInfo): z.infer<typeof backfillView> => ({
  ...b,
  since: b.since.toISOString(),
  until: b.until.toISOString(),
  createdAt: b.createdAt.toISOString(),
  finishedAt: b.finishedAt?.toISOString() ?? null,
});

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
