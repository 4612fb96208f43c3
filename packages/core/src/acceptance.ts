/**
 * The rules that decide whether a valid event is accepted, given its response and the clock:
 * the feedback window, timestamps, content duplicates and vote changes. Pure, so the ingest path
 * and its tests share one definition.
 */
import type { ErrorBody } from './error-codes.js';
import type { FeedbackEvent } from './event-schema.js';
import { sourceOfEvent } from './event-types.js';
import { LIMITS } from './limits.js';
import type { WorkspaceSettings } from './workspace-settings.js';

/** What the acceptance rules need to know about the response an event names. */
export interface ResponseFacts {
  createdAt: Date;
}

/** The verdict on one event: its effective time, or why it is rejected. */
export type Judgement = { ok: true; occurredAt: Date } | { ok: false; error: ErrorBody };

/**
 * Judges a validated event against its response and the workspace settings.
 *
 * - The event's time is its `occurredAt`, or `now`. Untrusted clients (public keys) always get
 *   `now`: a browser clock could otherwise reopen a closed window.
 * - A time more than {@link LIMITS.futureSkewMs} in the future, or before the response (less the
 *   same skew), is rejected.
 * - Explicit signals later than `feedbackWindowHours` after the response are rejected; implicit
 *   and outcome signals (long-term edits, continued use, metrics) are not bound by the window,
 *   nor are judgements of the review and judge sources (a review queue reaches a response later).
 *
 * @example
 * judgeFeedback(event, { createdAt: new Date('2026-01-01T00:00:00Z') }, settings, new Date('2026-01-03T00:00:00Z'), true)
 * // { ok: false, error: { code: 'FEEDLOOP_ERR_FEEDBACK_WINDOW_CLOSED', ... } } for an explicit event
 */
export function judgeFeedback(
  event: FeedbackEvent,
  response: ResponseFacts,
  settings: WorkspaceSettings,
  now: Date,
  trustClientTime: boolean,
): Judgement {
  const occurredAt = trustClientTime && event.occurredAt ? new Date(event.occurredAt) : now;
  if (occurredAt.getTime() > now.getTime() + LIMITS.futureSkewMs) {
    return reject('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'occurredAt', 'occurredAt: lies in the future');
  }
  const sinceResponseMs = occurredAt.getTime() - response.createdAt.getTime();
  if (sinceResponseMs < -LIMITS.futureSkewMs) {
    return reject('FEEDLOOP_ERR_FEEDBACK_BEFORE_RESPONSE', 'occurredAt', 'occurredAt: is before the response was created');
  }
  const windowMs = settings.feedbackWindowHours * 3_600_000;
  // The window bounds a user's explicit reaction; a reviewer's or an evaluator's judgement
  // (sources review, judge) comes when the queue reaches the response, often days later.
  if (sourceOfEvent(event) === 'explicit' && sinceResponseMs > windowMs) {
    return reject(
      'FEEDLOOP_ERR_FEEDBACK_WINDOW_CLOSED',
      'responseId',
      `responseId: explicit feedback is accepted for ${settings.feedbackWindowHours} h after the response`,
    );
  }
  return { ok: true, occurredAt };
}

function reject(code: ErrorBody['code'], field: string, message: string): Judgement {
  return { ok: false, error: { code, field, message } };
}

/**
 * JSON with object keys sorted, so equal payloads give equal strings whatever their key order.
 *
 * @example
 * stableStringify({ b: 1, a: [2, { d: 3, c: 4 }] }) // '{"a":[2,{"c":4,"d":3}],"b":1}'
 */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
}

/**
 * The content identity of an event for the dedup window: same user (or session), response,
 * target, type and payload. An anonymous event (neither user nor session) is identified by
 * `client`, a keyed hash of its IP address and user agent, when the route supplies one (Phase
 * 4.1's duplicate prevention, issue 24); without it an anonymous event has no identity to
 * compare and is never a content duplicate (`undefined`).
 *
 * @example
 * contentFingerprint({ responseId: 'r', userId: 'u', type: 'thumbs_up', payload: {} })
 * // '["u","r","","thumbs_up",{}]' (as a string)
 * contentFingerprint({ responseId: 'r', type: 'thumbs_up', payload: {} }, 'c1f…') // '["client:c1f…","r",…]'
 */
export function contentFingerprint(event: FeedbackEvent, client?: string): string | undefined {
  const who = voterOf(event) ?? (client ? `client:${client}` : undefined);
  if (who === undefined) return undefined;
  return `[${JSON.stringify(who)},${JSON.stringify(event.responseId)},${JSON.stringify(event.targetId ?? '')},${JSON.stringify(event.type)},${stableStringify(event.payload)}]`;
}

/**
 * Who an event votes as: its user, else its session (`session:<id>`). A reviewer's vote is kept
 * apart from the same id's own votes (`review:<user>`), and a judge votes as its evaluator
 * (`judge:<evaluatorId>`) whatever user it names, so a judge re-judging a response replaces its
 * answer and never a user's. `undefined`: nobody to replace votes for.
 *
 * @example
 * voterOf({ type: 'thumbs_up', userId: 'u', responseId: 'r', payload: {} }) // 'u'
 * voterOf({ type: 'thumbs_up', source: 'judge', metadata: { evaluatorId: 'e1' }, responseId: 'r', payload: {} }) // 'judge:e1'
 */
export function voterOf(event: FeedbackEvent): string | undefined {
  const source = sourceOfEvent(event);
  if (source === 'judge') {
    const id = event.metadata?.['evaluatorId'];
    return typeof id === 'string' && id !== '' ? `judge:${id}` : undefined;
  }
  const who = event.userId ?? (event.sessionId ? `session:${event.sessionId}` : undefined);
  if (who === undefined) return undefined;
  return source === 'review' ? `review:${who}` : who;
}

/**
 * The vote slot of an event: events in one slot replace each other for one user, the newest
 * counting (thumbs up then down is one vote, down). Thumbs share one slot; star ratings and
 * usefulness ratings have one per aspect (and target), named scores one per name (and target).
 * Other types are not votes: `undefined`.
 *
 * @example
 * voteSlot({ type: 'thumbs_down', userId: 'u', responseId: 'r', payload: {} }) // 'thumbs:""'
 * voteSlot({ type: 'rating', userId: 'u', responseId: 'r', payload: { rating: 3, aspect: 'tone' } }) // 'rating:"tone"'
 */
export function voteSlot(event: FeedbackEvent): string | undefined {
  if (voterOf(event) === undefined) return undefined;
  switch (event.type) {
    case 'thumbs_up':
    case 'thumbs_down':
      return `thumbs:${JSON.stringify(event.targetId ?? '')}`;
    case 'rating':
      return `rating:${JSON.stringify(event.payload.aspect ?? '')}`;
    case 'rate_usefulness':
      return `usefulness:${JSON.stringify(event.targetId)}:${JSON.stringify(event.payload.aspect ?? '')}`;
    case 'score':
      // One score per (response, name, voter), as issue 26 asks; per target as thumbs are.
      return `score:${JSON.stringify(event.payload.name)}:${JSON.stringify(event.targetId ?? '')}`;
    case 'preference':
      // One preference per voter and pair: the slot names the other response of the pair.
      return `preference:${JSON.stringify(event.payload.pair.find((id) => id !== event.responseId) ?? '')}`;
    default:
      return undefined;
  }
}
