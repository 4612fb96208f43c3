/**
 * Quality alerts: `GET/PUT /v1/alert-rules` (a workspace's rule set; the Phase 4.1 defaults until
 * it sets its own), `GET /v1/alerts?state=` (its alerts), and `GET /api/rag/feedback/alerts` (the
 * firing ones as Phase 4.1 `QualityAlert`s). Secret keys only: rules decide who gets paged.
 */
import { ALERT_RULE_KINDS, ALERT_SEVERITIES, JUDGE_AGREEMENT_STATISTICS, alertRuleSetSchema, fieldPath, judgeRuleEvaluatorId, toQualityAlert, type AlertRule } from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FeedloopError } from '../../errors.js';
import { watchActiveAlerts } from '../../metrics.js';
import { listAlerts, openAlertLabels, readAlert, type AlertRecord } from '../../store/alerts.js';
import { readAlertRules, writeAlertRules, type AlertRuleSet } from '../../store/alert-rules.js';
import { findEvaluator } from '../../store/evaluators.js';
import type { SqlExecutor } from '../../db/sql-client.js';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';

/** Alerts listed at most (newest first). */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1_000;

const ruleView = z.object({
  id: z.string(),
  kind: z.enum(ALERT_RULE_KINDS),
  severity: z.enum(ALERT_SEVERITIES),
  threshold: z.number(),
  windowHours: z.number(),
  minSample: z.number(),
  forSeconds: z.number(),
  hysteresis: z.number(),
  baselineDays: z.number().optional(),
  minCount: z.number().optional(),
  maxPValue: z.number().optional(),
  metric: z.string().optional().describe('score_mean: score:<name>; judge_agreement: judge_agreement:<evaluator id>'),
  direction: z.enum(['below', 'above']).optional().describe('score_mean only'),
  statistic: z.enum(JUDGE_AGREEMENT_STATISTICS).optional().describe('judge_agreement only: kappa or agreement'),
  windowDays: z.number().optional().describe('judge_agreement only: the calibration window in days'),
  enabled: z.boolean(),
});

/**
 * What the schema cannot check: every judge_agreement rule names an evaluator of the workspace
 * (a rule about a judge that does not exist would sit in "not enough data" forever).
 */
async function checkJudgeRules(db: SqlExecutor, workspaceId: string, rules: readonly AlertRule[]): Promise<void> {
  for (const [i, rule] of rules.entries()) {
    const evaluatorId = judgeRuleEvaluatorId(rule);
    if (evaluatorId === undefined || (await findEvaluator(db, workspaceId, evaluatorId))) continue;
    const field = fieldPath(['rules', i, 'metric']);
    throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', `${field}: no evaluator ${JSON.stringify(evaluatorId)} in this workspace`, { field });
  }
}

const ruleSetView = z.object({
  rules: z.array(ruleView),
  default: z.boolean().describe('true: the workspace never set rules, these are the defaults'),
  updatedAt: z.string().nullable(),
});

const alertView = z.object({
  id: z.string(),
  ruleId: z.string(),
  fingerprint: z.string(),
  kind: z.enum(ALERT_RULE_KINDS),
  severity: z.enum(ALERT_SEVERITIES),
  state: z.enum(['pending', 'firing', 'resolved']),
  labels: z.record(z.string(), z.string()),
  metric: z.string(),
  value: z.number(),
  threshold: z.number(),
  sample: z.number(),
  message: z.string(),
  activeAt: z.string(),
  firedAt: z.string().nullable(),
  resolvedAt: z.string().nullable(),
  updatedAt: z.string(),
});

const qualityAlertView = z.object({
  id: z.string(),
  type: z.enum(['satisfaction_drop', 'high_negative_rate', 'category_spike']),
  severity: z.enum(ALERT_SEVERITIES),
  message: z.string(),
  metric: z.string(),
  threshold: z.number(),
  currentValue: z.number(),
  triggeredAt: z.string(),
});

const alertsQuery = z.strictObject({
  state: z.enum(['firing', 'resolved', 'all']).default('firing').describe('firing (default), resolved, or all (pending included)'),
  limit: z.coerce.number().int().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT),
});

const ruleSetViewOf = (set: AlertRuleSet): z.infer<typeof ruleSetView> => ({
  rules: set.rules.map((r: AlertRule) => ({ ...r })),
  default: set.isDefault,
  updatedAt: set.updatedAt?.toISOString() ?? null,
});

const alertViewOf = (a: AlertRecord): z.infer<typeof alertView> => ({
  ...a,
  activeAt: a.activeAt.toISOString(),
  firedAt: a.firedAt?.toISOString() ?? null,
  resolvedAt: a.resolvedAt?.toISOString() ?? null,
  updatedAt: a.updatedAt.toISOString(),
});

/** The alert routes. */
export const alertRoutes: FastifyPluginAsync<AppServices> = async (app, { db, metrics }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  watchActiveAlerts(metrics, () => openAlertLabels(db));

  r.get('/v1/alert-rules', {
    schema: { summary: "The workspace's quality-alert rules (the defaults until it sets its own)", tags: ['alerts'], response: { 200: ruleSetView } },
    handler: async (request) => ruleSetViewOf(await readAlertRules(db, authOf(request).workspaceId)),
  });

  r.put('/v1/alert-rules', {
    schema: {
      summary: "Replace the workspace's quality-alert rules; see docs/alerts.md for each field",
      tags: ['alerts'],
      body: alertRuleSetSchema,
      response: { 200: ruleSetView },
    },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      await checkJudgeRules(db, workspaceId, request.body.rules);
      return ruleSetViewOf(await writeAlertRules(db, workspaceId, request.body.rules));
    },
  });

  r.get('/v1/alerts', {
    schema: {
      summary: "The workspace's alerts, newest first",
      tags: ['alerts'],
      querystring: alertsQuery,
      response: { 200: z.object({ alerts: z.array(alertView) }) },
    },
    handler: async (request) => {
      const { state, limit } = request.query;
      return { alerts: (await listAlerts(db, authOf(request).workspaceId, state, limit)).map(alertViewOf) };
    },
  });

  r.get('/v1/alerts/:id', {
    schema: {
      summary: 'One alert: the page a notification links to',
      tags: ['alerts'],
      params: z.strictObject({ id: z.string().min(1).max(200).regex(/^[A-Za-z0-9_-]+$/, 'not an alert id') }),
      response: { 200: alertView },
    },
    handler: async (request) => {
      const alert = await readAlert(db, authOf(request).workspaceId, request.params.id);
      if (alert === undefined) {
        throw new FeedloopError('FEEDLOOP_ERR_ALERT_NOT_FOUND', `id: no alert ${JSON.stringify(request.params.id)} in this workspace`, { field: 'id' });
      }
      return alertViewOf(alert);
    },
  });

  r.get('/api/rag/feedback/alerts', {
    schema: {
      summary: 'Phase 4.1: the firing quality alerts as QualityAlert',
      tags: ['compat'],
      response: { 200: z.array(qualityAlertView) },
    },
    handler: async (request) => {
      const firing = await listAlerts(db, authOf(request).workspaceId, 'firing', MAX_LIMIT);
      return firing.map((a) => toQualityAlert({ ...a, firedAt: a.firedAt ?? a.activeAt }));
    },
  });
};
