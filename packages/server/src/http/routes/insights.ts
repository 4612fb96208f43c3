/**
 * `GET /v1/insights?from=&to=`: the Feedback-and-RLHF seed's insights report for a workspace: the
 * most common correction patterns, the agents and models with the lowest satisfaction, the query
 * types with the highest escalation rate, and rising comment themes, each naming the events
 * behind it. The route reads (the bounded event read with the corrections' stored classifications,
 * and the rollup sums, store/insights-queries.ts) and hands everything to core's pure rankings.
 * Definitions: docs/insights.md.
 */
import {
  countCorrectionPatterns,
  eventSample,
  highestEscalation,
  commentPolarity,
  lowestSatisfaction,
  phraseThemes,
  semanticSameTheme,
  sqlCorrectionsBy,
  utcDay,
  type PhraseComment,
  type ClassifiedCorrection,
  type EventSample,
  type Ranking,
  DAY_MS,
} from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { embedPhrases } from '../../emit/embedding-client.js';
import { commentPhrasesOf, sentimentOf } from '../../nlp.js';
import { CorrectionClassCache, fromStoredClass } from '../../store/correction-class.js';
import { INSIGHT_EVENTS_LIMIT, readDimensionTotals, readInsightEvents, type InsightEvent } from '../../store/insights-queries.js';
import { authOf } from '../auth.js';
import { heavyReadClient } from '../../db/sql-client.js';
import type { AppServices } from '../services.js';

/** The default range: the last 30 days, today included. */
const DEFAULT_DAYS = 30;
/** The longest range a report covers (the event read stays bounded by its limit regardless). */
const MAX_DAYS = 366;
/** Entries per ranking and themes listed. */
const LISTED = 10;
/**
 * Corrections counted per report at most (the newest). Their classifications are stored by the
 * pipeline; the cap bounds the report's own classifying of those without one (processed before
 * migration 0021, or not yet processed): 1-2 ms each for a short SQL correction.
 */
const CORRECTIONS_CLASSIFIED = 1_000;

/**
 * Whether a string is a calendar day `YYYY-MM-DD` of the years 1970-9998 (Date.parse rolls
 * 2026-02-30 over to March and gives NaN for month 13; the years keep the previous period and the
 * day after `to` within what both JavaScript's ISO strings and Postgres read).
 */
function isDay(d: string): boolean {
  const at = Date.parse(`${d}T00:00:00Z`);
  const year = Number(d.slice(0, 4));
  return /^\d{4}-\d{2}-\d{2}$/.test(d) && year >= 1970 && year <= 9998 && Number.isFinite(at) && utcDay(new Date(at)) === d;
}

const day = z.string().refine(isDay, 'must be a UTC calendar day, YYYY-MM-DD, of the years 1970-9998');

const query = z
  .strictObject({ from: day.optional(), to: day.optional() })
  .superRefine((q, ctx) => {
    // zod runs this even when a field failed above: the range is only judged between valid days.
    if ((q.from !== undefined && !isDay(q.from)) || (q.to !== undefined && !isDay(q.to))) return;
    const { from, to } = rangeOf(q, new Date());
    if (from > to) ctx.addIssue({ code: 'custom', path: ['from'], message: `must not be after to (${to})` });
    else if (daysBetween(from, to) + 1 > MAX_DAYS) ctx.addIssue({ code: 'custom', path: ['from'], message: `the range may span at most ${MAX_DAYS} days` });
  });

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

function addDays(d: string, n: number): string {
  return utcDay(new Date(Date.parse(`${d}T00:00:00Z`) + n * DAY_MS));
}

/** The asked days, defaults filled: `to` today (UTC), `from` 29 days before `to`. */
function rangeOf(q: { from?: string | undefined; to?: string | undefined }, now: Date): { from: string; to: string } {
  const to = q.to ?? utcDay(now);
  return { from: q.from ?? addDays(to, -(DEFAULT_DAYS - 1)), to };
}

const startOf = (d: string) => new Date(`${d}T00:00:00Z`);

/** Ids of the read events that match, as the sample beside a count taken from the rollup. */
function sampleOf(events: readonly InsightEvent[], count: number, match: (e: InsightEvent) => boolean): EventSample {
  return eventSample(events.filter(match).map((e) => e.id), count);
}

/** A negative rating: a thumbs down, or 1-2 stars (signals.md). */
const isNegativeRating = (e: InsightEvent) => e.type === 'thumbs_down' || ((e.type === 'rating' || e.type === 'rate_usefulness') && e.rating !== null && e.rating <= 2);

