/**
 * The summary of one session's feedback that the Feedback-and-RLHF seed's
 * `GET /api/v1/feedback/summary?session_id=` answers. Pure, so the rates have one definition
 * that the store, the API and the tests share. Field names are the seed's snake_case.
 */
import { percentOf } from '../stats/daily-metrics.js';

/** One stored feedback event of the session, as much of it as the summary needs. */
export interface SessionFeedbackEvent {
  responseId: string;
  type: string;
  occurredAt: Date | string;
  /** The stars of a `rating` event; ignored for other types. */
  rating?: number | null;
  /** Set when the same voter's newer vote replaced this one. */
  supersededBy?: string | null;
  /** Set when this repeats an earlier event's content inside the dedup window. */
  duplicateOf?: string | null;
}

/**
 * A session's feedback in numbers. Only counted events enter: a vote replaced by the same
 * voter's newer vote, and a content duplicate, are left out, so a user who clicks up, then
 * down, then down again counts once, as down. Every rate is a percentage 0–100 with 2 decimals
 * (feedloop's one unit for rates, docs/metrics.md "Units"), or `null` when its denominator is 0
 * (no votes is not a 0 % approval).
 */
export interface SessionSummary {
  session_id: string;
  /** Counted events of all types. */
  total: number;
  /** Counted events per type, keys sorted. */
  by_type: Record<string, number>;
  /** The seed's feedback_positive_rate: thumbs_up over thumbs_up + thumbs_down. */
  positive_rate: number | null;
  /**
   * The seed's feedback_correction_rate ("responses requiring correction"): responses with at
   * least one correction over {@link SessionSummary.response_count}.
   */
  correction_rate: number | null;
  /**
   * The seed's feedback_escalation_rate, per response within one session: responses with at
   * least one escalation over {@link SessionSummary.response_count}.
   */
  escalation_rate: number | null;
  /** The mean of the counted `rating` events' stars (1-5). */
  average_rating: number | null;
  /**
   * The session's responses that received counted feedback of any type: the denominator of
   * the correction and escalation rates. A response nobody reacted to says nothing either
   * way, so it is not counted as "needed no correction".
   */
  response_count: number;
  /** The earliest counted event's time (ISO 8601), `null` without events. */
  first_feedback_at: string | null;
  /** The latest counted event's time (ISO 8601), `null` without events. */
  last_feedback_at: string | null;
}

const mean = (sum: number, count: number): number | null => (count === 0 ? null : sum / count);

/**
 * Summarizes the events of one session (the caller selects them: the events' own
 * `session_id`, or their response's).
 *
 * @example
 * summarizeSession('s1', [
 *   { responseId: 'r1', type: 'thumbs_up', occurredAt: '2026-01-01T10:00:00Z' },
 *   { responseId: 'r2', type: 'correction', occurredAt: '2026-01-01T10:05:00Z' },
 * ])
 * // { session_id: 's1', total: 2, by_type: { correction: 1, thumbs_up: 1 }, positive_rate: 100,
 * //   correction_rate: 50, escalation_rate: 0, average_rating: null, response_count: 2,
 * //   first_feedback_at: '2026-01-01T10:00:00.000Z', last_feedback_at: '2026-01-01T10:05:00.000Z' }
 */
export function summarizeSession(sessionId: string, events: readonly SessionFeedbackEvent[]): SessionSummary {
  const counted = events.filter((e) => !e.supersededBy && !e.duplicateOf);
  const byType = new Map<string, number>();
  const responses = new Set<string>();
  const corrected = new Set<string>();
  const escalated = new Set<string>();
  let stars = 0;
  let ratings = 0;
  let first: number | undefined;
  let last: number | undefined;
  for (const e of counted) {
    byType.set(e.type, (byType.get(e.type) ?? 0) + 1);
    responses.add(e.responseId);
    if (e.type === 'correction') corrected.add(e.responseId);
    if (e.type === 'escalation') escalated.add(e.responseId);
    if (e.type === 'rating' && typeof e.rating === 'number') {
      stars += e.rating;
      ratings += 1;
    }
    const t = new Date(e.occurredAt).getTime();
    first = first === undefined ? t : Math.min(first, t);
    last = last === undefined ? t : Math.max(last, t);
  }
  const up = byType.get('thumbs_up') ?? 0;
  const down = byType.get('thumbs_down') ?? 0;
  return {
    session_id: sessionId,
    total: counted.length,
    by_type: Object.fromEntries([...byType.entries()].sort(([a], [b]) => (a < b ? -1 : 1))),
    positive_rate: percentOf(up, up + down),
    correction_rate: percentOf(corrected.size, responses.size),
    escalation_rate: percentOf(escalated.size, responses.size),
    average_rating: mean(stars, ratings),
    response_count: responses.size,
    first_feedback_at: first === undefined ? null : new Date(first).toISOString(),
    last_feedback_at: last === undefined ? null : new Date(last).toISOString(),
  };
}
