/**
 * `POST /v1/alert-rules/preview`: what a rule set (the one being edited, not yet saved) would have
 * fired over the last days (30 by default), replayed hourly over the processed signals, and
 * judge_agreement rules over each judge's answers and the humans' events as they stood at each
 * hour. Nothing is stored and nobody is notified.
 */
import { DAY_MS, alertRuleSetSchema, HOUR_MS, MAX_BASELINE_DAYS, MAX_WINDOW_HOURS, previewAlerts } from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { judgeAgreementHistory } from '../../pipeline/judge-agreement-windows.js';
import { readPastHourlyCounts, readPastRegistered } from '../../store/alert-history.js';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';

const previewBody = alertRuleSetSchema.extend({ days: z.number().int().min(1).max(90).default(30).describe('How far back to replay (days)') });

const previewed = z.object({
  ruleId: z.string(),
  severity: z.string(),
  labels: z.record(z.string(), z.string()),
  metric: z.string(),
  value: z.number(),
  threshold: z.number(),
  message: z.string(),
  firedAt: z.string(),
  resolvedAt: z.string().nullable(),
});

/** The alert preview route. */
export const alertPreviewRoutes: FastifyPluginAsync<AppServices> = async (app, { db }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post('/v1/alert-rules/preview', {
    schema: {
      summary: 'What these alert rules would have fired over the last days (default 30); nothing is saved',
      tags: ['alerts'],
      body: previewBody,
      response: { 200: z.object({ from: z.string(), to: z.string(), alerts: z.array(previewed) }) },
    },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const to = new Date();
      const from = new Date(to.getTime() - request.body.days * DAY_MS);
      // The first replayed hour needs its window and a baseline before it.
      const readFrom = new Date(from.getTime() - MAX_WINDOW_HOURS * HOUR_MS - MAX_BASELINE_DAYS * DAY_MS);
      const [buckets, registered, judges] = await Promise.all([
        readPastHourlyCounts(db, workspaceId, readFrom),
        readPastRegistered(db, workspaceId, readFrom),
        judgeAgreementHistory(db, workspaceId, request.body.rules, from, to),
      ]);
      const alerts = previewAlerts({ rules: request.body.rules, buckets, registered, from, to, judges });
      return {
        from: from.toISOString(),
        to: to.toISOString(),
        alerts: alerts.map((a) => ({ ...a, firedAt: a.firedAt.toISOString(), resolvedAt: a.resolvedAt?.toISOString() ?? null })),
      };
    },
  });
};