/** The insights route. */
export const insightsRoutes: FastifyPluginAsync<AppServices> = async (app, { db: shared, config }) => {
  // A heavy read: on PGlite its statements wait while a request's statement waits.
  const db = heavyReadClient(shared);
  const r = app.withTypeProvider<ZodTypeProvider>();
  /** Classifications of corrections the pipeline did not classify, by their texts (never stale). */
  const fallback = new CorrectionClassCache();

  r.get('/v1/insights', {
    // A heavy read: under the per-workspace and per-process cap (http/heavy-reads.ts).
    config: { heavyRead: true },
    schema: {
      summary: 'Insights: correction patterns, lowest satisfaction, highest escalation, rising themes (UTC days, default the last 30)',
      tags: ['insights'],
      querystring: query,
    },
    handler: async (request) => {
      const { workspaceId } = authOf(request);
      const { from, to } = rangeOf(request.query, new Date());
      const days = daysBetween(from, to) + 1;
      const previous = { from: addDays(from, -days), to: addDays(from, -1) };
      const [current, before, totals] = await Promise.all([
        readInsightEvents(db, workspaceId, startOf(from), startOf(addDays(to, 1))),
        readInsightEvents(db, workspaceId, startOf(previous.from), startOf(from), { commentsOnly: true }),
        readDimensionTotals(db, workspaceId, from, to),
      ]);
      const events = current.events;

      const corrections = events.filter((e) => e.type === 'correction' && (e.correction !== null || (e.original !== null && e.corrected !== null)));
      const classified = await classificationsOf(corrections.slice(0, CORRECTIONS_CLASSIFIED), fallback);
      const patterns = countCorrectionPatterns(classified).slice(0, 2 * LISTED);
      // The RLHF seed's "correction patterns by schema table", and the same per agent and query type.
      const correctionOf = new Map(corrections.map((e) => [e.id, e]));
      const bySchemaTable = sqlCorrectionsBy(classified, (c) => c.tables);
      const byAgent = sqlCorrectionsBy(classified, (c) => [correctionOf.get(c.eventId)?.agent ?? null].filter((a): a is string => a !== null));
      const byQueryType = sqlCorrectionsBy(classified, (c) => [correctionOf.get(c.eventId)?.queryType ?? null].filter((q): q is string => q !== null));

      const satisfaction = (dimension: 'agent' | 'model') => {
        const ranking = lowestSatisfaction(
          totals.filter((t) => t.dimension === dimension).map((t) => ({ name: t.value, positive: t.positive, negative: t.negative })),
          { limit: LISTED },
        );
        return withEvents(ranking, (item) => sampleOf(events, item.negative, (e) => isNegativeRating(e) && e[dimension] === item.name));
      };
      const escalation = withEvents(
        highestEscalation(
          totals.filter((t) => t.dimension === 'query_type').map((t) => ({ name: t.value, sessions: t.sessions, escalated: t.escalated })),
          { limit: LISTED },
        ),
        (item) => sampleOf(events, item.escalated, (e) => e.type === 'escalation' && e.queryType === item.name),
      );

      const comments = events.filter((e) => e.comment !== null).map(phraseComment);
      const previousComments = before.events.filter((e) => e.comment !== null).map(phraseComment);
      // Semantic clustering through the operator's endpoint when configured; lexical otherwise,
      // and when the endpoint fails (the report says which, and why).
      let sameTheme: ((a: string, b: string) => boolean) | undefined;
      let clustering: { method: 'lexical' | 'embeddings'; error?: string } = { method: 'lexical' };
      if (config.embeddingUrl !== undefined) {
        try {
          sameTheme = semanticSameTheme(await embedPhrases(config.embeddingUrl, phrasesBySupport(comments)));
          clustering = { method: 'embeddings' };
        } catch (err) {
          clustering = { method: 'lexical', error: err instanceof Error ? err.message : String(err) };
        }
      }
      const { complaints, praise } = phraseThemes(comments, previousComments, { limit: LISTED, ...(sameTheme ? { sameTheme } : {}) });
      const shown = (themes: typeof complaints) => themes.map(({ eventIds, ...t }) => ({ ...t, events: eventSample(eventIds) }));

      return {
        workspaceId,
        from,
        to,
        previousPeriod: previous,
        eventsRead: { current: events.length, previous: before.events.length, limit: INSIGHT_EVENTS_LIMIT, sampled: current.sampled || before.sampled },
        correctionPatterns: {
          corrections: classified.length,
          sampled: current.sampled || corrections.length > classified.length,
          patterns,
          bySchemaTable,
          byAgent,
          byQueryType,
        },
        lowestSatisfaction: { agents: satisfaction('agent'), models: satisfaction('model') },
        highestEscalation: { queryTypes: escalation },
        risingThemes: {
          comments: comments.length,
          previousComments: previousComments.length,
          sampled: current.sampled || before.sampled,
          clustering,
          // Complaints (the comments of negative feedback); praise apart.
          themes: shown(complaints),
          praise: shown(praise),
        },
      };
    },
  });
};

/**
 * A comment as themes read it: its phrases (wink-nlp, server/src/nlp.ts) and its side, the
 * feedback's own polarity (or, for a plain comment, its sentiment).
 */
function phraseComment(e: InsightEvent): PhraseComment {
  const text = e.comment ?? '';
  const polarity = commentPolarity(e.type, e.rating, e.type === 'comment' || e.type === 'add_note' ? sentimentOf(text) : 0);
  return { eventId: e.id, userId: e.userId, polarity, phrases: commentPhrasesOf(text) };
}

/** The distinct phrases of the comments, most said first (what the embedding endpoint is sent). */
function phrasesBySupport(comments: readonly PhraseComment[]): string[] {
  const counts = new Map<string, number>();
  for (const c of comments) for (const p of new Set(c.phrases)) counts.set(p, (counts.get(p) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([p]) => p);
}

function withEvents<T>(ranking: Ranking<T>, events: (item: T) => EventSample): Ranking<T & { events: EventSample }> {
  return { ...ranking, ranked: ranking.ranked.map((item) => ({ ...item, events: events(item) })) };
}

/**
 * The corrections' classifications, in their order: the stored one when the pipeline made it,
 * else classified here (each text once per process, in slices that yield to the event loop).
 */
async function classificationsOf(corrections: readonly InsightEvent[], fallback: CorrectionClassCache): Promise<ClassifiedCorrection[]> {
  const unclassified = corrections.filter((e) => e.correction === null);
  const computed = await fallback.classify(unclassified.map((e) => ({ eventId: e.id, original: e.original ?? '', corrected: e.corrected ?? '', format: e.format })));
  const byId = new Map(computed.map((c) => [c.eventId, c]));
  return corrections.map((e) => (e.correction !== null ? fromStoredClass(e.id, e.correction) : (byId.get(e.id) as ClassifiedCorrection)));
}
