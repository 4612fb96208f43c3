/**
 * What a judge's calibration reads (issue 28): the evaluator's answered calls in a period with
 * their events (latest answer per item), and the human events on the same units: reviews and
 * users' explicit votes on the responses, reviewers' preferences on the pairwise items. Events
 * that were retracted, replaced by a newer vote or dropped as duplicates are left out.
 */
import type { JudgedUnit, LabelEvent, TimedJudgeAnswer, TimedLabelEvent } from '@feedloop/core';
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
  const { reviews, votes, preferences } = await humanEvents(db, workspaceId, answers, () => undefined);
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

/**
 * The human events on the units of `answers`: reviews and votes per response, reviewers'
 * preferences per pairwise item; `extra` adds fields to each (the replay's instants).
 */
async function humanEvents<E extends LabelEvent>(
  db: SqlExecutor,
  workspaceId: string,
  answers: ReadonlyArray<{ response_id: string }>,
  extra: (row: { occurred_at: Date }) => Omit<E, keyof LabelEvent> | undefined,
): Promise<{ reviews: Map<string, E[]>; votes: Map<string, E[]>; preferences: Map<string, E[]> }> {
  const responseIds = [...new Set(answers.map((a) => a.response_id))];
  const human = await db.query<{ response_id: string; type: string; source: string; payload: Record<string, unknown>; item: string | null; occurred_at: Date }>(
    `SELECT e.response_id, e.type, e.source, e.payload, e.metadata->>'reviewItemId' AS item, e.occurred_at
       FROM feedback_events e
      WHERE e.workspace_id = $1 AND e.response_id = ANY($2::text[]) AND ${LIVE}
        AND ((e.source = 'explicit' AND e.type IN ('thumbs_up', 'thumbs_down', 'rating'))
          OR (e.source = 'review' AND e.type IN ('review', 'preference')))`,
    [workspaceId, responseIds],
  );
  const reviews = new Map<string, E[]>();
  const votes = new Map<string, E[]>();
  const preferences = new Map<string, E[]>();
  const push = (m: Map<string, E[]>, key: string, e: E) => {
    const list = m.get(key) ?? [];
    list.push(e);
    m.set(key, list);
  };
  for (const h of human) {
    const e = { type: h.type, payload: h.payload, ...extra(h) } as E;
    if (h.type === 'preference') {
      if (h.item !== null) push(preferences, h.item, e);
    } else if (h.source === 'review') push(reviews, h.response_id, e);
    else push(votes, h.response_id, e);
  }
  return { reviews, votes, preferences };
}

/**
 * Every answer of an evaluator that came in [from, to) (an item's several answers each, with
 * the instant of each), and the human events on their units with the instant each happened:
 * what the alert preview replays a judge_agreement rule over (core's `judgeWindowAt`). The newest
 * {@link CALIBRATION_MAX_UNITS} answers at most.
 *
 * @example
 * await timedJudgeAnswers(db, 'ws_1', 'ev_…', from, to)
 */
export async function timedJudgeAnswers(db: SqlExecutor, workspaceId: string, evaluatorId: string, from: Date, to: Date): Promise<TimedJudgeAnswer[]> {
  const answers = await db.query<{ item_key: string; response_id: string; response_b_id: string | null; completed_at: Date; type: string; payload: Record<string, unknown> }>(
    `SELECT c.item_key, c.response_id, c.response_b_id, c.completed_at, e.type, e.payload
       FROM evaluator_calls c
       JOIN feedback_events e ON e.workspace_id = c.workspace_id AND e.response_id = c.response_id AND e.id = c.event_id AND e.retracted_at IS NULL
      WHERE c.workspace_id = $1 AND c.evaluator_id = $2 AND c.status = 'done' AND c.completed_at >= $3 AND c.completed_at < $4
      ORDER BY c.completed_at DESC
      LIMIT ${CALIBRATION_MAX_UNITS}`,
    [workspaceId, evaluatorId, from, to],
  );
  if (answers.length === 0) return [];
  const { reviews, votes, preferences } = await humanEvents<TimedLabelEvent>(db, workspaceId, answers, (h) => ({ at: new Date(h.occurred_at).getTime() }));
  return answers.map((a) => ({
    unitId: a.item_key,
    responseId: a.response_id,
    at: new Date(a.completed_at).getTime(),
    judge: { type: a.type, payload: a.payload },
    ...(a.response_b_id === null ? {} : { pair: [a.response_id, a.response_b_id] as const }),
    reviews: reviews.get(a.response_id) ?? [],
    votes: votes.get(a.response_id) ?? [],
    preferences: preferences.get(a.item_key) ?? [],
  }));
}
