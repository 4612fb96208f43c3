/**
 * `/v1/stats/live` (today's live counters, straight from the counters: no scan) and
 * `/v1/pipeline` (the workspace's processing backlog and failed events). The shared queue's counts
 * are not shown to a workspace: they tell how busy the others are.
 */
import { liveStatsFromFields, utcDay } from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FeedloopError } from '../../errors.js';
import { pendingBacklog } from '../../store/pipeline-pending.js';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';

const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
/** Failed events listed at most. */
const FAILED_LISTED = 100;

/** The stats and pipeline routes. */
export const statsRoutes: FastifyPluginAsync<AppServices> = async (app, { db, pipeline }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get('/v1/stats/live', {
    schema: {
      summary: "Today's live counters (by the event's own UTC day: occurredAt, else receipt, as the rollups): events by type, polarity and severity",
      tags: ['stats'],
      querystring: z.object({ day: z.string().regex(DAY_PATTERN, 'must be a UTC day, YYYY-MM-DD').optional() }),
    },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const day = request.query.day ?? utcDay(new Date());
      let fields: Record<string, number>;
      try {
        fields = await pipeline.liveCounters.read(workspaceId, day);
      } catch (err) {
        throw new FeedloopError('FEEDLOOP_ERR_UNAVAILABLE', 'the live counters did not answer; retry', { cause: err });
      }
      // dayBasis says which day rule the counts follow (the card shows it).
      return { workspaceId, dayBasis: 'occurredAt' as const, ...liveStatsFromFields(day, fields) };
    },
  });

  r.get('/v1/pipeline', {
    schema: { summary: "The workspace's processing backlog and failed events", tags: ['stats'] },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const [backlog, failed] = await Promise.all([
        pendingBacklog(db, workspaceId),
        db.query<{ event_id: string; type: string; error: string | null; processed_at: Date }>(
          `SELECT event_id, type, error, processed_at FROM feedback_signals
            WHERE workspace_id = $1 AND status = 'failed' ORDER BY processed_at DESC LIMIT $2`,
          [workspaceId, FAILED_LISTED],
        ),
      ]);
      return {
        backlog,
        failedEvents: failed.map((f) => ({ eventId: f.event_id, type: f.type, error: f.error, processedAt: f.processed_at.toISOString() })),
      };
    },
  });
};
