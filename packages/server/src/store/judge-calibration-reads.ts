/**
 * What a judge's calibration reads (issue 28): the evaluator's answered calls in a period with
 * their events (latest answer per item), and the human events on the same units: reviews and
 * users' explicit votes on the responses, reviewers' preferences on the pairwise items. Events
 * that were retracted, replaced by a newer vote or dropped as duplicates are left out.
 */
import type { JudgedUnit, LabelEvent } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';

/** Judged units read at most per calibration (the newest answers). */
export const CALIBRATION_MAX_UNITS = 20_000;

const LIVE = 'e.duplicate_of IS NULL AND e.superseded_by IS NULL AND e.retracted_at IS NULL';

/**
 * The judged units of an evaluator whose answers came in [from, to), each with the humans' events;
 * `week` is the day of the judge's answer (the caller turns it into a week).
 *
 * @example
 * await judgedUnits(db, 'ws_1', 'ev_…', from, to)
 */
export async function judgedUnits(db: SqlExecutor, workspaceId: string, evaluatorId: string, from: Date, to: Date): Promise<Array<JudgedUnit & { answeredDay: string }>> {
  const answers = await db.query<{ item_key: string; response_id: string; response_b_id: string | null; day: string; type: string; payload: Record<string, unknown> }>(
    `SELECT DISTINCT ON (c.item_key) c.item_key, c.response_id, c.response_b_id, to_char(c.completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, e.type, e.payload
       FROM evaluator_calls c
       JOIN feedback_events e ON e.workspace_id = c.workspace_id AND e.response_id = c.response_id AND e.id = c.event_id AND e.retracted_at IS NULL
      WHERE c.workspace_id = $1 AND c.evaluator_id = $2 AND c.status = 'done' AND c.completed_at >= $3 AND c.completed_at < $4
      ORDER BY c.item_key, c.completed_at DESC
      LIMIT ${CALIBRATION_MAX_UNITS}`,
    [workspaceId, evaluatorId, from, to],
  );
  if (answers.length === 0) return [];
  const responseIds = [...new Set(answers.map((a) => a.response_id))];
  const human = await db.query<{ response_id: string; type: string; source: string; payload: Record<string, unknown>; item: string | null }>(
    `SELECT e.response_id, e.type, e.source, e.payload, e.metadata->>'reviewItemId' AS item
       FROM feedback_events e
      WHERE e.workspace_id = $1 AND e.response_id = ANY($2::text[]) AND ${LIVE}
        AND ((e.source = 'explicit' AND e.type IN ('thumbs_up', 'thumbs_down', 'rating'))
          OR (e.source = 'review' AND e.type IN ('review', 'preference')))`,
    [workspaceId, responseIds],
  );
  const reviews = new Map<string, LabelEvent[]>();
  const votes = new Map<string, LabelEvent[]>();
  const preferences = new Map<string, LabelEvent[]>();
  const push = (m: Map<string, LabelEvent[]>, key: string, e: LabelEvent) => {
    const list = m.get(key) ?? [];
    list.push(e);
    m.set(key, list);
  };
  for (const h of human) {
    const e = { type: h.type, payload: h.payload };
    if (h.type === 'preference') {
      if (h.item !== null) push(preferences, h.item, e);
    } else if (h.source === 'review') push(reviews, h.response_id, e);
    else push(votes, h.response_id, e);
  }
  return answers.map((a) => ({
    unitId: a.item_key,
    responseId: a.response_id,
    week: a.day,
    answeredDay: a.day,
    judge: { type: a.type, payload: a.payload },
    ...(a.response_b_id === null ? {} : { pair: [a.response_id, a.response_b_id] as const }),
    reviews: reviews.get(a.response_id) ?? [],
    votes: votes.get(a.response_id) ?? [],
    preferences: preferences.get(a.item_key) ?? [],
  }));
}
