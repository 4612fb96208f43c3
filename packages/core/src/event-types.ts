/**
 * The feedback event taxonomy: every event type feedloop accepts and the signal source it belongs to.
 * Drawn from the five seed documents (ADR-016, ADR-004, ADR-0012, Phase 4.1, Feedback-and-RLHF).
 */

/**
 * Where a signal comes from: a user saying it (`explicit`), a user's behaviour implying it
 * (`implicit`), a measured result (`outcome`), a team's reviewer judging the response (`review`),
 * or an automated evaluator judging it (`judge`). The first three are what users said or did;
 * `review` and `judge` are said about users' responses by someone else, so user-facing figures
 * (satisfaction, thumbs-up rate) leave them out and show them apart (docs/signals.md).
 */
export const SIGNAL_SOURCES = ['explicit', 'implicit', 'outcome', 'review', 'judge'] as const;
/** One of {@link SIGNAL_SOURCES}. */
export type SignalSource = (typeof SIGNAL_SOURCES)[number];

/** The sources a type is born with: what its users said, did or measured. */
export type TypeSource = 'explicit' | 'implicit' | 'outcome';

/**
 * Sources an event may claim instead of its type's own: someone other than the response's user
 * judged it. Only secret keys may claim them (a browser key is a user's); see
 * {@link ATTRIBUTABLE_TYPES} for the types that may carry them.
 */
export const ATTRIBUTED_SOURCES = ['review', 'judge'] as const;
/** One of {@link ATTRIBUTED_SOURCES}. */
export type AttributedSource = (typeof ATTRIBUTED_SOURCES)[number];

/** Every feedback event type with its signal source; the order is the documentation order. */
export const EVENT_TYPE_SOURCES = {
  thumbs_up: 'explicit',
  thumbs_down: 'explicit',
  rating: 'explicit',
  skip: 'explicit',
  comment: 'explicit',
  error_categories: 'explicit',
  quality_scores: 'explicit',
  review: 'explicit',
  correction: 'explicit',
  escalation: 'explicit',
  correct_label: 'explicit',
  flag_irrelevant: 'explicit',
  flag_missing: 'explicit',
  correct_citation: 'explicit',
  rate_usefulness: 'explicit',
  add_note: 'explicit',
  score: 'explicit',
  preference: 'explicit',
  edit: 'implicit',
  retry: 'implicit',
  abandon: 'implicit',
  continue: 'implicit',
  implicit_accept: 'implicit',
  implicit_reject: 'implicit',
  outcome: 'outcome',
} as const satisfies Record<string, TypeSource>;

/** A feedback event type name, e.g. `thumbs_up` or `correction`. */
export type FeedbackEventType = keyof typeof EVENT_TYPE_SOURCES;

/** All event type names. */
export const FEEDBACK_EVENT_TYPES = Object.keys(EVENT_TYPE_SOURCES) as FeedbackEventType[];

/** The label actions of the ADR-0012 feedback tool; they target a part of a response by `targetId`. */
export const LABEL_ACTION_TYPES = [
  'correct_label',
  'flag_irrelevant',
  'flag_missing',
  'correct_citation',
  'rate_usefulness',
  'add_note',
] as const satisfies readonly FeedbackEventType[];

/**
 * Vote types that replace each other: a user's newest vote on a response is the one that counts.
 * Ratings form their own slot per aspect, so a 4-star "clarity" vote does not replace a thumbs up.
 */
export const THUMBS_TYPES = ['thumbs_up', 'thumbs_down'] as const satisfies readonly FeedbackEventType[];

/**
 * The explicit-judgement types a reviewer or an evaluator may send with `source: "review"` or
 * `"judge"`: verdicts and scores about a response's quality. Others (skip, escalation, the label
 * actions, implicit and outcome types) describe a user's own act and keep their type's source.
 */
export const ATTRIBUTABLE_TYPES = [
  'thumbs_up',
  'thumbs_down',
  'rating',
  'score',
  'review',
  'quality_scores',
  'correction',
  'comment',
  'error_categories',
  'preference',
] as const satisfies readonly FeedbackEventType[];

/**
 * Tells whether a string names a known event type.
 *
 * @example
 * isFeedbackEventType('thumbs_up') // true
 * isFeedbackEventType('like') // false
 */
export function isFeedbackEventType(value: unknown): value is FeedbackEventType {
  return typeof value === 'string' && Object.hasOwn(EVENT_TYPE_SOURCES, value);
}

/**
 * The signal source a type belongs to; used when an event does not say its source.
 *
 * @example
 * sourceOfType('retry') // 'implicit'
 */
export function sourceOfType(type: FeedbackEventType): TypeSource {
  return EVENT_TYPE_SOURCES[type];
}

const attributable: ReadonlySet<string> = new Set(ATTRIBUTABLE_TYPES);

/**
 * The sources an event of `type` may state: its type's own, plus `review` and `judge` for the
 * {@link ATTRIBUTABLE_TYPES}.
 *
 * @example
 * allowedSources('thumbs_up') // ['explicit', 'review', 'judge']
 * allowedSources('retry') // ['implicit']
 */
export function allowedSources(type: FeedbackEventType): readonly SignalSource[] {
  const own = sourceOfType(type);
  return attributable.has(type) ? [own, ...ATTRIBUTED_SOURCES] : [own];
}

/**
 * The source of an event: the one it states, else its type's. The one place that rule lives;
 * the writer stores it, and every reader groups by the stored column.
 *
 * @example
 * sourceOfEvent({ type: 'thumbs_up' }) // 'explicit'
 * sourceOfEvent({ type: 'thumbs_up', source: 'judge' }) // 'judge'
 */
export function sourceOfEvent(event: { type: FeedbackEventType; source?: SignalSource | undefined }): SignalSource {
  return event.source ?? sourceOfType(event.type);
}

/**
 * Whether a source is what a response's own users said, did or measured (explicit, implicit,
 * outcome), as against a reviewer's or an evaluator's judgement. User-facing rates
 * (satisfaction, thumbs-up rate, user memory) count only these.
 *
 * @example
 * isUserSource('explicit') // true
 * isUserSource('judge') // false
 */
export function isUserSource(source: string): boolean {
  return source === 'explicit' || source === 'implicit' || source === 'outcome';
}
