/**
 * The evaluator routes' wire (evaluators.ts): request schemas and bounds, the views they answer,
 * and the mapping of stored evaluators, calls and backfills to those views.
 */
import { EVALUATOR_DEFAULTS, EVALUATOR_KINDS, EVALUATOR_LIMITS, EVALUATOR_OUTPUTS, DAY_MS, JUDGE_WEIGHT_RULE } from '@feedloop/core';
import { z } from 'zod';
import type { BackfillInfo } from '../../store/evaluator-backfills.js';
import { EVALUATOR_CALL_STATUSES, type EvaluatorCallInfo } from '../../store/evaluator-calls.js';
import { evaluatorInfo, type EvaluatorWithSecret } from '../../store/evaluators.js';

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

/** `POST /v1/evaluators`: every field, the optional ones with their defaults. */
export const createBody = z.strictObject({
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

/** `PATCH /v1/evaluators/:id`: any of the fields; `secret` rotates the signing secret. */
export const patchBody = z.strictObject({
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

/** An evaluator as answered: its fields, call counts and weight state. */
export const evaluatorView = z.object({
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

/** One call of the call log. */
export const callView = z.object({
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

/** `POST …/backfill`: the period and the items to judge at most. */
export const backfillBody = z.strictObject({
  since: z.iso.datetime({ offset: true }).describe('Items created at or after this'),
  until: z.iso.datetime({ offset: true }).optional().describe('Items created before this; default now'),
  limit: z.number().int().min(1).max(MAX_BACKFILL).default(DEFAULT_BACKFILL).describe('Items judged at most'),
});

/** A backfill and its progress. */
export const backfillView = z.object({
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
export const DEFAULT_CALIBRATION_DAYS = 90;
/** `GET …/calibration`: the period (ISO instants), 90 days to now by default. */
export const calibrationQuery = z.strictObject({
  from: z.iso.datetime({ offset: true }).optional().describe('Answers from this instant; default 90 days before `to`'),
  to: z.iso.datetime({ offset: true }).optional().describe('Answers before this instant; default now'),
});

const safeId = z.string().min(1).max(ID_MAX_LENGTH).regex(/^[A-Za-z0-9_-]+$/, 'not an id');
/** Route parameters: an evaluator, one of its calls, one of its backfills. */
export const idParams = z.strictObject({ id: safeId });
export const callParams = z.strictObject({ id: safeId, callId: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER) });
export const backfillParams = z.strictObject({ id: safeId, backfillId: safeId });
/** `GET …/calls`: paging and a status filter. */
export const callsQuery = z.strictObject({
  status: z.enum(EVALUATOR_CALL_STATUSES).optional(),
  cursor: z.string().max(ID_MAX_LENGTH).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(DEFAULT_PAGE),
});

type EvaluatorView = z.infer<typeof evaluatorView>;

const WEIGHT_RULE_TEXT = `${JUDGE_WEIGHT_RULE.share} × the human weight while Cohen's kappa over the last ${JUDGE_WEIGHT_RULE.windowDays} days ≥ ${JUDGE_WEIGHT_RULE.minKappa} with n ≥ ${JUDGE_WEIGHT_RULE.minN}, else 0`;

/** The period of the weight check's kappa and n: the rule's days up to the check. */
const weightWindow = (checkedAt: Date | null): { from: string; to: string } | null =>
  checkedAt === null ? null : { from: new Date(checkedAt.getTime() - JUDGE_WEIGHT_RULE.windowDays * DAY_MS).toISOString(), to: checkedAt.toISOString() };

/** An evaluator as the API shows it (never its secret), with its weight state and rule. */
export const viewOf = (e: EvaluatorWithSecret): EvaluatorView => {
  const info = evaluatorInfo(e);
  return {
    ...info,
    weight: { ...info.weight, checkedAt: info.weight.checkedAt?.toISOString() ?? null, window: weightWindow(info.weight.checkedAt), rule: WEIGHT_RULE_TEXT },
    createdAt: info.createdAt.toISOString(),
    updatedAt: info.updatedAt.toISOString(),
  };
};

/** A call as `GET …/calls` lists it, with its links (a dead letter's retry). */
export const callViewOf = (evaluatorId: string, c: EvaluatorCallInfo): z.infer<typeof callView> => ({
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

/** A backfill with its progress, as `…/backfills` lists it. */
export const backfillViewOf = (b: BackfillInfo): z.infer<typeof backfillView> => ({
  ...b,
  since: b.since.toISOString(),
  until: b.until.toISOString(),
  createdAt: b.createdAt.toISOString(),
  finishedAt: b.finishedAt?.toISOString() ?? null,
});
